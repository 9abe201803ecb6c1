//! Chat in Chromium against the provider fixture: adding a provider, sending, streaming,
//! stopping, queueing, regenerating, editing, switching branches, errors with Retry,
//! reloading mid-stream (the reply reopens interrupted with what was saved), deleting
//! with Undo, two tabs (one writes a conversation's reply, the other shows and can stop
//! it, and takes over when the writer closes), and the edge relay when the provider blocks CORS, with the
//! traffic to the edge checked for the key in any plain or encoded form, and a relayed
//! reply resumed across a network cut.

use fantoccini::key::Key;
use hearth_core::provider::Protocol;
use hearth_e2e::chat::{
    click_in_last, last_status, last_status_within, messages, open_latest, open_latest_on_phone,
    prepare, ready, send, user_texts,
};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::tap::Tap;
use hearth_e2e::{AppSession, Browser, Stack};
use serde_json::json;

#[tokio::test]
async fn a_reply_streams_renders_markdown_and_names_the_conversation() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(
        Reply::text(
            "Here is **bold** text.\n\n```rust\nfn main() {}\n```\n\nAnd a list:\n\n- one\n- two\n",
        )
        .reasoning("Thinking it over")
        .chunk_bytes(7)
        .delay_ms(5)
        .usage(12, 34),
    );
    send(&session, "How do I write main in Rust?").await;
    last_status(&session, "done").await;
    session
        .wait_for(".message--assistant .markdown strong")
        .await;
    session
        .wait_for(".message--assistant .code-block code.language-rust")
        .await;
    let rows = messages(&session).await;
    assert_eq!(
        rows[0],
        json!(["user", "done", "How do I write main in Rust?"])
    );
    assert_eq!(rows[1][0], json!("assistant"));
    let reply = rows[1][2].as_str().unwrap();
    assert!(reply.contains("Here is bold text."), "{reply}");
    assert!(reply.contains("fn main() {}"), "{reply}");
    assert!(
        !reply.contains("**"),
        "Markdown is rendered, not shown: {reply}"
    );
    assert_eq!(
        session.text_of(".message__reasoning summary").await,
        "Reasoning"
    );
    // The request went to the fixture with the question, and the sidebar names the chat.
    assert_eq!(user_texts(&fixture), ["How do I write main in Rust?"]);
    session
        .wait_until(
            "document.querySelector('.conversation-item__title')?.textContent === 'How do I write main in Rust?'",
        )
        .await;
    // Details: model, reported tokens.
    click_in_last(&session, "assistant", "Details").await;
    let details = session.text_of(".message__details").await;
    assert!(details.contains("fixture-small"), "{details}");
    assert!(
        details.contains("12") && details.contains("34"),
        "{details}"
    );
    session.screenshot("chat-reply").await;
    session.finish().await;
}

/// What a streaming tail costs is the tail's own: each block finished while the reply
/// grows is marked settled, which the styles isolate (skipped while off screen); the open
/// tail is not; the space between blocks holds without a selector tied to their
/// neighbours; and the finished reply reads as the whole answer, every block rendered.
#[tokio::test]
async fn a_long_streaming_reply_isolates_the_blocks_it_finished() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let answer: String = (1..=120)
        .map(|i| format!("## Part {i}\n\nParagraph {i} with **bold** text that goes on.\n\n"))
        .collect();
    // About 200 chunks 30 ms apart: six seconds of streaming to look at.
    fixture.enqueue(Reply::text(answer).text_chunk_chars(40).delay_ms(30));
    send(&session, "Write a long answer").await;
    session
        .wait_until(
            "document.querySelectorAll('.message--assistant .md-block--settled').length >= 8",
        )
        .await;
    let streaming = session
        .js(
            "const m = [...document.querySelectorAll('.message--assistant')].at(-1);
             const blocks = [...m.querySelector('.markdown').children];
             const settled = blocks.filter((b) => b.classList.contains('md-block--settled'));
             return { status: m.dataset.status,
               settled: settled.length,
               isolated: settled.filter((b) => getComputedStyle(b).contentVisibility === 'auto').length,
               tailSettled: blocks.at(-1).classList.contains('md-block--settled'),
               tailVisibility: getComputedStyle(blocks.at(-1)).contentVisibility,
               margins: blocks.map((b) => getComputedStyle(b).marginTop) };",
            vec![],
        )
        .await;
    assert_eq!(streaming["status"], "streaming", "{streaming}");
    assert_eq!(streaming["isolated"], streaming["settled"], "{streaming}");
    assert_eq!(streaming["tailSettled"], false, "{streaming}");
    assert_eq!(streaming["tailVisibility"], "visible", "{streaming}");
    let margins: Vec<&str> = streaming["margins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(margins[0], "0px", "{streaming}");
    assert!(
        margins[1] != "0px" && margins[1..].iter().all(|m| *m == margins[1]),
        "{streaming}"
    );

    last_status(&session, "done").await;
    session
        .wait_until(
            "!document.querySelector('.message--assistant .md-plain') && \
             document.querySelectorAll('.message--assistant h2').length === 120",
        )
        .await;
    // The question may have left the list's window above the long reply: the last row.
    let rows = messages(&session).await;
    let reply = rows.as_array().unwrap().last().unwrap()[2]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reply.starts_with("Part 1"), "{reply}");
    assert!(
        reply.contains("Paragraph 120 with bold text") && !reply.contains("**"),
        "{reply}"
    );
    session.finish().await;
}

#[tokio::test]
async fn stop_keeps_the_partial_reply_and_the_queue_waits_for_a_finished_one() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(
        Reply::text("one two three four five six")
            .text_chunk_chars(4)
            .stall_after(2),
    );
    send(&session, "First").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('one two')")
        .await;
    // Sent while streaming: queued, visible, not part of the running request.
    send(&session, "Second").await;
    session.wait_for(".queue__input").await;
    assert_eq!(
        session
            .js(
                "return document.querySelector('.queue__input').value",
                vec![]
            )
            .await,
        json!("Second")
    );
    // A JavaScript click: the settings' toasts may still cover the button.
    session.wait_for(".composer__stop").await;
    session
        .js("document.querySelector('.composer__stop').click()", vec![])
        .await;
    last_status(&session, "aborted").await;
    let rows = messages(&session).await;
    assert_eq!(rows[1][2], json!("one two"), "what arrived is kept");
    assert_eq!(
        user_texts(&fixture),
        ["First"],
        "stop leaves the queue alone"
    );
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.queue__input').length",
                vec![]
            )
            .await,
        json!(1)
    );
    // Continue appends to the stopped reply; when it completes the queue is sent.
    fixture.enqueue(Reply::text("seven eight"));
    fixture.enqueue(Reply::text("Answer to second"));
    click_in_last(&session, "assistant", "Continue").await;
    session
        .wait_until("[...document.querySelectorAll('.message')].length === 4")
        .await;
    last_status(&session, "done").await;
    let rows = messages(&session).await;
    assert_eq!(
        rows[1][2],
        json!("one two seven eight"),
        "Continue extends the reply"
    );
    assert_eq!(rows[2], json!(["user", "done", "Second"]));
    assert_eq!(rows[3][2], json!("Answer to second"));
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.queue__input').length",
                vec![]
            )
            .await,
        json!(0)
    );
    session.finish().await;
}

