//! Settings › Models and › System in Chromium against the provider fixture: per-model
//! limits with their inline errors, stored and used by the next run (a window too small
//! refuses the message before any request); the system prompt reaching the provider and
//! its length limit; the title model naming a conversation; the compression model folding
//! older turns into a summary the next run sends; the default model of a new chat.
//! Everything survives a reload.

use fantoccini::key::Key;
use hearth_e2e::AppSession;
use hearth_e2e::chat::{last_status, messages, ready, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Recorded, Reply};
use serde_json::{Value, json};

/// The facts line of `model`'s row in Settings › Models.
async fn facts_of(session: &AppSession, model: &str) -> String {
    session
        .js(
            "return document.querySelector(`.model-row[data-model=\"${arguments[0]}\"] [data-testid=model-facts]`)?.textContent ?? ''",
            vec![json!(model)],
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn chat_requests(fixture: &ProviderFixture) -> Vec<Recorded> {
    fixture
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .collect()
}

#[tokio::test]
async fn model_limits_are_checked_stored_and_used_by_the_next_run() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    session.open_settings_tab("models").await;
    session
        .wait_for(".model-row[data-model=fixture-small]")
        .await;
    // The OpenAI-style listing says nothing about limits: unknown, never zero.
    let facts = facts_of(&session, "fixture-small").await;
    assert!(facts.contains("unknown context"), "{facts}");
    session
        .click_by_script("button[aria-label='Edit fixture-small']")
        .await;

    // Not a number: the error is under the field, which is marked invalid.
    session.fill("#model-fixture-small-context", "lots").await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("document.getElementById('model-fixture-small-context-error').textContent.includes('not a whole number')")
        .await;
    assert_eq!(
        session
            .js("return document.getElementById('model-fixture-small-context').getAttribute('aria-invalid')", vec![])
            .await,
        json!("true")
    );
    // The output reservation must leave room in the window.
    session.fill("#model-fixture-small-context", "1k").await;
    session.fill("#model-fixture-small-output", "2,000").await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("document.getElementById('model-fixture-small-output-error').textContent.includes('must be smaller')")
        .await;
    // Nothing was stored by the refused saves.
    assert!(
        facts_of(&session, "fixture-small")
            .await
            .contains("unknown context")
    );

    session.fill("#model-fixture-small-output", "200").await;
    session
        .wait_for("#model-fixture-small-flag-vision")
        .await
        .select_by_value("yes")
        .await
        .expect("vision");
    session
        .click_by_script(".model-form button[type=submit]")
        .await;
    session
        .wait_until("!document.getElementById('model-fixture-small-context')")
        .await;
    let facts = facts_of(&session, "fixture-small").await;
    assert_eq!(facts, "1K context · 200 output · Vision");
    session.screenshot("settings-models").await;

    // Stored: after a reload the row still says so.
    session.close_settings().await;
    session.reload_app().await;
    session.open_settings_tab("models").await;
    session
        .wait_until("document.querySelector('.model-row[data-model=fixture-small]')?.textContent.includes('1K context')")
        .await;
    assert!(
        session
            .text_of(".model-row[data-model=fixture-small] .model-row__provider")
            .await
            .contains("edited")
    );
    session.close_settings().await;

    // Used by the run: 1,000 tokens minus 200 reserved cannot hold ~1,250 tokens, so the
    // message is refused with a recoverable error and no request is made.
    let long = "word ".repeat(1_000);
    session
        .js(
            "const input = document.getElementById('composer-input');
             input.value = arguments[0];
             input.dispatchEvent(new Event('input', { bubbles: true }));
             input.focus();",
            vec![json!(long)],
        )
        .await;
    session.press(&[Key::Enter]).await;
    last_status(&session, "error").await;
    let status = session.text_of(".message--assistant .status-block").await;
    assert!(
        status.contains("CONTEXT_BUDGET_EXCEEDED") || status.to_lowercase().contains("context"),
        "{status}"
    );
    assert!(chat_requests(&fixture).is_empty(), "no request was made");

    // Back to the provider's values: the same message now goes out.
    session.open_settings_tab("models").await;
    session
        .click_by_script("button[aria-label='Edit fixture-small']")
        .await;
    let reset = session
        .js(
            "const b = [...document.querySelectorAll('.model-form button')].find((b) => b.textContent.includes(\"provider's values\")); b.click(); return !!b;",
            vec![],
        )
        .await;
    assert_eq!(reset, json!(true));
    session
        .wait_until("document.querySelector('.model-row[data-model=fixture-small]')?.textContent.includes('unknown context')")
        .await;
    session.close_settings().await;
    fixture.enqueue(Reply::text("Fits now."));
    session
        .js(
            "document.querySelector('.message--assistant .status-block button')?.click()",
            vec![],
        )
        .await;
    session
        .wait_until(
            "document.querySelector('.message--assistant')?.textContent.includes('Fits now.')",
        )
        .await;
    assert_eq!(chat_requests(&fixture).len(), 1);
    session.finish().await;
}

#[tokio::test]
async fn the_system_prompt_title_model_and_default_model_shape_new_chats() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;

    // The system prompt: too long is refused with a specific message and not stored.
    session.open_settings_tab("system").await;
    session
        .js(
            "const t = document.getElementById('settings-system-prompt');
             t.value = 'x'.repeat(32001);
             t.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![],
        )
        .await;
    session
        .wait_until(
            "document.getElementById('settings-system-prompt-count').textContent.includes('32001')",
        )
        .await;
    session.click("#settings-system-save").await;
    session
        .wait_until(
            "document.getElementById('settings-system-prompt-error').textContent.includes('32000')",
        )
        .await;
    session
        .fill("#settings-system-prompt", "Answer like a pirate.")
        .await;
    session.click("#settings-system-save").await;
    session
        .wait_until("document.getElementById('settings-system-save').disabled")
        .await;

    // Title model and default model.
    session.open_settings_tab("models").await;
    hearth_e2e::chat::choose_option(&session, "settings-title-model", "fixture-small").await;
    hearth_e2e::chat::choose_option(&session, "settings-default-model", "fixture-large").await;
    session.close_settings().await;

    fixture.enqueue(Reply::text("Arr, sort it with `sort()`.").chunk_bytes(5));
    fixture.enqueue(Reply::text("Title: \"Sorting in Rust, pirate style.\""));
    send(&session, "How do I sort a Vec?").await;
    last_status(&session, "done").await;
    session
        .wait_until("document.querySelector('.conversation-item__title')?.textContent === 'Sorting in Rust, pirate style'")
        .await;

    let requests = chat_requests(&fixture);
    assert_eq!(requests.len(), 2, "the reply and the title");
    let chat = requests[0].json();
    assert_eq!(
        chat["messages"][0],
        json!({"role": "system", "content": "Answer like a pirate."})
    );
    assert_eq!(
        chat["model"],
        json!("fixture-small"),
        "the picked model, not the default"
    );
    let title = requests[1].json();
    assert_eq!(title["model"], json!("fixture-small"));
    assert_eq!(title["max_tokens"], json!(64));
    let asked = title["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        asked.contains("How do I sort a Vec?") && asked.contains("sort()"),
        "{asked}"
    );
    assert!(
        !asked.contains("pirate."),
        "the title request has its own instruction: {asked}"
    );
    let reply = messages(&session).await[1][2].clone();
    assert!(
        reply.as_str().unwrap().starts_with("Arr, sort it with"),
        "{reply}"
    );

    // A new chat starts on the default model.
    session.click(".sidebar__new").await;
    session
        .wait_until("document.getElementById('composer-model').value.endsWith('fixture-large')")
        .await;

    // Everything survives a reload.
    session.reload_app().await;
    session.open_settings_tab("system").await;
    session
        .wait_until(
            "document.getElementById('settings-system-prompt').value === 'Answer like a pirate.'",
        )
        .await;
    session.click("#settings-tab-models").await;
    session
        .wait_until(
            "document.getElementById('settings-title-model')?.value.endsWith('fixture-small')",
        )
        .await;
    let default: Value = session
        .js(
            "return document.getElementById('settings-default-model').value",
            vec![],
        )
        .await;
    assert!(
        default.as_str().unwrap().ends_with("fixture-large"),
        "{default}"
    );
    session.finish().await;
}

