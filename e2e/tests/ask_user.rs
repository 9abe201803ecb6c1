//! The model asking the user (`ask_user`) in the real build, in Chromium, with an
//! OpenAI-compatible model scripted through the provider fixture. The question waits as
//! a card under the reply, still open after a reload; an incomplete answer is refused
//! in words and sends nothing; the answer goes back to the model as the call's result
//! and the reply goes on with its tools. A declined question says so to the model; one
//! the conversation left behind is closed, never answered; and the user can switch
//! questions off again. Questions are off until the user switches them on, like every
//! built-in tool: a model that was not given the tool never asks.

use hearth_e2e::AppSession;
use hearth_e2e::chat::{self, chat_bodies, last_status, offered_tools};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::Value;

const QUESTIONS: &str = r#"{"questions": [
    {"question": "Which language?", "options": ["Rust", "Go"], "allowOther": false},
    {"question": "Which platforms?", "options": ["Linux", "macOS", "Windows"], "multiple": true}
]}"#;

/// The tool results in a chat request body.
fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str().map(str::to_string))
        .collect()
}

/// The last question card's state (`waiting`, `answered`, `declined`, `closed`).
async fn card_state(session: &AppSession, state: &str) {
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('[data-question-card]')].at(-1)?.dataset.state === '{state}'"
        ))
        .await;
}

/// Switches questions on or off in Settings › Tools (`on`: the state wanted).
async fn switch_questions(session: &AppSession, on: bool) {
    session.open_settings_tab("tools").await;
    session.wait_for("#tools-ask-user").await;
    session.click_by_script("#tools-ask-user").await;
    session
        .wait_until(&format!(
            "document.getElementById('tools-ask-user').checked === {on}"
        ))
        .await;
    session.close_settings().await;
}

/// Clicks the option `value` of question `number` (from 0) in the waiting card.
async fn choose(session: &AppSession, number: usize, value: &str) {
    session
        .click_by_script(&format!(
            "[data-question-card][data-state=waiting] [data-question='{number}'] input[value='{value}']"
        ))
        .await;
}

#[tokio::test]
async fn a_question_waits_across_a_reload_and_the_answer_sends_the_reply_on() {
    let fixture = ProviderFixture::start().await;
    fixture.set_tool_models(true);
    let session = chat::ready(&fixture).await;
    // Off until switched on: the first request offers no such tool.
    fixture.enqueue(Reply::text("Sure."));
    chat::ask(&session, "Hello").await;
    assert!(!offered_tools(&chat_bodies(&fixture)[0]).contains(&"ask_user".to_string()));
    switch_questions(&session, true).await;
    fixture.enqueue(Reply::text("A few choices first.").tool_call("ask_user", QUESTIONS));
    chat::ask(&session, "Write me a command-line tool").await;
    card_state(&session, "waiting").await;
    let asked = chat_bodies(&fixture);
    assert_eq!(asked.len(), 2);
    assert!(offered_tools(&asked[1]).contains(&"ask_user".to_string()));

    // Still waiting after a reload (here at phone width, in the dark theme): stored,
    // never answered for the user.
    session.resize(360, 780).await;
    chat::open_latest_on_phone(&session, "dark").await;
    card_state(&session, "waiting").await;
    session.screenshot("ask-user-question-phone-dark").await;
    session.resize(1280, 900).await;
    let stored = chat::stored_records(&session, "messages").await;
    let call = stored
        .iter()
        .find_map(|m| m["toolRounds"][0]["calls"][0].as_object().cloned())
        .expect("the stored call");
    assert_eq!(call["status"], "awaitingAnswer");
    assert_eq!(call["result"], "");

    // An incomplete answer is refused in words, and nothing is sent.
    choose(&session, 1, "Linux").await;
    session
        .click_by_script("[data-question-card] [data-question-send]")
        .await;
    session
        .wait_until(
            "document.querySelector('[data-question-card] .field__error')?.textContent === 'Answer question 1, or decline.'",
        )
        .await;
    assert_eq!(chat_bodies(&fixture).len(), 2);

    // Answered: the model reads the answers as the call's result, its tools offered
    // again, and writes the rest of the reply.
    choose(&session, 0, "Rust").await;
    choose(&session, 1, "macOS").await;
    fixture.enqueue(Reply::text("Here is a Rust tool for Linux and macOS."));
    session
        .click_by_script("[data-question-card] [data-question-send]")
        .await;
    card_state(&session, "answered").await;
    last_status(&session, "done").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1).textContent.includes('Here is a Rust tool')",
        )
        .await;
    let bodies = chat_bodies(&fixture);
    assert_eq!(bodies.len(), 3);
    assert_eq!(
        tool_results(&bodies[2]),
        ["The user answered:\n- Which language?\n  → Rust\n- Which platforms?\n  → Linux; macOS"]
    );
    assert!(offered_tools(&bodies[2]).contains(&"ask_user".to_string()));
    let shown = session.text_of("[data-question-card]").await;
    assert!(
        shown.contains("Rust") && shown.contains("Linux · macOS"),
        "{shown}"
    );
    session.screenshot("ask-user-answered").await;
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn a_declined_or_left_question_never_becomes_an_answer_and_questions_can_be_switched_off() {
    let fixture = ProviderFixture::start().await;
    fixture.set_tool_models(true);
    let session = chat::ready(&fixture).await;
    switch_questions(&session, true).await;

    // Declined: the model is told so, and answers without.
    fixture.enqueue(
        Reply::text("").tool_call("ask_user", r#"{"questions": [{"question": "Your city?"}]}"#),
    );
    chat::ask(&session, "What is the weather like?").await;
    card_state(&session, "waiting").await;
    // Without options the user's own words are the answer.
    session
        .wait_for("[data-question-card] input[type=text]")
        .await;
    fixture.enqueue(Reply::text("Tell me your city any time."));
    session
        .click_by_script("[data-question-card] [data-question-decline]")
        .await;
    card_state(&session, "declined").await;
    last_status(&session, "done").await;
    let bodies = chat_bodies(&fixture);
    assert_eq!(
        tool_results(bodies.last().unwrap()),
        ["The user declined to answer. Go on without their answer, or say what you need."]
    );

    // Left behind: the user writes on instead; the question closes unanswered.
    fixture.enqueue(Reply::text("").tool_call("ask_user", QUESTIONS));
    chat::ask(&session, "And a tool?").await;
    card_state(&session, "waiting").await;
    fixture.enqueue(Reply::text("Fine."));
    chat::ask(&session, "Never mind").await;
    session
        .wait_until(
            "[...document.querySelectorAll('[data-question-card]')].some((c) => c.dataset.state === 'closed')
             && !document.querySelector('[data-question-card][data-state=waiting]')",
        )
        .await;
    let last = chat_bodies(&fixture).pop().unwrap();
    assert!(!last.to_string().contains("The user answered"), "{last}");

    // Switched off: no request offers it any more.
    switch_questions(&session, false).await;
    fixture.enqueue(Reply::text("No questions."));
    chat::ask(&session, "Anything?").await;
    let last = chat_bodies(&fixture).pop().unwrap();
    assert!(
        !offered_tools(&last).contains(&"ask_user".to_string()),
        "{last}"
    );
    session.assert_no_console_errors().await;
    session.finish().await;
}