#[tokio::test]
async fn regenerate_and_edit_make_branches_the_user_can_switch() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(Reply::text("First answer"));
    send(&session, "Question").await;
    last_status(&session, "done").await;

    fixture.enqueue(Reply::text("Second answer"));
    click_in_last(&session, "assistant", "Regenerate").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.trim() === 'Second answer'")
        .await;
    last_status(&session, "done").await;
    assert_eq!(
        session
            .text_of(".message--assistant .branch__position")
            .await,
        "2/2"
    );
    click_in_last(&session, "assistant", "Previous version").await;
    session
        .wait_until("document.querySelector('.message--assistant .branch__position')?.textContent === '1/2'")
        .await;
    assert_eq!(messages(&session).await[1][2], json!("First answer"));

    // Editing the question makes a sibling question with its own reply.
    fixture.enqueue(Reply::text("Answer to the edit"));
    click_in_last(&session, "user", "Edit").await;
    let editor = session.wait_for(".message__edit-input").await;
    editor.clear().await.expect("clear");
    editor.send_keys("Edited question").await.expect("type");
    session.press(&[Key::Enter]).await;
    session
        .wait_until(
            "document.querySelector('.message--user .branch__position')?.textContent === '2/2'",
        )
        .await;
    last_status(&session, "done").await;
    let rows = messages(&session).await;
    assert_eq!(rows[0], json!(["user", "done", "Edited question"]));
    assert_eq!(rows[1][2], json!("Answer to the edit"));
    assert_eq!(
        user_texts(&fixture),
        ["Question", "Question", "Edited question"]
    );
    // The first branch is one switch away, with its own replies intact.
    click_in_last(&session, "user", "Previous version").await;
    session
        .wait_until(
            "document.querySelector('.message--user .branch__position')?.textContent === '1/2'",
        )
        .await;
    let rows = messages(&session).await;
    assert_eq!(rows[0][2], json!("Question"));
    assert_eq!(rows[1][2], json!("First answer"));
    // And it survives a reload.
    session.reload_app().await;
    open_latest(&session).await;
    session
        .wait_until(
            "document.querySelector('.message--user .branch__position')?.textContent === '1/2'",
        )
        .await;
    session.finish().await;
}

#[tokio::test]
async fn a_provider_error_is_a_status_block_with_retry_not_content() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(Reply::text("").status(429, "Slow down"));
    send(&session, "Hello").await;
    last_status(&session, "error").await;
    let block = session.text_of(".status-block--error").await;
    assert!(block.contains("RATE_LIMITED"), "{block}");
    assert!(block.contains("Slow down"), "{block}");
    assert_eq!(
        messages(&session).await[1][2],
        json!(""),
        "never written into the content"
    );
    fixture.enqueue(Reply::text("Better now"));
    click_in_last(&session, "assistant", "Retry").await;
    last_status(&session, "done").await;
    assert_eq!(messages(&session).await[1][2], json!("Better now"));
    // A stream cut short keeps its text and says so.
    fixture.enqueue(
        Reply::text("partial words here")
            .text_chunk_chars(5)
            .truncate_after(2),
    );
    send(&session, "Again").await;
    last_status(&session, "error").await;
    let block = session.text_of(".status-block--error").await;
    assert!(block.contains("STREAM_TRUNCATED"), "{block}");
    assert_eq!(
        messages(&session).await[3][2],
        json!("partial wo"),
        "the partial text is kept"
    );
    session
        .assert_no_console_errors_but(|m| m.contains("429"))
        .await;
    session.browser.close().await;
}

#[tokio::test]
async fn a_reply_shows_its_phase_and_its_failure_in_the_users_language() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    // While the model writes, the reply says so; once done, no phase is left.
    fixture.enqueue(
        Reply::text("a slow and steady answer")
            .text_chunk_chars(2)
            .delay_ms(120),
    );
    send(&session, "Take your time").await;
    session
        .wait_for(".message--assistant[data-phase=model]")
        .await;
    last_status(&session, "done").await;
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.message[data-phase]').length",
                vec![]
            )
            .await,
        json!(0)
    );
    // A failure is stored as its code and shown in the language the user reads.
    session.reload_in("ja").await;
    open_latest(&session).await;
    fixture.enqueue(Reply::text("").status(429, "Slow down"));
    send(&session, "もう一度").await;
    last_status(&session, "error").await;
    let block = session.text_of(".status-block--error").await;
    assert!(block.contains("RATE_LIMITED"), "{block}");
    assert!(
        block.contains("プロバイダーがリクエストの頻度を制限しています。"),
        "{block}"
    );
    assert!(
        block.contains("Slow down"),
        "the provider's words as they are: {block}"
    );
    assert!(
        !block.contains("The provider is rate limiting"),
        "no English sentence: {block}"
    );
    session.screenshot("chat-error-ja").await;
    session
        .assert_no_console_errors_but(|m| m.contains("429"))
        .await;
    session.browser.close().await;
}

#[tokio::test]
async fn a_reload_mid_stream_reopens_the_reply_interrupted_with_what_was_saved() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(
        Reply::text("alpha beta gamma delta")
            .text_chunk_chars(6)
            .stall_after(2),
    );
    send(&session, "Tell me").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('alpha beta g')")
        .await;
    // Longer than the 500 ms flush interval: the partial reply is on disk.
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    session.reload_app().await;
    open_latest(&session).await;
    last_status(&session, "interrupted").await;
    let rows = messages(&session).await;
    assert_eq!(
        rows[1][2],
        json!("alpha beta g"),
        "nothing before the last flush is lost"
    );
    session.wait_for(".status-block").await;
    fixture.release();
    fixture.enqueue(Reply::text("amma delta"));
    click_in_last(&session, "assistant", "Continue").await;
    last_status(&session, "done").await;
    assert_eq!(
        messages(&session).await[1][2],
        json!("alpha beta gamma delta")
    );
    let last = fixture.requests().last().unwrap().json();
    let sent = last["messages"].to_string();
    assert!(
        sent.contains("alpha beta"),
        "Continue sends the partial reply: {sent}"
    );
    session.finish().await;
}

/// Reloads the page the moment the last reply shows it ended (done, stopped or failed),
/// with the page's thread kept busy for a while first, as a slow machine's is: whatever
/// the reply had not stored by then is lost.
async fn reload_when_the_reply_ends(session: &AppSession) {
    session
        .js(
            "window.reloadArmed = true;
             // The last reply, ended (an older one drawn again does not count).
             const over = (node) => node.nodeType === 1 && node.matches('.message--assistant')
               && ['done', 'aborted', 'error'].includes(node.dataset.status)
               && node === [...document.querySelectorAll('.message--assistant')].at(-1);
             new MutationObserver((changes, observer) => {
               // The reply's status changes on its element, or (a busy machine drawing
               // late) the element first appears already ended.
               const ended = changes.some((c) => over(c.target)
                 || [...c.addedNodes].some((n) => over(n)
                   || (n.nodeType === 1 && [...n.querySelectorAll('.message--assistant')].some(over))));
               if (!ended) return;
               observer.disconnect();
               location.reload();
               const start = performance.now();
               while (performance.now() - start < 300) {}
             }).observe(document.body, { subtree: true, childList: true, attributes: true,
               attributeFilter: ['data-status'] });",
            vec![],
        )
        .await;
}

/// Waits for the reload [`reload_when_the_reply_ends`] makes, then reopens the chat.
async fn reopened_after_the_reload(session: &AppSession) {
    session.wait_until("window.reloadArmed === undefined").await;
    session.wait_for("#composer-input").await;
    open_latest(session).await;
}