/// The stored compression of the only conversation, read from IndexedDB.
const STORED_COMPRESSION: &str = "
  const db = await new Promise((ok, no) => {
    const r = indexedDB.open('hearth');
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
  const all = await new Promise((ok, no) => {
    const r = db.transaction('conversations').objectStore('conversations').getAll();
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
  db.close();
  return all[0]?.compression ?? null;";

/// The `role: text` lines of an OpenAI-style request body.
fn transcript(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{}: {}",
                m["role"].as_str().unwrap_or_default(),
                m["content"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

#[tokio::test]
async fn a_compression_model_folds_older_turns_into_a_summary_the_next_run_sends() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    session.open_settings_tab("models").await;
    hearth_e2e::chat::choose_option(&session, "settings-compression-model", "fixture-small").await;
    session.close_settings().await;

    for n in 1..=13 {
        fixture.enqueue(Reply::text(format!("Answer {n}.")));
        if n == 13 {
            // Asked for once the thirteenth reply is in.
            fixture.enqueue(Reply::text("Summary: The user asked questions 1 to 9."));
        }
        send(&session, &format!("Question {n}")).await;
        // The list is virtualised: look at its last row, not at how many rows exist.
        session
            .wait_until(&format!(
                "[...document.querySelectorAll('.message')].at(-1)?.textContent.includes('Answer {n}.')"
            ))
            .await;
        last_status(&session, "done").await;
    }
    // The summary covers turns 1 to 9 and is stored on the conversation.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let stored = loop {
        let stored = session.js(STORED_COMPRESSION, vec![]).await;
        if !stored.is_null() {
            break stored;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no summary was stored"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(stored["summary"], json!("The user asked questions 1 to 9."));
    let requests = chat_requests(&fixture);
    assert_eq!(requests.len(), 14, "13 replies and one summary");
    let asked = transcript(&requests[13].json()).join("\n");
    assert!(
        asked.contains("User: Question 1\n") && asked.contains("Assistant: Answer 9."),
        "{asked}"
    );
    assert!(
        !asked.contains("Question 10"),
        "the newest four turns stay whole: {asked}"
    );

    // The next run sends the summary instead of turns 1 to 9, and turns 10 on whole.
    fixture.enqueue(Reply::text("Answer 14."));
    send(&session, "Question 14").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message')].at(-1)?.textContent.includes('Answer 14.')",
        )
        .await;
    last_status(&session, "done").await;
    let next = transcript(&chat_requests(&fixture)[14].json());
    assert_eq!(
        next[0],
        "system: Summary of the earlier conversation:\nThe user asked questions 1 to 9."
    );
    let users: Vec<&String> = next.iter().filter(|l| l.starts_with("user: ")).collect();
    assert_eq!(
        users,
        [
            "user: Question 10",
            "user: Question 11",
            "user: Question 12",
            "user: Question 13",
            "user: Question 14"
        ]
    );
    // Nothing stored was changed: all 28 messages are still there, first to last.
    let stored = session
        .js(
            "const db = await new Promise((ok) => { const r = indexedDB.open('hearth'); r.onsuccess = () => ok(r.result); });
             const all = await new Promise((ok) => { const r = db.transaction('messages').objectStore('messages').getAll(); r.onsuccess = () => ok(r.result); });
             db.close();
             return all.map((m) => m.content).sort();",
            vec![],
        )
        .await;
    let stored = stored.as_array().unwrap();
    assert_eq!(stored.len(), 28);
    assert!(stored.contains(&json!("Question 1")) && stored.contains(&json!("Answer 1.")));
    session.finish().await;
}
