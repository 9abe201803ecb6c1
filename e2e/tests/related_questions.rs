//! Related questions in the real build, in Chromium: with a related-questions model
//! chosen in Settings › Models, each answer is followed by a task request for a few
//! follow-ups (after the reply, never holding it up), shown under the last answer as
//! plain text (markup in them stays text), kept across a reload, and sent as the next
//! question with one click; only the last answer shows its list. Without a model chosen
//! no such request is made (the title test in `settings_models.rs` counts the requests).

use hearth_e2e::chat::{self, last_status};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

/// The related questions shown, in order.
async fn shown(session: &hearth_e2e::AppSession) -> Value {
    session
        .js(
            "return [...document.querySelectorAll('.related-questions__item')].map((b) => b.textContent)",
            vec![],
        )
        .await
}

#[tokio::test]
async fn follow_ups_are_suggested_under_the_last_answer_and_sent_with_one_click() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    session.open_settings_tab("models").await;
    chat::choose_option(&session, "settings-related-model", "fixture-small").await;
    session.close_settings().await;

    fixture.enqueue(Reply::text("Rust is a systems programming language."));
    fixture.enqueue(Reply::text(
        "1. How do I install Rust?\n2) **Is Rust fast?**\n- <img src=x onerror=alert(1)> is it safe?\n4. A fourth?",
    ));
    chat::ask(&session, "What is Rust?").await;
    session
        .wait_until("document.querySelectorAll('.related-questions__item').length === 3")
        .await;
    assert_eq!(
        shown(&session).await,
        json!([
            "How do I install Rust?",
            "Is Rust fast?",
            "<img src=x onerror=alert(1)> is it safe?"
        ])
    );
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.related-questions img').length",
                vec![]
            )
            .await,
        json!(0),
        "markup in a suggestion stays text"
    );
    let bodies = chat::chat_bodies(&fixture);
    assert_eq!(bodies.len(), 2, "the reply, then the follow-ups");
    let asked = bodies[1].to_string();
    assert_eq!(bodies[1]["model"], "fixture-small");
    assert_eq!(bodies[1]["max_tokens"], 200);
    assert!(
        asked.contains("What is Rust?") && asked.contains("systems programming"),
        "{asked}"
    );
    session.screenshot("related-questions").await;

    // Kept with the reply.
    session.reload_app().await;
    chat::open_latest(&session).await;
    session
        .wait_until("document.querySelectorAll('.related-questions__item').length === 3")
        .await;

    // One click asks it; only the newest answer shows its own.
    fixture.enqueue(Reply::text("Use rustup."));
    fixture.enqueue(Reply::text(
        "Which toolchain should I pick?\nHow do I update Rust?",
    ));
    session.click_by_script(".related-questions__item").await;
    last_status(&session, "done").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--user')].at(-1)?.textContent.includes('How do I install Rust?')",
        )
        .await;
    session
        .wait_until("document.querySelectorAll('.related-questions__item').length === 2")
        .await;
    assert_eq!(
        shown(&session).await,
        json!(["Which toolchain should I pick?", "How do I update Rust?"])
    );
    session.assert_no_console_errors().await;
    session.finish().await;
}