#[tokio::test]
async fn a_reply_shown_ended_is_stored_even_when_the_page_goes_that_moment() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    // Done: all of it, done.
    fixture.enqueue(Reply::text("one two three four five").text_chunk_chars(4));
    reload_when_the_reply_ends(&session).await;
    send(&session, "Count").await;
    reopened_after_the_reload(&session).await;
    last_status(&session, "done").await;
    assert_eq!(
        messages(&session).await[1],
        json!(["assistant", "done", "one two three four five"])
    );

    // Stopped: what arrived, stopped.
    fixture.enqueue(
        Reply::text("six seven eight nine")
            .text_chunk_chars(4)
            .stall_after(2),
    );
    send(&session, "More").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('six sev')")
        .await;
    reload_when_the_reply_ends(&session).await;
    session.wait_for(".composer__stop").await;
    session
        .js("document.querySelector('.composer__stop').click()", vec![])
        .await;
    reopened_after_the_reload(&session).await;
    last_status(&session, "aborted").await;
    assert_eq!(
        messages(&session).await[3],
        json!(["assistant", "aborted", "six seve"])
    );

    // Failed: what arrived, with its error.
    fixture.enqueue(
        Reply::text("ten eleven twelve")
            .text_chunk_chars(4)
            .error_after(2),
    );
    reload_when_the_reply_ends(&session).await;
    send(&session, "Again").await;
    reopened_after_the_reload(&session).await;
    last_status(&session, "error").await;
    assert_eq!(
        messages(&session).await[5],
        json!(["assistant", "error", "ten elev"])
    );
    session.wait_for(".message--assistant .status-block").await;
    session.finish().await;
}

/// The user and assistant texts of the newest chat request, oldest first.
fn sent_turns(fixture: &ProviderFixture) -> Vec<String> {
    let bodies = hearth_e2e::chat::chat_bodies(fixture);
    let last = bodies.last().expect("a chat request");
    last["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            let text = hearth_e2e::chat::message_text(m);
            format!("{}:{text}", m["role"].as_str().unwrap_or_default())
        })
        .collect()
}

/// Runs `/clear` from the composer by keyboard.
async fn slash_clear(session: &AppSession) {
    hearth_e2e::chat::type_in_composer(session, "/clear").await;
    session
        .wait_until("document.getElementById('composer-input').getAttribute('aria-activedescendant') !== null")
        .await;
    session.press(&[Key::Enter]).await;
}

#[tokio::test]
async fn clear_starts_the_context_again_until_the_user_brings_it_back() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    // A new chat has nothing to clear, and says so.
    slash_clear(&session).await;
    session
        .wait_for_toast("Nothing to clear: this chat has no messages yet.")
        .await;
    fixture.enqueue(Reply::text("First answer"));
    hearth_e2e::chat::ask(&session, "First question").await;

    slash_clear(&session).await;
    session
        .wait_for_toast("Context cleared: the messages above are no longer sent to the model.")
        .await;
    let reply_id = session
        .js(
            "return [...document.querySelectorAll('.message--assistant')].at(-1).dataset.messageId",
            vec![],
        )
        .await;
    assert_eq!(
        session
            .js(
                "return document.querySelector('.context-break')?.dataset.contextBreak",
                vec![]
            )
            .await,
        reply_id,
        "the line stands under the last message"
    );
    fixture.enqueue(Reply::text("Second answer"));
    hearth_e2e::chat::ask(&session, "Second question").await;
    assert_eq!(sent_turns(&fixture), ["user:Second question"]);

    // Kept with the conversation: after a reload the line is there and still applies.
    session.reload_app().await;
    open_latest(&session).await;
    session.wait_for(".context-break").await;
    session.screenshot("context-break").await;
    fixture.enqueue(Reply::text("Third answer"));
    hearth_e2e::chat::ask(&session, "Third question").await;
    assert_eq!(
        sent_turns(&fixture),
        [
            "user:Second question",
            "assistant:Second answer",
            "user:Third question"
        ]
    );

    // Brought back by keyboard: the whole conversation is sent again.
    session
        .js(
            "document.querySelector('.context-break__restore').focus()",
            vec![],
        )
        .await;
    session.press(&[Key::Enter]).await;
    session
        .wait_for_toast("The messages above are sent to the model again.")
        .await;
    session
        .wait_until("!document.querySelector('.context-break')")
        .await;
    fixture.enqueue(Reply::text("Fourth answer"));
    hearth_e2e::chat::ask(&session, "Fourth question").await;
    assert_eq!(
        sent_turns(&fixture),
        [
            "user:First question",
            "assistant:First answer",
            "user:Second question",
            "assistant:Second answer",
            "user:Third question",
            "assistant:Third answer",
            "user:Fourth question"
        ]
    );
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn deleting_a_message_or_a_conversation_can_be_undone() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(Reply::text("Reply one"));
    send(&session, "One").await;
    last_status(&session, "done").await;
    fixture.enqueue(Reply::text("Reply two"));
    send(&session, "Two").await;
    session
        .wait_until("[...document.querySelectorAll('.message')].length === 4")
        .await;
    last_status(&session, "done").await;
    // Deleting the second question takes its reply with it.
    click_in_last(&session, "user", "Delete").await;
    session
        .wait_until("[...document.querySelectorAll('.message')].length === 2")
        .await;
    session.click(".toast__action").await;
    session
        .wait_until("[...document.querySelectorAll('.message')].length === 4")
        .await;
    assert_eq!(messages(&session).await[3][2], json!("Reply two"));
    // The whole conversation, from the sidebar menu.
    session
        .click(".conversation-item .menu-anchor .icon-button")
        .await;
    session
        .js(
            "[...document.querySelectorAll('.conversation-item [role=menuitem]')]
               .find((b) => b.textContent.includes('Delete')).click()",
            vec![],
        )
        .await;
    session
        .wait_until("!document.querySelector('.conversation-item')")
        .await;
    session.wait_for(".empty-state").await;
    // One Undo at a time: the message's Undo made way for the conversation's.
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.toast__action').length",
                vec![]
            )
            .await,
        json!(1)
    );
    session.click(".toast__action").await;
    open_latest(&session).await;
    session
        .wait_until("[...document.querySelectorAll('.message')].length === 4")
        .await;
    session.finish().await;
}

#[tokio::test]
async fn a_second_tab_sees_the_first_tabs_messages() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(Reply::text("Shared reply"));
    send(&session, "Shared question").await;
    last_status(&session, "done").await;
    let (first, _) = session.open_tab().await;
    session.open_app("/").await;
    open_latest(&session).await;
    last_status(&session, "done").await;
    assert_eq!(messages(&session).await[1][2], json!("Shared reply"));
    // A message sent in the first tab appears in the second without a reload.
    session.client.switch_to_window(first).await.expect("back");
    fixture.enqueue(Reply::text("Another reply"));
    send(&session, "Another question").await;
    last_status(&session, "done").await;
    let second_handle = session
        .client
        .windows()
        .await
        .expect("windows")
        .into_iter()
        .last()
        .expect("second");
    session
        .client
        .switch_to_window(second_handle)
        .await
        .expect("switch");
    session
        .wait_until("[...document.querySelectorAll('.message')].length === 4")
        .await;
    last_status(&session, "done").await;
    assert_eq!(messages(&session).await[3][2], json!("Another reply"));
    session.finish().await;
}

/// Whether a toast says `text`.
fn toast_says(text: &str) -> String {
    format!(
        "[...document.querySelectorAll('.toast__message')].some((t) => t.textContent.includes({}))",
        json!(text)
    )
}

