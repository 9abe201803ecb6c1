//! Comparing models in the real build, in Chromium, with the provider fixture's models
//! answering at once (each its own scripted reply, whatever order the requests arrive
//! in). One message goes to two models side by side, as branches of one turn: each
//! model reads the question alone, never the other's answer; the user picks the answer
//! the conversation goes on from, and the next request carries that one only. A merge
//! is a new reply by the composer's model that reads both answers as data. One answer
//! of three can be stopped while the others finish, and everything is where it was
//! after a reload, at phone width; an edited question is compared again.

use fantoccini::key::Key;
use hearth_e2e::AppSession;
use hearth_e2e::chat::{self, chat_bodies, message_text, stored_records, system_of};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

/// Ticks `models` in the composer's "Compare models" dialog, and closes it.
async fn compare_with(session: &AppSession, models: &[&str]) {
    session.click("#composer-compare").await;
    for model in models {
        let input = format!(".compare-picker input[data-model='{model}']");
        session.wait_for(&input).await;
        session.click_by_script(&input).await;
        session
            .wait_until(&format!("document.querySelector(\"{input}\").checked"))
            .await;
    }
    session.screenshot("compare-picker").await;
    session
        .click_by_script(".compare-picker .button--primary")
        .await;
    session
        .wait_until("!document.querySelector('.compare-picker')")
        .await;
}

/// The comparison's columns: `[model, status, chosen, text]`.
async fn columns(session: &AppSession) -> Vec<Value> {
    let found = session
        .js(
            "const row = [...document.querySelectorAll('.comparison')].at(-1);
             if (!row) return [];
             return [...row.querySelectorAll('.comparison__column')].map((c) => [
               c.querySelector('.comparison__model').textContent,
               c.querySelector('.message').dataset.status,
               c.classList.contains('comparison__column--chosen'),
               (c.querySelector('.markdown')?.textContent ?? '').trim(),
             ]);",
            vec![],
        )
        .await;
    found.as_array().cloned().unwrap_or_default()
}

