//! MCP elicitation through the edge, against the official Python SDK server
//! (`tests/data/mcp_revision_server.py`): under the stateless 2026-07-28 revision a tool
//! that asks the user answers with its questions (a form, or a page to open) and the
//! state to echo; the browser's call with the user's replies finishes it, and nothing
//! waits on the edge in between. Replies are checked before anything reaches the server;
//! a handshake server is not offered elicitation, so it never asks mid-call.

mod support;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::revision::{count, function, install, revision_server, stats};
use support::{Server, post_json as post};

/// Calls `tool` of the plugin `installed` with `args`, and the replies and state of a
/// previous answer when given.
async fn call(
    server: &Server,
    installed: &Value,
    tool: &str,
    args: Value,
    replies: Option<(Value, Option<&str>)>,
) -> (StatusCode, Value) {
    let registered = &installed["registered"];
    let name = function(installed, tool);
    let mut body = json!({
        "pluginId": registered["plugin"]["id"],
        "function": name,
        "args": args,
        "fingerprint": registered["fingerprints"][&name],
    });
    if let Some((responses, state)) = replies {
        body["inputResponses"] = responses;
        if let Some(state) = state {
            body["requestState"] = json!(state);
        }
    }
    post(server, "/api/plugins/execute", body).await
}

fn text(answer: &Value) -> &str {
    answer["result"]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_form_the_server_asks_is_answered_on_the_next_call() {
    let server = Server::start(&[]);
    let peer = revision_server(&[]);
    let installed = install(&server, &peer.url()).await;
    assert_eq!(
        installed["registered"]["plugin"]["mcp"]["revision"],
        "2026-07-28"
    );
    let args = json!({"restaurant": "Quince"});

    let (status, asked) = call(&server, &installed, "book_table", args.clone(), None).await;
    assert_eq!(status, StatusCode::OK, "{asked}");
    let required = &asked["inputRequired"];
    let request = &required["requests"][0];
    assert_eq!(
        request["message"], "Which day, and for how many guests?",
        "{asked}"
    );
    assert_eq!(request["ask"]["mode"], "form");
    let fields = request["ask"]["fields"].as_array().expect("fields");
    let field = |name: &str| {
        fields
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {asked}"))
    };
    assert_eq!(field("date")["kind"]["type"], "text");
    assert_eq!(field("date")["kind"]["format"], "date");
    assert_eq!(field("date")["required"], true);
    assert_eq!(field("guests")["kind"]["type"], "number");
    assert_eq!(field("guests")["kind"]["integer"], true);
    assert_eq!(field("guests")["kind"]["maximum"], 12.0);
    assert_eq!(field("room")["kind"]["type"], "choice");
    assert_eq!(field("outside")["kind"]["type"], "boolean");
    assert_eq!(text(&asked), "", "no result while the user is asked");
    let state = required["state"].as_str().map(str::to_string);
    assert!(
        state.is_some(),
        "the SDK keeps its questions in the state: {asked}"
    );
    assert_eq!(
        count(&stats(&peer).await, "bookings"),
        0,
        "nothing booked yet"
    );

    let key = request["key"].as_str().expect("a key");
    let accepted = json!({ key: {"action": "accept", "content":
        {"date": "2026-12-24", "guests": 4, "room": "hall", "outside": true}} });
    let (status, done) = call(
        &server,
        &installed,
        "book_table",
        args.clone(),
        Some((accepted, state.as_deref())),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert!(done.get("inputRequired").is_none(), "{done}");
    assert_eq!(
        text(&done),
        "Booked Quince on 2026-12-24 for 4 (hall, outside: true).",
        "{done}"
    );
    assert_eq!(done["result"]["isError"], false);

    // Declined: the server decides what that means, and says so.
    let (_, asked) = call(&server, &installed, "book_table", args.clone(), None).await;
    let state = asked["inputRequired"]["state"].as_str().map(str::to_string);
    let declined = json!({ key: {"action": "decline"} });
    let (status, done) = call(
        &server,
        &installed,
        "book_table",
        args,
        Some((declined, state.as_deref())),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        text(&done),
        "No booking at Quince: the user chose decline.",
        "{done}"
    );
    assert_eq!(count(&stats(&peer).await, "bookings"), 2);
}

#[tokio::test]
async fn a_page_the_server_asks_to_open_is_shown_and_answered() {
    let server = Server::start(&[]);
    let peer = revision_server(&["--only", "stateless"]);
    let installed = install(&server, &peer.url()).await;
    let (status, asked) = call(&server, &installed, "pay", json!({"amount": 42}), None).await;
    assert_eq!(status, StatusCode::OK, "{asked}");
    let required = &asked["inputRequired"];
    // The SDK seals its state; the server checks it came back as it was sent.
    let state = required["state"].as_str().expect("a state").to_string();
    let request = &required["requests"][0];
    assert_eq!(request["key"], "checkout");
    assert_eq!(request["message"], "Open the payment page to pay 42.");
    assert_eq!(
        request["ask"],
        json!({"mode": "url", "url": "https://pay.example.com/checkout/42"}),
        "2026-07-28's URL requests carry no elicitation id"
    );
    let accepted = json!({"checkout": {"action": "accept"}});
    let (status, done) = call(
        &server,
        &installed,
        "pay",
        json!({"amount": 42}),
        Some((accepted.clone(), Some(&state))),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        text(&done),
        "Payment of 42: the user chose accept.",
        "{done}"
    );
    // A state changed on the way is not the server's: it asks again.
    let forged = format!("{state}x");
    let (_, again) = call(
        &server,
        &installed,
        "pay",
        json!({"amount": 42}),
        Some((accepted, Some(&forged))),
    )
    .await;
    assert!(
        again.get("inputRequired").is_some() || again["code"].is_string(),
        "{again}"
    );
    assert_ne!(
        text(&again),
        "Payment of 42: the user chose accept.",
        "{again}"
    );
}

#[tokio::test]
async fn replies_out_of_bounds_are_refused_before_the_server_sees_them() {
    let server = Server::start(&[]);
    let peer = revision_server(&[]);
    let installed = install(&server, &peer.url()).await;
    let calls_before = count(&stats(&peer).await, "tools/call");
    let args = json!({"amount": 1});
    let bad: Vec<(Value, Option<&str>)> = vec![
        (json!({"checkout": {"action": "maybe"}}), Some("pay-1")),
        (
            json!({"checkout": {"action": "accept", "content": {"nested": {"a": 1}}}}),
            Some("pay-1"),
        ),
        (
            json!({"checkout": {"action": "decline", "content": {"a": 1}}}),
            Some("pay-1"),
        ),
        (json!({}), Some("pay-1")),
        (json!(["accept"]), None),
    ];
    for (responses, state) in bad {
        let (status, refused) = call(
            &server,
            &installed,
            "pay",
            args.clone(),
            Some((responses.clone(), state)),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{responses}: {refused}");
        assert_eq!(refused["code"], "BAD_REQUEST", "{refused}");
    }
    // A state with no replies, and a state past its bound.
    let registered = &installed["registered"];
    let name = function(&installed, "pay");
    for state in [json!("pay-1"), json!("x".repeat(64 * 1024 + 1))] {
        let mut body = json!({
            "pluginId": registered["plugin"]["id"], "function": name, "args": args,
            "fingerprint": registered["fingerprints"][&name], "requestState": state,
        });
        if state.as_str().is_some_and(|s| s.len() > 10) {
            body["inputResponses"] = json!({"checkout": {"action": "cancel"}});
        }
        let (status, refused) = post(&server, "/api/plugins/execute", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    }
    assert_eq!(
        count(&stats(&peer).await, "tools/call"),
        calls_before,
        "nothing was sent"
    );
}

#[tokio::test]
async fn a_handshake_server_is_not_offered_elicitation_and_never_gets_an_invented_answer() {
    let server = Server::start(&[]);
    let peer = revision_server(&["--only", "handshake"]);
    let installed = install(&server, &peer.url()).await;
    assert_eq!(
        installed["registered"]["plugin"]["mcp"]["revision"],
        "2025-11-25"
    );
    let (status, answer) = call(
        &server,
        &installed,
        "book_table",
        json!({"restaurant": "Quince"}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{answer}");
    assert_eq!(answer["code"], "UPSTREAM_ERROR", "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap_or_default()
            .contains("elicitation capability"),
        "the server's refusal is passed on: {answer}"
    );
    assert_eq!(
        count(&stats(&peer).await, "bookings"),
        0,
        "no booking on an answer nobody gave"
    );
}
