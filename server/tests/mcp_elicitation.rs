//! MCP elicitation through the edge, against the official Python SDK server
//! (`tests/data/mcp_revision_server.py`): under the stateless 2026-07-28 revision a tool
//! that asks the user answers with its questions (a form, or a page to open) and the
//! state to echo; the browser's call with the user's replies finishes it, and nothing
//! waits on the edge in between. A handshake (2025-11-25) server asks in the middle of
//! the call: the call is held on the edge and the next call hands the answer over, to
//! that caller only. Replies are checked before anything reaches the server.

mod support;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::peer::everything;
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
async fn a_handshake_servers_question_mid_call_is_held_until_the_user_answers() {
    let server = Server::start(&[]);
    let peer = revision_server(&["--only", "handshake"]);
    let installed = install(&server, &peer.url()).await;
    assert_eq!(
        installed["registered"]["plugin"]["mcp"]["revision"],
        "2025-11-25"
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
    let state = required["state"].as_str().expect("a state").to_string();
    assert!(
        state.starts_with("hearth-held:"),
        "held on the edge: {state}"
    );
    assert_eq!(
        count(&stats(&peer).await, "bookings"),
        0,
        "the tool waits for the answer"
    );

    // Someone else's (or a made-up) state reaches no held call.
    let answer =
        json!({"question": {"action": "accept", "content": {"date": "2026-12-31", "guests": 2}}});
    let (status, refused) = call(
        &server,
        &installed,
        "book_table",
        args.clone(),
        Some((answer.clone(), Some("hearth-held:nope"))),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{refused}");

    let (status, done) = call(
        &server,
        &installed,
        "book_table",
        args.clone(),
        Some((answer.clone(), Some(&state))),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        text(&done),
        "Booked Quince on 2026-12-31 for 2 (garden, outside: false).",
        "{done}"
    );
    assert_eq!(count(&stats(&peer).await, "bookings"), 1);
    // Answered once: the same state finds nothing now.
    let (status, _) = call(
        &server,
        &installed,
        "book_table",
        args,
        Some((answer, Some(&state))),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn server_everythings_form_and_page_questions_are_asked_and_answered() {
    let server = Server::start(&[]);
    let peer = everything();
    let installed = install(&server, &peer.url()).await;
    // Listed with elicitation offered, at install and after.
    let (status, asked) = call(
        &server,
        &installed,
        "trigger-elicitation-request",
        json!({}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{asked}");
    let required = &asked["inputRequired"];
    let fields = required["requests"][0]["ask"]["fields"]
        .as_array()
        .expect("a form");
    assert_eq!(fields.len(), 13, "{asked}");
    let field = |name: &str| {
        fields
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(field("name")["required"], true);
    assert_eq!(field("email")["kind"]["format"], "email");
    assert_eq!(
        field("legacyTitledEnum")["kind"]["options"][1],
        json!({"value": "pet-2", "title": "Dogs"})
    );
    assert_eq!(field("titledMultipleSelectEnum")["kind"]["type"], "choices");
    assert_eq!(field("integer")["kind"]["default"], 42.0);
    let state = required["state"].as_str().expect("a state");
    let answer = json!({"question": {"action": "accept", "content": {"name": "Ann Example", "check": true, "integer": 7}}});
    let (status, done) = call(
        &server,
        &installed,
        "trigger-elicitation-request",
        json!({}),
        Some((answer, Some(state))),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    let said = text(&done);
    assert!(
        said.contains("- Name: Ann Example") && said.contains("- Favorite Integer: 7"),
        "{done}"
    );

    let args = json!({"url": "https://example.com/authorize", "message": "Sign in to continue."});
    let (status, asked) = call(
        &server,
        &installed,
        "trigger-url-elicitation",
        args.clone(),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{asked}");
    let request = &asked["inputRequired"]["requests"][0];
    assert_eq!(request["message"], "Sign in to continue.");
    assert_eq!(request["ask"]["url"], "https://example.com/authorize");
    assert!(request["ask"]["elicitationId"].is_string(), "{asked}");
    let state = asked["inputRequired"]["state"].as_str().expect("a state");
    let declined = json!({"question": {"action": "decline"}});
    let (status, done) = call(
        &server,
        &installed,
        "trigger-url-elicitation",
        args,
        Some((declined, Some(state))),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert!(text(&done).contains("decline"), "{done}");
}