/// Waits until the last comparison's columns have `statuses` (in order); on a timeout,
/// says what they had.
async fn columns_are(session: &AppSession, statuses: &[&str]) {
    let started = std::time::Instant::now();
    loop {
        let shown = columns(session).await;
        let got: Vec<&str> = shown.iter().filter_map(|c| c[1].as_str()).collect();
        if got == statuses {
            return;
        }
        if started.elapsed() > hearth_e2e::browser::WAIT {
            // Which rows hold which answers, by id.
            let rows = session
                .js(
                    "return [...document.querySelectorAll('.message-row')].map((r) =>
                       [r.dataset.row, [...r.querySelectorAll('[data-column]')].map((c) => c.dataset.column)])",
                    vec![],
                )
                .await;
            panic!("columns {shown:?}, not {statuses:?}; rows {rows}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Clicks the button whose text is `label` in the column of `model`.
async fn click_in_column(session: &AppSession, model: &str, label: &str) {
    let clicked = session
        .js(
            "const column = [...document.querySelectorAll('.comparison__column')]
               .findLast((c) => c.querySelector('.comparison__model').textContent === arguments[0]);
             const button = [...column.querySelectorAll('button')].find((b) =>
               b.textContent.trim() === arguments[1] || b.getAttribute('aria-label') === arguments[1]);
             if (!button) return false; button.click(); return true;",
            vec![json!(model), json!(label)],
        )
        .await;
    assert_eq!(clicked, json!(true), "no `{label}` in {model}'s column");
}

/// The texts of a chat request's messages, by role (`user`, `assistant`).
fn texts(body: &Value, role: &str) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == role)
        .map(message_text)
        .collect()
}

/// The stored replies of the comparison, oldest first.
async fn stored_replies(session: &AppSession) -> Vec<Value> {
    let mut replies: Vec<Value> = stored_records(session, "messages")
        .await
        .into_iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    replies.sort_by(|a, b| {
        a["createdAt"]
            .as_f64()
            .partial_cmp(&b["createdAt"].as_f64())
            .unwrap()
    });
    replies
}

#[tokio::test]
async fn two_models_answer_side_by_side_the_chosen_one_goes_on_and_a_merge_reads_both() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    compare_with(&session, &["fixture-large"]).await;
    assert_eq!(
        session
            .js(
                "return document.getElementById('composer-compare').getAttribute('aria-label')",
                vec![]
            )
            .await,
        "Comparing 2 models"
    );
    // The large model answers first, though asked second: each gets its own.
    fixture.enqueue(Reply::text("Large says Paris, France.").for_model("fixture-large"));
    fixture.enqueue(
        Reply::text("Small says Paris.")
            .for_model("fixture-small")
            .delay_ms(40),
    );
    chat::send(&session, "Capital of France?").await;
    columns_are(&session, &["done", "done"]).await;
    let shown = columns(&session).await;
    assert_eq!(
        shown,
        [
            json!(["fixture-small", "done", true, "Small says Paris."]),
            json!(["fixture-large", "done", false, "Large says Paris, France."]),
        ]
    );
    session.screenshot("compare-two-models").await;

    // Each model was asked the question alone.
    let bodies = chat_bodies(&fixture);
    assert_eq!(bodies.len(), 2);
    let mut asked: Vec<&str> = bodies
        .iter()
        .map(|b| b["model"].as_str().unwrap())
        .collect();
    asked.sort_unstable();
    assert_eq!(asked, ["fixture-large", "fixture-small"]);
    for body in &bodies {
        assert_eq!(texts(body, "user"), ["Capital of France?"]);
        assert!(texts(body, "assistant").is_empty(), "{body}");
    }
    // Stored as two branches of one turn, marked as one comparison (the first's id).
    let replies = stored_replies(&session).await;
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[0]["parentId"], replies[1]["parentId"]);
    assert_eq!(replies[0]["compare"], replies[0]["id"]);
    assert_eq!(replies[1]["compare"], replies[0]["id"]);

    // The large model's answer is chosen: the conversation goes on from it.
    click_in_column(&session, "fixture-large", "Continue with this").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.comparison__column--chosen .comparison__model')]
               .at(-1)?.textContent === 'fixture-large'",
        )
        .await;
    let question = stored_records(&session, "messages")
        .await
        .into_iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert_eq!(question["activeChildId"], replies[1]["id"]);

    // A merge: the composer's model reads both answers as data, after the question.
    fixture.enqueue(Reply::text("Paris, the capital of France."));
    session.click_by_script(".comparison__merge").await;
    session
        .wait_until(
            "(() => { const m = [...document.querySelectorAll('.message--assistant')].at(-1);
               return m?.dataset.status === 'done' && !m.closest('.comparison') &&
                 m.querySelector('.message__merged'); })()",
        )
        .await;
    let merge = chat_bodies(&fixture).pop().unwrap();
    assert_eq!(merge["model"], "fixture-small");
    assert_eq!(texts(&merge, "user"), ["Capital of France?"]);
    assert!(texts(&merge, "assistant").is_empty());
    let system = system_of(&merge);
    assert!(system.contains("Several assistants answered"), "{system}");
    let small = system.find("Small says Paris.").expect("the first answer");
    let large = system
        .find("Large says Paris, France.")
        .expect("the second answer");
    assert!(small < large, "numbered in their order: {system}");
    assert!(system.contains("Answer 2 (fixture-large)"), "{system}");
    assert!(
        session
            .text_of(".message__merged")
            .await
            .contains("Merged from 2 answers")
    );
    let merged = stored_replies(&session).await.pop().unwrap();
    assert_eq!(
        merged["mergedFrom"],
        json!([replies[0]["id"], replies[1]["id"]])
    );
    assert!(merged.get("compare").is_none());

    // Back to the answers, then no more comparing: the next message goes to one model,
    // with the chosen answer (the first, shown again) as the only earlier reply.
    session.click_by_script(".message__merged button").await;
    columns_are(&session, &["done", "done"]).await;
    session.click("#composer-compare").await;
    session.wait_for(".compare-picker .button--secondary").await;
    session
        .click_by_script(".compare-picker .button--secondary")
        .await;
    session
        .click_by_script(".compare-picker .button--primary")
        .await;
    session
        .wait_until(
            "document.getElementById('composer-compare').getAttribute('aria-pressed') === 'false'",
        )
        .await;
    fixture.enqueue(Reply::text("Berlin."));
    chat::ask(&session, "And Germany?").await;
    let next = chat_bodies(&fixture).pop().unwrap();
    assert_eq!(next["model"], "fixture-small");
    assert_eq!(texts(&next, "assistant"), ["Small says Paris."]);
    assert_eq!(chat_bodies(&fixture).len(), 4);
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn one_answer_of_three_is_stopped_while_the_others_finish_and_all_stay_after_a_reload() {
    let fixture = ProviderFixture::start().await;
    fixture.set_models(vec![
        "fixture-small".into(),
        "fixture-large".into(),
        "fixture-third".into(),
    ]);
    let session = chat::ready(&fixture).await;
    // Keyboard: the button opens its dialog on Enter, focus lands on Done, Escape
    // closes it and gives focus back.
    session
        .js(
            "document.getElementById('composer-compare').focus()",
            vec![],
        )
        .await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("document.activeElement?.closest('.compare-picker') && document.activeElement.textContent.trim() === 'Done'")
        .await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('.compare-picker') && document.activeElement?.id === 'composer-compare'")
        .await;
    // Closed, its `<dialog>` leaves the page: a closed one would be the first `<dialog>`
    // the next look for the settings' finds.
    session
        .wait_until("!document.querySelector('dialog.dialog--narrow')")
        .await;
    compare_with(&session, &["fixture-large", "fixture-third"]).await;
    fixture.enqueue(
        Reply::text("one two three four five six")
            .text_chunk_chars(4)
            .stall_after(2)
            .for_model("fixture-large"),
    );
    fixture.enqueue(
        Reply::text("Third answer, slowly.")
            .text_chunk_chars(4)
            .stall_after(1)
            .for_model("fixture-third"),
    );
    fixture.enqueue(Reply::text("Small answer.").for_model("fixture-small"));
    chat::send(&session, "Tell me three things").await;
    columns_are(&session, &["done", "streaming", "streaming"]).await;
    session
        .wait_until(
            "[...document.querySelectorAll('.comparison__column')][1]
               ?.querySelector('.markdown')?.textContent.includes('one two')",
        )
        .await;
    // One column is stopped alone; the others go on.
    click_in_column(&session, "fixture-large", "Stop this answer").await;
    columns_are(&session, &["done", "aborted", "streaming"]).await;
    session
        .wait_until("document.querySelectorAll('.comparison__stop').length === 1")
        .await;
    // The third goes on and finishes.
    fixture.release();
    columns_are(&session, &["done", "aborted", "done"]).await;
    let shown = columns(&session).await;
    assert_eq!(shown[2][3], "Third answer, slowly.");
    assert_eq!(shown[1][3], "one two");
    // Nothing is still being written: the composer sends again.
    session
        .wait_until("!document.querySelector('.composer__stop')")
        .await;

    // After a reload at phone width, in the dark theme: the same three answers, the
    // stopped one with Continue, the first still chosen.
    session.resize(390, 844).await;
    chat::open_latest_on_phone(&session, "dark").await;
    for r in stored_replies(&session).await {
        eprintln!(
            "DEBUG {} {} {} {}",
            r["model"], r["createdAt"], r["id"], r["parentId"]
        );
    }
    columns_are(&session, &["done", "aborted", "done"]).await;
    let shown = columns(&session).await;
    assert_eq!(shown[0][2], true);
    assert_eq!(shown[1][3], "one two");
    let continues = session
        .js(
            "return [...document.querySelectorAll('.comparison__column')][1]
               .querySelector('.status-block button')?.textContent.trim()",
            vec![],
        )
        .await;
    assert_eq!(continues, "Continue");
    // One column at a time on a phone: the row scrolls sideways, the page does not.
    let widths = session
        .js(
            "const row = document.querySelector('.comparison__columns');
             const column = row.querySelector('.comparison__column');
             return [row.scrollWidth > row.clientWidth,
                     column.getBoundingClientRect().width <= row.clientWidth,
                     document.documentElement.scrollWidth <= window.innerWidth];",
            vec![],
        )
        .await;
    assert_eq!(widths, json!([true, true, true]));
    session.screenshot("compare-phone-dark").await;

    // Comparing is this tab's choice until changed: gone with the reload. On again, an
    // edited question goes to both models too, as a new branch.
    compare_with(&session, &["fixture-large"]).await;
    fixture.enqueue(Reply::text("Small, edited.").for_model("fixture-small"));
    fixture.enqueue(Reply::text("Large, edited.").for_model("fixture-large"));
    chat::click_in_last(&session, "user", "Edit").await;
    let editor = session.wait_for(".message__edit-input").await;
    editor.clear().await.expect("clear");
    editor.send_keys("Tell me two things").await.expect("type");
    session.press(&[Key::Enter]).await;
    columns_are(&session, &["done", "done"]).await;
    let shown = columns(&session).await;
    assert_eq!(shown[0][3], "Small, edited.");
    assert_eq!(shown[1][3], "Large, edited.");
    let asked = chat_bodies(&fixture);
    assert_eq!(asked.len(), 5);
    for body in &asked[3..] {
        assert_eq!(texts(body, "user"), ["Tell me two things"]);
    }
    session.assert_no_console_errors().await;
    session.finish().await;
}
