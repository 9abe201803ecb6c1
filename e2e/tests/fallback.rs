//! A conversation's model fallback policy in the real build, in Chromium, with two
//! models of the provider fixture (both on loopback: the same side of the network).
//! Resilient: a transient failure (503) before anything arrived hands the reply to the
//! next model, whose name and the reason the reply's details give; a refusal (401)
//! never fails over. Adaptive: a model that failed a moment ago is tried after the
//! others. Pinned (the default): only the chosen model. Crossing from a local model to
//! a remote one is refused by the rule itself (`core::chat::fallback`), which a test
//! here cannot reach (every fixture is local).

use hearth_e2e::AppSession;
use hearth_e2e::chat::{self, chat_bodies, last_status};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::Value;

/// Sets the open conversation's fallback `policy` (with `fixture-large` as its
/// alternative) in its dialog, and saves.
async fn set_policy(session: &AppSession, policy: &str) {
    session
        .js(
            "document.querySelector('.conversation-item .menu-anchor > button').click()",
            vec![],
        )
        .await;
    chat::choose_menu_item(session, "Conversation settings…").await;
    session.wait_for("#placement-fallback-policy").await;
    session
        .set_value("#placement-fallback-policy", policy)
        .await;
    if policy != "pinned" {
        chat::choose_option(session, "placement-fallback-0", "fixture-large").await;
        session
            .screenshot(&format!("conversation-fallback-{policy}"))
            .await;
    }
    session.click("#placement-save").await;
    session
        .wait_until("!document.getElementById('placement-form')")
        .await;
}

/// The models the chat requests asked, in order.
fn models_asked(fixture: &ProviderFixture) -> Vec<String> {
    chat_bodies(fixture)
        .iter()
        .map(|b| b["model"].as_str().unwrap_or_default().to_string())
        .collect()
}

async fn details(session: &AppSession) -> Vec<Value> {
    chat::last_details(session, None).await
}

fn row<'a>(rows: &'a [Value], name: &str) -> Option<&'a str> {
    rows.iter()
        .find(|r| r[0] == name)
        .and_then(|r| r[1].as_str())
}

#[tokio::test]
async fn a_transient_failure_hands_the_reply_to_the_next_model_and_a_refusal_never_does() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    fixture.enqueue(Reply::text("Hello."));
    chat::ask(&session, "Hi").await;

    // Pinned (the default): the failure is the reply's.
    fixture.enqueue(Reply::text("").status(503, "overloaded"));
    chat::send(&session, "First try").await;
    last_status(&session, "error").await;
    assert_eq!(models_asked(&fixture), ["fixture-small", "fixture-small"]);

    // Resilient: the next model answers, and the details say so.
    set_policy(&session, "resilient").await;
    fixture.enqueue(Reply::text("").status(503, "overloaded"));
    fixture.enqueue(Reply::text("The large model answers."));
    chat::ask(&session, "Second try").await;
    assert_eq!(
        models_asked(&fixture)[2..],
        ["fixture-small", "fixture-large"]
    );
    let rows = details(&session).await;
    assert_eq!(row(&rows, "Model"), Some("fixture-large"), "{rows:?}");
    let fell = row(&rows, "Fallback").unwrap_or_default().to_string();
    assert!(
        fell.starts_with("Answered instead of fixture-small: "),
        "{fell}"
    );
    assert!(fell.contains("503"), "{fell}");
    // Stored so: the record names the model that answered.
    let stored = chat::stored_records(&session, "messages").await;
    let answered = stored
        .iter()
        .find(|m| m["content"] == "The large model answers.")
        .expect("the reply");
    assert_eq!(answered["model"], "fixture-large");
    assert!(
        answered["fallback"]
            .as_str()
            .unwrap()
            .contains("fixture-small")
    );

    // A refusal is the user's to fix: no other model is asked.
    fixture.enqueue(Reply::text("").status(401, "bad key"));
    chat::send(&session, "Third try").await;
    last_status(&session, "error").await;
    assert_eq!(models_asked(&fixture).len(), 5);
    // The failed requests are the browser's to log; nothing else is.
    session
        .assert_no_console_errors_but(|e| e.contains("401") || e.contains("503"))
        .await;
    session.finish().await;
}

#[tokio::test]
async fn adaptive_starts_with_a_model_that_is_answering() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    fixture.enqueue(Reply::text("Hello."));
    chat::ask(&session, "Hi").await;
    set_policy(&session, "adaptive").await;

    // The chosen model fails transiently: the alternative answers.
    fixture.enqueue(Reply::text("").status(429, "slow down"));
    fixture.enqueue(Reply::text("Large, after a 429."));
    chat::ask(&session, "One").await;
    // It failed a moment ago: the next reply starts on the alternative.
    fixture.enqueue(Reply::text("Large from the start."));
    chat::ask(&session, "Two").await;
    assert_eq!(
        models_asked(&fixture),
        [
            "fixture-small",
            "fixture-small",
            "fixture-large",
            "fixture-large"
        ]
    );
    let rows = details(&session).await;
    assert_eq!(
        row(&rows, "Fallback"),
        Some("Answered instead of fixture-small: it had failed a moment before")
    );
    session
        .assert_no_console_errors_but(|e| e.contains("429"))
        .await;
    session.finish().await;
}