#[tokio::test]
async fn one_tab_writes_a_conversations_reply_the_other_shows_it_and_can_stop_it() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(
        Reply::text("one two three four five six")
            .text_chunk_chars(4)
            .stall_after(2),
    );
    send(&session, "First").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('one two')")
        .await;
    let (first, second) = session.open_tab().await;
    session.open_app("/").await;
    open_latest(&session).await;
    // The second tab shows the first tab's reply as it is written: streaming, with what
    // arrived so far and a Stop button, never as interrupted with Continue.
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('one two')")
        .await;
    last_status(&session, "streaming").await;
    session.wait_for(".composer__stop").await;
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.message .status-block').length",
                vec![]
            )
            .await,
        json!(0),
        "another tab's reply is not offered to be continued"
    );
    // A message sent here is refused, kept in the composer, and nothing is stored.
    send(&session, "Sneaky").await;
    session
        .wait_until(&toast_says("Another tab is writing a reply"))
        .await;
    assert_eq!(
        session
            .js(
                "return document.getElementById('composer-input').value",
                vec![]
            )
            .await,
        json!("Sneaky")
    );
    assert_eq!(messages(&session).await.as_array().map(Vec::len), Some(2));
    assert_eq!(user_texts(&fixture), ["First"], "no second request");
    // Stop here stops the run in the first tab; both show what arrived.
    session
        .js("document.querySelector('.composer__stop').click()", vec![])
        .await;
    last_status(&session, "aborted").await;
    session
        .wait_until("!document.querySelector('.composer__stop')")
        .await;
    assert_eq!(messages(&session).await[1][2], json!("one two"));
    fixture.release();
    session
        .client
        .switch_to_window(first.clone())
        .await
        .expect("back");
    last_status(&session, "aborted").await;
    assert_eq!(messages(&session).await[1][2], json!("one two"));

    // Now the second tab writes; the first shows it. When the second tab is closed
    // mid-reply (it could as well crash), its lock goes with it and the first tab shows
    // the reply interrupted, to be continued here.
    session
        .client
        .switch_to_window(second.clone())
        .await
        .expect("switch");
    session
        .wait_for("#composer-input")
        .await
        .clear()
        .await
        .expect("clear");
    fixture.enqueue(
        Reply::text("alpha beta gamma delta")
            .text_chunk_chars(6)
            .stall_after(2),
    );
    send(&session, "Second").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('alpha beta g')")
        .await;
    session
        .client
        .switch_to_window(first.clone())
        .await
        .expect("back");
    session
        .wait_until("[...document.querySelectorAll('.message')].length === 4")
        .await;
    last_status(&session, "streaming").await;
    session.wait_for(".composer__stop").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('alpha beta g')")
        .await;
    session
        .client
        .switch_to_window(second)
        .await
        .expect("switch");
    session.client.close_window().await.expect("close the tab");
    session.client.switch_to_window(first).await.expect("back");
    last_status(&session, "interrupted").await;
    assert_eq!(messages(&session).await[3][2], json!("alpha beta g"));
    session
        .wait_until("!document.querySelector('.composer__stop')")
        .await;
    fixture.release();
    fixture.enqueue(Reply::text("amma delta"));
    click_in_last(&session, "assistant", "Continue").await;
    last_status(&session, "done").await;
    assert_eq!(
        messages(&session).await[3][2],
        json!("alpha beta gamma delta")
    );
    // One request per reply start: the first tab's, the second tab's, and Continue here.
    let asked = user_texts(&fixture);
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert_eq!(asked[..2], ["First", "Second"]);
    session.finish().await;
}

#[tokio::test]
async fn a_provider_that_blocks_cors_streams_through_the_relay() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.set_cors(false);
    fixture.enqueue(Reply::text("Relayed **reply**").chunk_bytes(5));
    send(&session, "Via the edge").await;
    last_status(&session, "done").await;
    session
        .wait_for(".message--assistant .markdown strong")
        .await;
    assert_eq!(messages(&session).await[1][2], json!("Relayed reply"));
    // The browser's direct attempt failed on CORS; the edge made the call.
    assert_eq!(user_texts(&fixture), ["Via the edge"]);
    session.browser.close().await;
}

#[tokio::test]
async fn a_relayed_reply_survives_a_network_cut_mid_stream_and_a_stop_ends_its_call() {
    let fixture = ProviderFixture::start().await;
    fixture.set_cors(false);
    let (session, tap) = AppSession::open_through_tap(1280, 900).await;
    prepare(&session, &fixture, Some("sk-cut-test")).await;

    fixture.enqueue(
        Reply::text("one two three four five six")
            .text_chunk_chars(4)
            .stall_after(2),
    );
    send(&session, "Through a bad network").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('one two')")
        .await;
    // The network between browser and edge drops every connection mid-reply; the
    // provider, still stalled, goes on writing once released.
    assert!(tap.cut() >= 1, "the reply's connection was open");
    fixture.release();
    last_status(&session, "done").await;
    assert_eq!(
        messages(&session).await[1][2],
        json!("one two three four five six"),
        "every word once, nothing lost or repeated"
    );
    assert_eq!(
        user_texts(&fixture),
        ["Through a bad network"],
        "one provider call"
    );
    let sent = String::from_utf8_lossy(&tap.sent()).to_ascii_lowercase();
    assert!(
        sent.contains("get /api/chat/relay/"),
        "resumed through the edge"
    );
    assert!(sent.contains("last-event-id: "), "from the last batch held");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let sent = String::from_utf8_lossy(&tap.sent()).to_ascii_lowercase();
    assert!(
        !sent.contains("delete /api/chat/relay/"),
        "a reply that ended is not stopped"
    );

    // Stop on a relayed reply ends the provider's call at once, not after the window a
    // dropped connection is given to come back.
    fixture.enqueue(
        Reply::text("never finished here")
            .text_chunk_chars(4)
            .stall_after(1),
    );
    send(&session, "Then stop").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('neve')")
        .await;
    assert_eq!(fixture.open_streams(), 1);
    session.wait_for(".composer__stop").await;
    session
        .js("document.querySelector('.composer__stop').click()", vec![])
        .await;
    last_status(&session, "aborted").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while fixture.open_streams() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the provider call is still open"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let sent = String::from_utf8_lossy(&tap.sent()).to_ascii_lowercase();
    assert_eq!(
        sent.matches("delete /api/chat/relay/").count(),
        1,
        "Stop stops it on the edge"
    );
    // Only what the test caused: the direct attempts CORS refused, and the cut itself.
    let provider = fixture.url();
    session
        .assert_no_console_errors_but(|m| {
            m.contains(&provider)
                || m.contains("blocked by CORS policy")
                || (m.contains("/api/chat/relay ") && m.contains("ERR_INCOMPLETE_CHUNKED_ENCODING"))
        })
        .await;
    session.browser.close().await;
}

