//! The moments after the page opens, in Chromium against the real build: a message sent
//! before the models on offer are read (the providers and preferences are read by
//! lazily loaded chunks, and the operator's providers come from the edge's
//! `/api/config`: both slowed down here) waits for them and is sent, never refused as if
//! no provider were set up; one sent when none is set up is still told so.

use hearth_e2e::AppSession;
use hearth_e2e::chat::{self, chat_bodies};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::json;

/// Delays, by `ms`, the page's `/api/config` and the chunks that read the stored
/// providers and preferences (`split_stored_*.wasm`), from the next document on.
fn slow_start(ms: u64) -> String {
    format!(
        "const fetched = window.fetch.bind(window);
         window.fetch = (input, init) => {{
           const url = String(input && input.url ? input.url : input);
           if (!url.includes('/api/config') && !url.includes('split_stored_')) return fetched(input, init);
           return new Promise((done) => setTimeout(done, {ms})).then(() => fetched(input, init));
         }};"
    )
}

#[tokio::test]
async fn a_message_sent_before_the_models_are_read_waits_for_them() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    session
        .cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": slow_start(1500) }),
        )
        .await;
    session.reload_app().await;
    fixture.enqueue(Reply::text("Answered once the models were read."));
    let before = chat_bodies(&fixture).len();
    // At once: neither the providers nor the preferences are read yet.
    chat::send(&session, "Sent the moment the page opened").await;
    let early = session
        .js(
            "return [...document.querySelectorAll('.toast')].map((t) => t.textContent)",
            vec![],
        )
        .await;
    assert!(
        !early.to_string().contains("Add a model provider"),
        "refused while the models were being read: {early}"
    );
    session
        .wait_until(
            "(() => { const m = [...document.querySelectorAll('.message')]; \
             return m.at(-1)?.dataset.status === 'done' && \
               m.at(-2)?.textContent.includes('Sent the moment the page opened'); })()",
        )
        .await;
    let bodies = chat_bodies(&fixture);
    assert_eq!(bodies.len(), before + 1, "sent once");
    assert_eq!(bodies.last().unwrap()["model"], "fixture-small");
    let toasts = session
        .js(
            "return [...document.querySelectorAll('.toast')].map((t) => t.textContent)",
            vec![],
        )
        .await;
    assert!(
        !toasts.to_string().contains("Add a model provider"),
        "{toasts}"
    );
    session.finish().await;
}

#[tokio::test]
async fn a_message_sent_with_no_provider_at_all_is_still_refused_and_kept() {
    let session = AppSession::open(1280, 900).await;
    session.wait_for("#composer-input").await;
    chat::send(&session, "Nobody to answer").await;
    session
        .wait_for_toast("Add a model provider in Settings before sending.")
        .await;
    assert_eq!(
        session
            .js(
                "return document.getElementById('composer-input').value",
                vec![]
            )
            .await,
        json!("Nobody to answer"),
        "the message is kept"
    );
    session.finish().await;
}
