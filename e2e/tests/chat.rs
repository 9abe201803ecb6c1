//! Chat in Chromium against the provider fixture: adding a provider, sending, streaming,
//! stopping, queueing, regenerating, editing, switching branches, errors with Retry,
//! reloading mid-stream (the reply reopens interrupted with what was saved), deleting
//! with Undo, two tabs, and the edge relay when the provider blocks CORS.

use fantoccini::key::Key;
use hearth_core::provider::Protocol;
use hearth_e2e::AppSession;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

/// The active path as `[role, status, text]` rows.
const MESSAGES: &str = "return [...document.querySelectorAll('.message')].map((m) => [
  m.classList.contains('message--user') ? 'user' : 'assistant',
  m.dataset.status,
  (m.querySelector('.message__text, .markdown')?.textContent ?? '').trim(),
]);";

/// Opens the app with one OpenAI-compatible provider pointing at `fixture`, its models
/// fetched, and the settings closed.
async fn ready(fixture: &ProviderFixture) -> AppSession {
    let session = AppSession::open(1280, 900).await;
    session.open_settings_tab("providers").await;
    session
        .wait_for("#provider-add")
        .await
        .click()
        .await
        .expect("add");
    session
        .wait_for("#provider-kind")
        .await
        .select_by_value("compatible")
        .await
        .expect("kind");
    let url = session.wait_for("#provider-base-url").await;
    url.clear().await.expect("clear url");
    url.send_keys(&fixture.base_url(Protocol::OpenAiChat))
        .await
        .expect("url");
    session
        .wait_for("#provider-name")
        .await
        .send_keys("Fixture")
        .await
        .expect("name");
    session
        .wait_for("#provider-save")
        .await
        .click()
        .await
        .expect("save");
    session
        .wait_for("[data-models]")
        .await
        .click()
        .await
        .expect("models");
    session
        .wait_until(
            "document.querySelector('[data-testid=model-count]')?.textContent === 'Models: 2'",
        )
        .await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog')?.open")
        .await;
    // Pick a model the way a user does: from the composer's model menu.
    let picker = session.wait_for("#composer-model").await;
    let value = session
        .js(
            "return [...document.querySelectorAll('#composer-model option')]
               .find((o) => o.textContent === 'fixture-small').value",
            vec![],
        )
        .await;
    picker
        .select_by_value(value.as_str().expect("fixture-small is offered"))
        .await
        .expect("choose the model");
    session
        .wait_until("document.getElementById('composer-model').value.endsWith('fixture-small')")
        .await;
    session
}

async fn send(session: &AppSession, text: &str) {
    let input = session.wait_for("#composer-input").await;
    input.send_keys(text).await.expect("type");
    session.press(&[Key::Enter]).await;
}

async fn messages(session: &AppSession) -> Value {
    session.js(MESSAGES, vec![]).await
}

/// Waits until the last message has `status` (`done`, `streaming`, `error`, …).
async fn last_status(session: &AppSession, status: &str) {
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('.message')].at(-1)?.dataset.status === '{status}'"
        ))
        .await;
}

/// Clicks the button labelled `label` in the last message of `role`.
async fn click_in_last(session: &AppSession, role: &str, label: &str) {
    let clicked = session
        .js(
            "const m = [...document.querySelectorAll('.message--' + arguments[0])].at(-1);
             const b = [...m.querySelectorAll('button')].find((b) =>
               b.getAttribute('aria-label') === arguments[1] || b.textContent.trim() === arguments[1]);
             if (!b) return false; b.click(); return true;",
            vec![json!(role), json!(label)],
        )
        .await;
    assert_eq!(
        clicked,
        json!(true),
        "no `{label}` button on the last {role} message"
    );
}

fn user_texts(fixture: &ProviderFixture) -> Vec<String> {
    fixture
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .map(|r| {
            let body = r.json();
            let messages = body["messages"].as_array().cloned().unwrap_or_default();
            messages
                .iter()
                .rev()
                .find(|m| m["role"] == "user")
                .map(|m| match &m["content"] {
                    Value::String(text) => text.clone(),
                    parts => parts[0]["text"].as_str().unwrap_or_default().to_string(),
                })
                .unwrap_or_default()
        })
        .collect()
}

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
    session
        .wait_for(".conversation-item__open")
        .await
        .click()
        .await
        .expect("open");
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
    let errors: Vec<String> = session
        .console_errors()
        .await
        .into_iter()
        .map(|e| e.message)
        .filter(|m| !m.contains("429"))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
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
    session
        .wait_for(".conversation-item__open")
        .await
        .click()
        .await
        .expect("open");
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
    session
        .wait_for(".toast__action")
        .await
        .click()
        .await
        .expect("undo");
    session
        .wait_until("[...document.querySelectorAll('.message')].length === 4")
        .await;
    assert_eq!(messages(&session).await[3][2], json!("Reply two"));
    // The whole conversation, from the sidebar menu.
    session
        .wait_for(".conversation-item .menu-anchor .icon-button")
        .await
        .click()
        .await
        .expect("menu");
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
    session
        .wait_for(".toast__action")
        .await
        .click()
        .await
        .expect("undo");
    session
        .wait_for(".conversation-item__open")
        .await
        .click()
        .await
        .expect("open");
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
    let first = session.client.window().await.expect("window");
    let second = session.client.new_window(true).await.expect("new tab");
    session
        .client
        .switch_to_window(second.handle)
        .await
        .expect("switch");
    session.open_app("/").await;
    session
        .wait_for(".conversation-item__open")
        .await
        .click()
        .await
        .expect("open");
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