#[tokio::test]
async fn hostile_markdown_in_a_reply_stays_inert() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(
        Reply::text(
            "Before <img src=x onerror=\"window.__pwned=1\"> and <script>window.__pwned=2</script>\n\n\
             [click](javascript:window.__pwned=3) [data](data:text/html,<b>x</b>) \
             [fine](https://example.com/ok)\n\n\
             ![remote](https://tracker.example/pixel.png)\n\n\
             <iframe src=\"https://example.com\"></iframe>\n\n\
             Math that fails to parse quotes its source: $\\frac{&<img src=x onerror=\"window.__pwned=4\">$\n",
        )
        .chunk_bytes(9),
    );
    send(&session, "Show me").await;
    last_status(&session, "done").await;
    session
        .wait_until("document.querySelector('.message--assistant .md-block a[href=\"https://example.com/ok\"]')")
        .await;
    let found = session
        .js(
            "const m = document.querySelector('.message--assistant .markdown');
             return {
               pwned: window.__pwned ?? null,
               elements: m.querySelectorAll('img, script, iframe').length,
               hrefs: [...m.querySelectorAll('a')].map((a) => a.getAttribute('href')),
               rels: [...m.querySelectorAll('a')].map((a) => a.rel),
               text: m.textContent,
             };",
            vec![],
        )
        .await;
    assert_eq!(found["pwned"], serde_json::Value::Null, "{found}");
    assert_eq!(
        found["elements"],
        json!(0),
        "raw HTML and remote images are not elements: {found}"
    );
    let hrefs: Vec<String> = serde_json::from_value(found["hrefs"].clone()).unwrap();
    assert!(
        hrefs.iter().all(|h| h.starts_with("https://")),
        "only safe links survive: {hrefs:?}"
    );
    assert!(
        hrefs.contains(&"https://tracker.example/pixel.png".to_string()),
        "a remote image is a link"
    );
    assert!(
        found["rels"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r.as_str().unwrap().contains("noopener")),
        "{found}"
    );
    let text = found["text"].as_str().unwrap();
    assert!(
        text.contains("<script>"),
        "raw HTML is shown as text: {text}"
    );
    session.finish().await;
}

/// A table's column alignment (`|:---|:---:|---:|`) shows, and logs nothing: the writer's
/// inline `style` would be refused by the policy (an error per cell, alignment lost).
#[tokio::test]
async fn aligned_table_columns_show_aligned_without_a_policy_error() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(Reply::text(
        "| left | centre | right | plain |\n|:---|:---:|---:|---|\n| a | b | c | d |\n",
    ));
    send(&session, "A table").await;
    last_status(&session, "done").await;
    session
        .wait_for(".message--assistant .markdown table td")
        .await;
    let aligned = session
        .js(
            "return [...document.querySelectorAll('.message--assistant .markdown table tr')]
               .map((row) => [...row.children].map((cell) => getComputedStyle(cell).textAlign));",
            vec![],
        )
        .await;
    let expected = json!(["left", "center", "right"]);
    for row in aligned.as_array().expect("rows") {
        assert_eq!(
            row.as_array().expect("cells")[..3],
            expected.as_array().unwrap()[..],
            "{aligned}"
        );
    }
    session.finish().await;
}

/// The last reply's citations (text, link, title, opens in a new tab without opener) and
/// its sources list (number, name, site, link).
const CITED: &str = "const m = [...document.querySelectorAll('.message--assistant')].at(-1);
return {
  citations: [...m.querySelectorAll('.markdown a.citation')].map((a) =>
    [a.textContent, a.getAttribute('href'), a.title, a.target, a.rel]),
  sources: [...m.querySelectorAll('.reply-sources__item')].map((li) => [
    li.querySelector('.reply-sources__number').textContent,
    li.querySelector('.reply-sources__name').textContent,
    li.querySelector('.reply-sources__site')?.textContent ?? null,
    li.querySelector('a')?.getAttribute('href') ?? null]),
  text: m.querySelector('.markdown').textContent.trim(),
};";

#[tokio::test]
async fn citations_link_to_the_replys_own_sources_and_survive_a_reload() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    // Perplexity's way: the sources beside the choices of every chunk, `[n]` counting
    // them. The third is no web address: never kept, so `[3]` has no source.
    fixture.enqueue(
        Reply::text("Cats sleep 16 hours [1][2]. Dogs bark [3]. In code `arr[1]` stays.")
            .source("https://cats.example/sleep", "Cat \"sleep\" <facts>")
            .source("https://www.vets.example/", "")
            .source("javascript:alert(1)", "Click me"),
    );
    send(&session, "How long do cats sleep?").await;
    last_status(&session, "done").await;
    let expected = json!({
        "citations": [
            ["1", "https://cats.example/sleep", "Cat \"sleep\" <facts>", "_blank",
             "noopener noreferrer nofollow"],
            ["2", "https://www.vets.example/", "vets.example", "_blank",
             "noopener noreferrer nofollow"],
        ],
        "sources": [
            ["1", "Cat \"sleep\" <facts>", "cats.example", "https://cats.example/sleep"],
            ["2", "vets.example", null, "https://www.vets.example/"],
        ],
        "text": "Cats sleep 16 hours 12. Dogs bark [3]. In code arr[1] stays.",
    });
    session
        .wait_until(&format!(
            "JSON.stringify((() => {{ {CITED} }})()) === {}",
            json!(expected.to_string())
        ))
        .await;
    assert!(
        !session
            .text_of(".message--assistant")
            .await
            .contains("Click me"),
        "an unsafe source is not shown"
    );
    session.screenshot("reply-sources").await;
    // Stored with the reply.
    session.reload_app().await;
    open_latest(&session).await;
    session
        .wait_until(&format!(
            "JSON.stringify((() => {{ {CITED} }})()) === {}",
            json!(expected.to_string())
        ))
        .await;
    // Reading mode lists them too; the Markdown file ends with them as numbered links.
    hearth_e2e::chat::reply_menu(&session, "Read").await;
    session
        .wait_until(
            "document.querySelector('.dialog--reading')?.open &&
             document.querySelectorAll('.reading a.citation').length === 2 &&
             document.querySelectorAll('.reading .reply-sources__item').length === 2",
        )
        .await;
    session.press(&[Key::Escape]).await;
    let downloads = hearth_e2e::paths::scratch_dir("reply-sources-markdown");
    session.allow_downloads(&downloads).await;
    hearth_e2e::chat::reply_menu(&session, "Save as Markdown").await;
    let file = hearth_e2e::paths::downloaded_as(&downloads, "md").await;
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "Cats sleep 16 hours [1][2]. Dogs bark [3]. In code `arr[1]` stays.\n\n\
         **Sources**\n\n1. [Cat \"sleep\" <facts>](<https://cats.example/sleep>)\n\
         2. [vets.example](<https://www.vets.example/>)"
    );
    // Copy takes the sources with the text (the clipboard is watched, not read).
    session
        .js(
            "window.copied = null;
             navigator.clipboard.writeText = (text) => { window.copied = text; return Promise.resolve(); };
             [...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelector('.message__actions button[aria-label=\"Copy\"]').click();",
            vec![],
        )
        .await;
    session.wait_until("window.copied !== null").await;
    assert_eq!(
        session.js("return window.copied", vec![]).await,
        json!(
            "Cats sleep 16 hours [1][2]. Dogs bark [3]. In code `arr[1]` stays.\n\n\
             **Sources**\n\n1. [Cat \"sleep\" <facts>](<https://cats.example/sleep>)\n\
             2. [vets.example](<https://www.vets.example/>)"
        )
    );
    // On a phone, in both themes, the list fits the screen.
    session.resize(360, 780).await;
    for theme in ["light", "dark"] {
        open_latest_on_phone(&session, theme).await;
        session
            .wait_until("document.querySelectorAll('.message--assistant .reply-sources__item').length === 2")
            .await;
        let overflow = session
            .js(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
                vec![],
            )
            .await;
        assert_eq!(overflow, json!(0), "{theme}: the page scrolls sideways");
        session
            .screenshot(&format!("reply-sources-phone-{theme}"))
            .await;
    }
    session.finish().await;
}

