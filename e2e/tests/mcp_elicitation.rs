//! An MCP server asking the user in the middle of a tool call (elicitation, the
//! 2026-07-28 revision's `input_required`), in the real build, in Chromium, against the
//! official Python SDK server (`mcp_revision_server.py`: `book_table` asks a form, `pay`
//! asks the user to open a page) with an OpenAI-compatible model scripted through the
//! provider fixture, the server speaking either revision (a handshake server asks in the
//! middle of the call, which the edge holds). The question waits as a card under the
//! reply, still open after a reload; a missing or wrong value is named and nothing is sent; the answer goes to the
//! server on the call made again, and the model reads what the server then answered. A
//! page to open shows its host and whole address first and opens only from the click,
//! in a tab that cannot reach back; a declined question goes to the server as declined.

use hearth_e2e::AppSession;
use hearth_e2e::chat::{self, chat_bodies, last_status, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::tool_peers::{install, mcp_revision_server, mcp_url, peer_stats};
use serde_json::{Value, json};

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

/// The installed function whose name ends with `suffix`.
fn named(functions: &[String], suffix: &str) -> String {
    functions
        .iter()
        .find(|name| name.ends_with(suffix))
        .unwrap_or_else(|| panic!("no function ending {suffix} among {functions:?}"))
        .clone()
}

/// The app with the revision server's tools installed; the installed functions' names.
async fn with_server(fixture: &ProviderFixture, port_url: &str) -> (AppSession, Vec<String>) {
    fixture.set_tool_models(true);
    let session = chat::ready(fixture).await;
    let functions = install(&session, "mcp", port_url, "MCP server").await;
    session.close_settings().await;
    (session, functions)
}

const WAITING: &str = "[data-server-question][data-state=waiting]";

/// Sets the card's field `name` (a text, date or number input) to `value` as typed.
async fn type_into(session: &AppSession, name: &str, value: &str) {
    session
        .js(
            "const input = document.querySelector(`[data-server-question] input[name='${arguments[0]}']`);
             input.value = arguments[1];
             input.dispatchEvent(new Event('input', {bubbles: true}));",
            vec![json!(name), json!(value)],
        )
        .await;
}

async fn card_error(session: &AppSession, text: &str) {
    session
        .wait_until(&format!(
            "document.querySelector('[data-server-question] .field__error')?.textContent === {}",
            json!(text)
        ))
        .await;
}

/// A handshake (2025-11-25) server here: it asks in the middle of the call, which the
/// edge holds while the page reloads; the stateless revision is the next test's.
#[tokio::test]
async fn a_servers_form_waits_across_a_reload_and_the_answer_finishes_the_call() {
    let mcp = mcp_revision_server(&["--only", "handshake"]);
    let fixture = ProviderFixture::start().await;
    let (session, functions) = with_server(&fixture, &mcp_url(&mcp)).await;
    let book = named(&functions, "__book_table");
    fixture.enqueue(Reply::text("Let me book it.").tool_call(&book, r#"{"restaurant": "Quince"}"#));
    send(&session, "Book a table at Quince").await;
    session.wait_for(WAITING).await;
    let shown = session.text_of("[data-server-question]").await;
    assert!(
        shown.contains("asks you") && shown.contains("Which day, and for how many guests?"),
        "{shown}"
    );
    assert!(
        shown.contains("Day") && shown.contains("(required)"),
        "{shown}"
    );
    // The reply ended there: the model was asked once, and nothing was booked.
    assert_eq!(chat_bodies(&fixture).len(), 1);
    assert_eq!(peer_stats(mcp.port).await["bookings"], Value::Null);
    // The server's defaults are offered.
    assert_eq!(
        session
            .js("return document.querySelector(`[data-server-question] input[name='guests']`).value", vec![])
            .await,
        json!("2")
    );

    // Still waiting after a reload (at phone width, in the dark theme), stored with the
    // server's questions and no answer.
    session.resize(360, 780).await;
    chat::open_latest_on_phone(&session, "dark").await;
    session.wait_for(WAITING).await;
    session.screenshot("mcp-elicitation-form-phone-dark").await;
    let sideways = session
        .js(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
            vec![],
        )
        .await;
    assert_eq!(sideways, json!(0), "the card widens the page");
    session.resize(1280, 900).await;
    let stored = chat::stored_records(&session, "messages").await;
    let call = stored
        .iter()
        .find_map(|m| m["toolRounds"][0]["calls"][0].as_object().cloned())
        .expect("the stored call");
    assert_eq!(call["status"], "awaitingAnswer");
    let pending: Value =
        serde_json::from_str(call["elicitation"].as_str().expect("kept")).expect("JSON");
    assert_eq!(
        pending["asked"]["requests"][0]["message"],
        "Which day, and for how many guests?"
    );
    assert!(pending.get("replies").is_none(), "{pending}");
    let calls_before = peer_stats(mcp.port).await["tools/call"].clone();

    // A missing day and a number out of range are named; nothing goes to the server.
    type_into(&session, "guests", "3").await;
    session
        .click_by_script("[data-server-question] [data-question-send]")
        .await;
    card_error(&session, "Day is required.").await;
    type_into(&session, "date", "2026-12-24").await;
    type_into(&session, "guests", "40").await;
    session
        .click_by_script("[data-server-question] [data-question-send]")
        .await;
    card_error(&session, "Guests is not valid.").await;
    assert_eq!(peer_stats(mcp.port).await["tools/call"], calls_before);
    assert_eq!(chat_bodies(&fixture).len(), 1);

    // Answered: the call runs again with the answer, and the model reads the server's
    // result, then writes the rest of the reply.
    type_into(&session, "guests", "4").await;
    session
        .click_by_script("[data-server-question] input[value='hall']")
        .await;
    session
        .click_by_script("[data-server-question] input[type=checkbox]")
        .await;
    fixture.enqueue(Reply::text("Booked for the 24th."));
    session
        .click_by_script("[data-server-question] [data-question-send]")
        .await;
    last_status(&session, "done").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1).textContent.includes('Booked for the 24th.')",
        )
        .await;
    let bodies = chat_bodies(&fixture);
    assert_eq!(bodies.len(), 2);
    assert_eq!(
        tool_results(&bodies[1]),
        ["Booked Quince on 2026-12-24 for 4 (hall, outside: true)."]
    );
    assert_eq!(peer_stats(mcp.port).await["bookings"], json!(1));
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('[data-server-question]').length",
                vec![]
            )
            .await,
        json!(0),
        "the card gives way to the call's block"
    );
    let rows = chat::last_tool_calls(&session).await;
    assert_eq!(rows[0][1], json!("done"), "{rows}");
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn a_page_to_open_shows_its_address_first_and_a_declined_question_goes_back_declined() {
    let mcp = mcp_revision_server(&["--only", "stateless"]);
    let fixture = ProviderFixture::start().await;
    let (session, functions) = with_server(&fixture, &mcp_url(&mcp)).await;
    let pay = named(&functions, "__pay");
    fixture.enqueue(Reply::text("").tool_call(&pay, r#"{"amount": 42}"#));
    send(&session, "Pay 42").await;
    session.wait_for(WAITING).await;
    let shown = session.text_of("[data-server-question]").await;
    assert!(
        shown.contains("Open the payment page to pay 42."),
        "{shown}"
    );
    assert!(
        shown.contains("This opens a page on pay.example.com:"),
        "{shown}"
    );
    assert_eq!(
        session
            .text_of("[data-server-question] [data-server-url]")
            .await,
        "https://pay.example.com/checkout/42"
    );
    assert!(shown.contains("Open page and continue"), "{shown}");
    session.screenshot("mcp-elicitation-page").await;
    // Nothing was opened on its own.
    session
        .js(
            "window.__opened = []; window.open = (...a) => { window.__opened.push(a); return null; };",
            vec![],
        )
        .await;

    // Declined: the server hears it, and the model reads what the server made of it.
    fixture.enqueue(Reply::text("Payment declined."));
    session
        .click_by_script("[data-server-question] [data-question-decline]")
        .await;
    last_status(&session, "done").await;
    let bodies = chat_bodies(&fixture);
    assert_eq!(
        tool_results(&bodies[1]),
        ["Payment of 42: the user chose decline."]
    );
    assert_eq!(
        session.js("return window.__opened.length", vec![]).await,
        json!(0)
    );

    // Accepted: the page opens from the click, cut off from this one.
    fixture.enqueue(Reply::text("").tool_call(&pay, r#"{"amount": 7}"#));
    send(&session, "Pay 7").await;
    session.wait_for(WAITING).await;
    fixture.enqueue(Reply::text("Paid."));
    session
        .click_by_script("[data-server-question] [data-question-send]")
        .await;
    last_status(&session, "done").await;
    assert_eq!(
        session.js("return window.__opened", vec![]).await,
        json!([[
            "https://pay.example.com/checkout/7",
            "_blank",
            "noopener,noreferrer"
        ]])
    );
    let bodies = chat_bodies(&fixture);
    assert_eq!(
        tool_results(bodies.last().expect("a body"))
            .last()
            .map(String::as_str),
        Some("Payment of 7: the user chose accept.")
    );
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn server_everythings_whole_form_is_shown_and_answered() {
    let everything = hearth_e2e::tool_peers::mcp_everything();
    let fixture = ProviderFixture::start().await;
    let (session, functions) = with_server(&fixture, &mcp_url(&everything)).await;
    let ask = named(&functions, "__trigger_elicitation_request");
    fixture.enqueue(Reply::text("").tool_call(&ask, "{}"));
    send(&session, "Ask me for my details").await;
    session.wait_for(WAITING).await;
    // Every kind of field the specification has: text with formats, numbers, a yes/no,
    // single and multiple choices (plain, titled, legacy titled).
    let kinds = session
        .js(
            "const card = document.querySelector('[data-server-question]');
             return ['email', 'url', 'date', 'number', 'checkbox', 'radio']
               .map((t) => card.querySelectorAll(`input[type=${t}]`).length > 0);",
            vec![],
        )
        .await;
    assert_eq!(kinds, json!([true, true, true, true, true, true]));
    assert!(
        session
            .text_of("[data-server-question]")
            .await
            .contains("Wonder Woman")
    );
    session.screenshot("mcp-elicitation-everything").await;
    type_into(&session, "name", "Ann Example").await;
    fixture.enqueue(Reply::text("Thanks, Ann."));
    session
        .click_by_script("[data-server-question] [data-question-send]")
        .await;
    last_status(&session, "done").await;
    let bodies = chat_bodies(&fixture);
    let result = tool_results(&bodies[1]).join("\n");
    assert!(result.contains("- Name: Ann Example"), "{result}");
    // The defaults went back as offered.
    assert!(result.contains("- Favorite Integer: 42"), "{result}");
    session.assert_no_console_errors().await;
    session.finish().await;
}