#[tokio::test]
async fn sources_that_come_after_the_text_turn_its_citations_into_links() {
    let fixture = ProviderFixture::start().await;
    let session = AppSession::open(1280, 900).await;
    hearth_e2e::chat::prepare_gemini(&session, &fixture).await;
    // Gemini's grounding names its pages in the last chunk, after every word.
    fixture.enqueue(
        Reply::text("Spain won Euro 2024 [1].\n\nThe final was in Berlin [2].")
            .text_chunk_chars(4)
            .source("https://uefa.example/euro-2024", "uefa.com")
            .source("https://news.example/berlin", "news.example"),
    );
    send(&session, "Who won Euro 2024?").await;
    last_status(&session, "done").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant .markdown a.citation')]
               .map((a) => a.textContent + ' ' + a.getAttribute('href')).join(',') ===
             '1 https://uefa.example/euro-2024,2 https://news.example/berlin'",
        )
        .await;
    session.finish().await;
}

#[tokio::test]
async fn a_conversation_fits_a_phone_in_both_themes() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(Reply::text(
        "A reply with a long unbroken token: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n\n\
         ```text\nA code line that is much wider than a phone screen and must scroll inside its block, not the page\n```\n\n\
         | a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n",
    ));
    send(&session, "Show me a wide reply").await;
    last_status(&session, "done").await;
    session.resize(360, 780).await;
    for theme in ["light", "dark"] {
        open_latest_on_phone(&session, theme).await;
        last_status(&session, "done").await;
        session.wait_for(".message--assistant .code-block").await;
        let overflow = session
            .js(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
                vec![],
            )
            .await;
        assert_eq!(overflow, json!(0), "{theme}: the page scrolls sideways");
        session
            .wait_until("!!document.getElementById('composer-model')")
            .await;
        session.screenshot(&format!("chat-phone-{theme}")).await;
    }
    session.finish().await;
}

#[tokio::test]
async fn conversations_can_be_renamed_and_pinned_from_the_sidebar() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    for question in ["First topic", "Second topic"] {
        fixture.enqueue(Reply::text("Noted."));
        session
            .js(
                "document.getElementById('sidebar-new-chat').click()",
                vec![],
            )
            .await;
        session.wait_for(".empty-state").await;
        send(&session, question).await;
        last_status(&session, "done").await;
    }
    let titles = "return [...document.querySelectorAll('.conversation-item__title')].map((t) => t.textContent)";
    // Titles arrive in the background after each reply ("New conversation" until then).
    session
        .wait_until(
            "[...document.querySelectorAll('.conversation-item__title')].every((t) => t.textContent !== 'New conversation')
             && document.querySelectorAll('.conversation-item__title').length === 2",
        )
        .await;
    assert_eq!(
        session.js(titles, vec![]).await,
        json!(["Second topic", "First topic"]),
        "most recent first"
    );
    // Pin the older one: it moves to the top.
    let open_menu_of = |title: &'static str| {
        format!(
            "[...document.querySelectorAll('.conversation-item')]
               .find((i) => i.textContent.includes('{title}'))
               .querySelector('.menu-anchor .icon-button').click()"
        )
    };
    session.js(&open_menu_of("First topic"), vec![]).await;
    session
        .js(
            "[...document.querySelectorAll('.conversation-item [role=menuitem]')]
               .find((b) => b.textContent.includes('Pin') && b.offsetParent).click()",
            vec![],
        )
        .await;
    session
        .wait_until(
            "document.querySelector('.conversation-item__title')?.textContent === 'First topic'",
        )
        .await;
    // Rename it; the name survives a reload and is not replaced by an automatic title.
    session.js(&open_menu_of("First topic"), vec![]).await;
    session
        .js(
            "[...document.querySelectorAll('.conversation-item [role=menuitem]')]
               .find((b) => b.textContent.includes('Rename') && b.offsetParent).click()",
            vec![],
        )
        .await;
    // The field opens focused with the old name selected, so typing replaces it.
    session
        .wait_until("document.activeElement?.classList.contains('conversation-item__rename')")
        .await;
    session
        .wait_for(".conversation-item__rename")
        .await
        .send_keys("Renamed by me")
        .await
        .expect("type");
    session.press(&[Key::Enter]).await;
    session
        .wait_until(
            "document.querySelector('.conversation-item__title')?.textContent === 'Renamed by me'",
        )
        .await;
    session.reload_app().await;
    session
        .wait_until("document.querySelectorAll('.conversation-item__title').length === 2")
        .await;
    assert_eq!(
        session.js(titles, vec![]).await,
        json!(["Renamed by me", "Second topic"])
    );
    session.finish().await;
}

#[tokio::test]
async fn a_reply_past_the_size_limit_is_cut_with_a_stored_error() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    // 9 MiB of text against the 8 MiB bound, in 1 MiB deltas.
    fixture.enqueue(Reply::text("word ".repeat(9 * 1024 * 1024 / 5)).text_chunk_chars(1024 * 1024));
    send(&session, "Say a lot").await;
    // 9 MiB to stream and store: under a full test run this alone took up to ~15 s.
    last_status_within(&session, "error", std::time::Duration::from_secs(60)).await;
    let block = session.text_of(".status-block--error").await;
    assert!(block.contains("RESPONSE_SIZE_LIMIT"), "{block}");
    let kept = session
        .js(
            "return document.querySelector('.message--assistant .markdown').textContent.length",
            vec![],
        )
        .await;
    assert!(
        kept.as_u64().unwrap() > 1024 * 1024,
        "what arrived is kept: {kept}"
    );
    session.finish().await;
}

/// Standard base64 without padding rules (enough to look for an encoded secret).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
    }
    out
}

/// The forms a secret could take on the wire if someone merely encoded it: itself, and
/// its base64 (and base64url) at each of the three byte alignments inside a longer blob.
fn encoded_forms(secret: &str) -> Vec<String> {
    let mut forms = vec![secret.to_string()];
    for offset in 0..3 {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(secret.as_bytes());
        let encoded = base64(&bytes);
        // Skip the characters that mix in the prefix, and the last (partial) group.
        let stable = &encoded[if offset == 0 { 0 } else { 4 }..encoded.len() - 4];
        forms.push(stable.to_string());
        forms.push(stable.replace('+', "-").replace('/', "_"));
    }
    forms
}

#[tokio::test]
async fn the_key_crosses_the_wire_to_the_edge_only_sealed() {
    const KEY: &str = "sk-canary-7f3a9c1e5b2d4680-plaintext";
    let fixture = ProviderFixture::start().await;
    // CORS blocked: listing the models and the chat both go through the edge.
    fixture.set_cors(false);
    let (session, tap) = AppSession::open_through_tap(1280, 900).await;
    prepare(&session, &fixture, Some(KEY)).await;
    fixture.enqueue(Reply::text("Sealed and delivered").chunk_bytes(6));
    send(&session, "Is my key safe?").await;
    last_status(&session, "done").await;
    assert_eq!(
        messages(&session).await[1][2],
        json!("Sealed and delivered")
    );

    // The tap saw the real traffic: the model listing and the chat went through it.
    let sent = String::from_utf8_lossy(&tap.sent()).into_owned();
    assert!(
        sent.contains("POST /api/providers/models"),
        "listing via the tap"
    );
    assert!(sent.contains("POST /api/chat/relay"), "chat via the tap");
    assert!(sent.contains("\"kid\""), "the key travelled as an envelope");
    for form in encoded_forms(KEY) {
        assert!(
            !sent.contains(&form),
            "`{form}` (a form of the key) crossed the wire to the edge"
        );
    }
    // And yet the provider received exactly the user's key, from the edge.
    let chat = fixture
        .requests()
        .into_iter()
        .find(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .expect("the chat request reached the provider");
    assert_eq!(
        chat.header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
    // The blocked direct attempts log CORS errors in the console, as they should.
    session.browser.close().await;
}

#[test]
fn encoded_forms_find_a_secret_inside_longer_base64() {
    let secret = "sk-canary-7f3a9c1e5b2d4680-plaintext";
    assert_eq!(base64(b"Man"), "TWFu");
    assert_eq!(base64(b"Ma"), "TWE");
    for prefix in ["", "a", "ab", "abc", "{\"apiKey\":\""] {
        let blob = base64(format!("{prefix}{secret}\"}}").as_bytes());
        assert!(
            encoded_forms(secret).iter().any(|form| blob.contains(form)),
            "prefix {prefix:?}: {blob}"
        );
    }
}

#[tokio::test]
async fn a_provider_that_goes_silent_is_given_up_with_what_arrived_kept() {
    let fixture = ProviderFixture::start().await;
    // The edge's stream deadline, which the browser applies to direct streams as a
    // silence limit: 2 s here instead of 120.
    let stack = Stack::start_with_env(&[("HEARTH_RELAY_TIMEOUT_SECS", "2")]);
    let browser = Browser::open(&stack, 1280, 900).await;
    browser.open_app("/").await;
    let session = AppSession { browser, stack };
    prepare(&session, &fixture, None).await;
    fixture.enqueue(
        Reply::text("one two three four five six")
            .text_chunk_chars(4)
            .stall_after(2),
    );
    send(&session, "Are you there?").await;
    last_status(&session, "error").await;
    let status = session.text_of(".message--assistant .status-block").await;
    assert!(
        status.contains("RESPONSE_TIMEOUT") && status.contains("2 s"),
        "{status}"
    );
    let reply = messages(&session).await[1][2].clone();
    assert!(
        reply.as_str().unwrap().starts_with("one two"),
        "what arrived is kept: {reply}"
    );
    // Retry is offered and works once the provider answers.
    fixture.enqueue(Reply::text("Here now."));
    click_in_last(&session, "assistant", "Retry").await;
    last_status(&session, "done").await;
    assert_eq!(messages(&session).await[1][2], json!("Here now."));
    session.finish().await;
}

#[tokio::test]
async fn a_server_configured_provider_chats_through_the_edge_and_its_key_stays_there() {
    const KEY: &str = "sk-operator-5e1f0c2d9a7b4e36";
    let fixture = ProviderFixture::start().await;
    let base = fixture.base_url(Protocol::OpenAiChat);
    let tap = Tap::listen().await;
    let stack = Stack::start_with_env(&[
        ("HEARTH_ALLOWED_HOSTS", &tap.host()),
        ("DEFAULT_PROVIDER_TYPE", "openai-compatible"),
        ("DEFAULT_PROVIDER_NAME", "Team models"),
        ("DEFAULT_PROVIDER_BASE_URL", &base),
        ("DEFAULT_PROVIDER_API_KEY", KEY),
        ("DEFAULT_PROVIDER_MODELS", "team-small,team-large"),
    ]);
    let tap = tap.forward_to(stack.hearth.port());
    let mut browser = Browser::open(&stack, 1280, 900).await;
    browser.set_base(tap.url());
    browser.open_app("/").await;
    let session = AppSession { browser, stack };
    // No setup: the operator's models are offered at once, under the provider's name,
    // and the welcome says to ask rather than to add a provider.
    session
        .wait_until(
            "document.querySelector('#composer-model optgroup[label=\"Team models\"] option')?.textContent === 'team-small'",
        )
        .await;
    assert!(
        session
            .text_of(".empty-state__body")
            .await
            .contains("Ask anything below"),
        "a ready model means nothing to set up"
    );
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.empty-state .button[aria-haspopup=dialog]').length",
                vec![]
            )
            .await,
        json!(0)
    );
    fixture.enqueue(Reply::text("From the **team** server.").chunk_bytes(7));
    send(&session, "Hello team").await;
    last_status(&session, "done").await;
    session
        .wait_for(".message--assistant .markdown strong")
        .await;
    assert_eq!(
        messages(&session).await[1][2],
        json!("From the team server.")
    );

    // The edge called the provider with the operator's key and the chosen model.
    let call = fixture
        .requests()
        .into_iter()
        .find(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .expect("the edge called the provider");
    assert_eq!(
        call.header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
    assert_eq!(call.json()["model"], json!("team-small"));
    // The browser never had the key or the provider's address: not in what it sent, not
    // in what the edge tells it, not in anything it stored.
    let sent = String::from_utf8_lossy(&tap.sent()).into_owned();
    assert!(
        sent.contains("\"serverProviderId\""),
        "the chat named the server provider"
    );
    assert!(!sent.contains(KEY) && !sent.contains(&base));
    let seen = session
        .js(
            "const config = await (await fetch('/api/config')).text();
             const db = await new Promise((ok) => { const r = indexedDB.open('hearth'); r.onsuccess = () => ok(r.result); });
             const dump = [];
             for (const name of db.objectStoreNames) {
               const all = await new Promise((ok) => { const r = db.transaction(name).objectStore(name).getAll(); r.onsuccess = () => ok(r.result); });
               dump.push(JSON.stringify(all, (k, v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? '[bytes]' : v));
             }
             db.close();
             return config + JSON.stringify(localStorage) + dump.join('');",
            vec![],
        )
        .await;
    let seen = seen.as_str().unwrap();
    assert!(seen.contains("Team models"), "the dump is real: {seen}");
    assert!(!seen.contains(KEY), "the key reached the browser");
    assert!(
        !seen.contains(&base),
        "the provider's URL reached the browser"
    );
    // Settings show it as the server's: no key field, no edit, no delete.
    session.open_settings_tab("providers").await;
    session
        .wait_until("[...document.querySelectorAll('.provider-row')].some((r) => r.textContent.includes('Set up on this server'))")
        .await;
    let row_buttons = session
        .js(
            "const row = [...document.querySelectorAll('.provider-row')].find((r) => r.textContent.includes('Team models'));
             return [...row.querySelectorAll('button')].map((b) => b.textContent.trim());",
            vec![],
        )
        .await;
    assert_eq!(row_buttons, json!(["Fetch models"]));
    session.screenshot("settings-providers-server").await;
    session.finish().await;
}

/// The path in the address bar.
async fn path_of_page(session: &AppSession) -> String {
    session
        .js("return location.pathname", vec![])
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The id of the conversation whose sidebar title is `title`, from the path it opened at.
async fn wait_for_path_of_open(session: &AppSession, title: &str) -> String {
    session
        .wait_until(&format!(
            "document.querySelector('.conversation-item--current .conversation-item__title')?.textContent === {} && location.pathname.startsWith('/c/')",
            json!(title)
        ))
        .await;
    path_of_page(session).await
}

#[tokio::test]
async fn the_address_follows_the_open_conversation_through_reloads_back_and_tabs() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    assert_eq!(path_of_page(&session).await, "/");
    fixture.enqueue(Reply::text("First reply"));
    send(&session, "First question").await;
    last_status(&session, "done").await;
    // A new chat that became a conversation takes its address in place (no new entry).
    let first = wait_for_path_of_open(&session, "First question").await;
    assert!(first.len() > 3, "{first}");
    // A reload opens it again, not a new chat.
    session.reload_app().await;
    session
        .wait_until("[...document.querySelectorAll('.message')].length === 2")
        .await;
    assert_eq!(messages(&session).await[1][2], json!("First reply"));
    assert_eq!(path_of_page(&session).await, first);

    // A second conversation; then Back and Forward move between the two.
    session.click_by_script("#sidebar-new-chat").await;
    session
        .wait_until("location.pathname === '/' && !document.querySelector('.message')")
        .await;
    fixture.enqueue(Reply::text("Second reply"));
    send(&session, "Second question").await;
    last_status(&session, "done").await;
    let second = wait_for_path_of_open(&session, "Second question").await;
    assert_ne!(first, second);
    // The new chat the second conversation started as took its entry in place, so Back
    // goes straight to the first conversation, and Forward to the second again.
    session.client.back().await.expect("back");
    session
        .wait_until(&format!(
            "location.pathname === {} && [...document.querySelectorAll('.message')].at(-1)?.textContent.includes('First reply')",
            json!(first)
        ))
        .await;
    session.client.forward().await.expect("forward");
    session
        .wait_until(&format!(
            "location.pathname === {} && [...document.querySelectorAll('.message')].at(-1)?.textContent.includes('Second reply')",
            json!(second)
        ))
        .await;

    // A second tab at the first conversation's address opens it.
    let (_, _) = session.open_tab().await;
    session.open_app(&first).await;
    session
        .wait_until("[...document.querySelectorAll('.message')].at(-1)?.textContent.includes('First reply')")
        .await;
    assert_eq!(
        session
            .text_of(".conversation-item--current .conversation-item__title")
            .await,
        "First question"
    );

    // An address this browser has no conversation for says so and leaves a new chat at
    // `/`; one that cannot be an id names nothing at all.
    session.open_app("/c/0000000000000000").await;
    session.wait_until(&toast_says("not in this browser")).await;
    session
        .wait_until("location.pathname === '/' && !document.querySelector('.message')")
        .await;
    session.open_app("/c/a%20b").await;
    session.wait_for(".conversation-item").await;
    assert!(
        session
            .js("return !document.querySelector('.message')", vec![])
            .await
            .as_bool()
            .unwrap_or(false)
    );
    session.finish().await;
}

/// The sidebar's titles, top to bottom.
async fn sidebar_titles(session: &AppSession) -> serde_json::Value {
    session
        .js(
            "return [...document.querySelectorAll('.conversation-item__title')].map((t) => t.textContent)",
            vec![],
        )
        .await
}

/// Chooses `action` in the sidebar menu of the conversation titled `title`.
async fn sidebar_action(session: &AppSession, title: &str, action: &str) {
    session
        .js(
            "[...document.querySelectorAll('.conversation-item')]
               .find((i) => i.textContent.includes(arguments[0]))
               .querySelector('.menu-anchor .icon-button').click()",
            vec![json!(title)],
        )
        .await;
    session
        .js(
            "[...document.querySelectorAll('.conversation-item [role=menuitem]')]
               .find((b) => b.textContent.includes(arguments[0]) && b.offsetParent).click()",
            vec![json!(action)],
        )
        .await;
}

#[tokio::test]
async fn archived_conversations_leave_the_list_stay_reachable_and_come_back() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    for question in ["Old topic", "Kept topic"] {
        fixture.enqueue(Reply::text("Noted."));
        session.click_by_script("#sidebar-new-chat").await;
        session.wait_for(".empty-state").await;
        send(&session, question).await;
        last_status(&session, "done").await;
    }
    session
        .wait_until("document.querySelectorAll('.conversation-item__title').length === 2")
        .await;

    // Archiving a conversation takes it out of the list, with Undo.
    sidebar_action(&session, "Old topic", "Archive").await;
    session
        .wait_until(&toast_says("Conversation archived"))
        .await;
    session
        .wait_until("document.querySelectorAll('.conversation-item__title').length === 1")
        .await;
    assert_eq!(sidebar_titles(&session).await, json!(["Kept topic"]));
    session
        .js(
            "[...document.querySelectorAll('.toast')].find((t) => t.textContent.includes('Conversation archived'))
               .querySelector('.toast__action').click()",
            vec![],
        )
        .await;
    session
        .wait_until("document.querySelectorAll('.conversation-item__title').length === 2")
        .await;

    // Archiving the open conversation leaves a new chat; with every conversation
    // archived, the sidebar says so (not "none yet"), and so it stays after a reload.
    sidebar_action(&session, "Old topic", "Archive").await;
    session
        .wait_until("document.querySelectorAll('.conversation-item__title').length === 1")
        .await;
    sidebar_action(&session, "Kept topic", "Archive").await;
    session
        .wait_until(
            "!!document.querySelector('.sidebar__empty') && location.pathname === '/' && !!document.querySelector('.empty-state')",
        )
        .await;
    session.reload_app().await;
    session.wait_for(".sidebar__empty[data-all-archived]").await;
    assert_eq!(
        session.text_of(".sidebar__empty-title").await,
        "Every conversation is archived"
    );
    session.screenshot("sidebar-all-archived").await;
    // Search still finds them.
    session.press_ctrl('k').await;
    session
        .wait_for(".search-palette__input")
        .await
        .send_keys("Old topic")
        .await
        .expect("type the query");
    session
        .wait_until("[...document.querySelectorAll('.search-result__title')].some((t) => t.textContent.includes('Old topic'))")
        .await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog.dialog--search')?.open")
        .await;

    // The sidebar's Show archived opens Settings › Data, which lists them; one opens
    // with a note that it is archived, and its Unarchive brings it back to the list.
    session.click_by_script("#sidebar-show-archived").await;
    session
        .wait_until("document.getElementById('settings-tab-data')?.getAttribute('aria-selected') === 'true'")
        .await;
    session
        .wait_until("document.querySelectorAll('#data-archived-list [data-archived]').length === 2")
        .await;
    session
        .js(
            "const title = document.getElementById('data-archived-title');
             let box = title.parentElement;
             while (box && box.scrollHeight <= box.clientHeight) box = box.parentElement;
             box.scrollTop += title.getBoundingClientRect().top - box.getBoundingClientRect().top;",
            vec![],
        )
        .await;
    session.screenshot("settings-data-archived").await;
    session
        .js(
            "[...document.querySelectorAll('#data-archived-list [data-archived]')]
               .find((r) => r.textContent.includes('Old topic'))
               .querySelector('[data-archived-open]').click()",
            vec![],
        )
        .await;
    session.wait_for("#archived-note").await;
    session
        .wait_until("!document.querySelector('dialog[open]') && [...document.querySelectorAll('.message')].at(-1)?.textContent.includes('Noted.')")
        .await;
    assert!(
        session
            .text_of("#archived-note")
            .await
            .contains("This conversation is archived")
    );
    session.screenshot("chat-archived-note").await;
    session.click_by_script("#archived-note button").await;
    session
        .wait_until("!document.getElementById('archived-note')")
        .await;
    assert_eq!(sidebar_titles(&session).await, json!(["Old topic"]));

    // What stays archived is still there after a reload, and Unarchive in the list
    // brings it back too.
    session.reload_app().await;
    session.open_settings_tab("data").await;
    session
        .wait_until("document.querySelectorAll('#data-archived-list [data-archived]').length === 1")
        .await;
    session
        .click_by_script("#data-archived-list [data-archived-unarchive]")
        .await;
    session.wait_for("#data-archived-none").await;
    // Behind the dialog, the sidebar has it again.
    session
        .wait_until("document.querySelectorAll('.conversation-item__title').length === 2")
        .await;
    session.finish().await;
}
