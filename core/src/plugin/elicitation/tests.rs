use serde_json::{Map, Value, json};

use super::answer::{AnswerError, Reply, check_form, read_responses, responses};
use super::*;

fn form(schema: Value) -> Value {
    json!({
        "resultType": "input_required",
        "inputRequests": {
            "booking": {
                "method": "elicitation/create",
                "params": {"mode": "form", "message": "Which table?", "requestedSchema": schema}
            }
        },
        "requestState": "opaque-1"
    })
}

fn booking_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "date": {"type": "string", "format": "date", "title": "Date"},
            "guests": {"type": "integer", "minimum": 1, "maximum": 12, "default": 2},
            "price": {"type": "number", "maximum": 99.5},
            "outside": {"type": "boolean", "title": "Outside?", "default": true},
            "room": {"type": "string", "oneOf": [{"const": "a", "title": "Garden"}, {"const": "b", "title": "Hall"}]},
            "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
            "extras": {"type": "array", "items": {"type": "string", "enum": ["cake", "wine", "music"]}, "maxItems": 2},
            "email": {"type": "string", "format": "email", "maxLength": 40},
            "note": {"type": "string", "description": "Anything else"}
        },
        "required": ["date", "guests"]
    })
}

fn fields() -> Vec<Field> {
    let asked = read_input_required(&form(booking_schema())).expect("readable");
    match &asked.requests[0].ask {
        Ask::Form { fields } => fields.clone(),
        other => panic!("{other:?}"),
    }
}

fn field<'a>(fields: &'a [Field], name: &str) -> &'a Field {
    fields.iter().find(|f| f.name == name).expect("a field")
}

#[test]
fn a_form_request_is_read_with_every_primitive_kind() {
    let asked = read_input_required(&form(booking_schema())).expect("readable");
    assert_eq!(asked.state.as_deref(), Some("opaque-1"));
    assert_eq!(asked.requests.len(), 1);
    assert_eq!(asked.requests[0].key, "booking");
    assert_eq!(asked.requests[0].message, "Which table?");
    let fields = fields();
    assert_eq!(fields.len(), 9);
    let date = field(&fields, "date");
    assert!(date.required);
    assert_eq!(date.title, "Date");
    assert!(matches!(
        date.kind,
        FieldKind::Text {
            format: Some(TextFormat::Date),
            ..
        }
    ));
    assert_eq!(
        field(&fields, "guests").kind,
        FieldKind::Number {
            integer: true,
            minimum: Some(1.0),
            maximum: Some(12.0),
            default: Some(2.0)
        }
    );
    assert_eq!(
        field(&fields, "guests").title,
        "guests",
        "no title: the name"
    );
    assert_eq!(
        field(&fields, "outside").kind,
        FieldKind::Boolean {
            default: Some(true)
        }
    );
    match &field(&fields, "room").kind {
        FieldKind::Choice { options, .. } => {
            assert_eq!(options[0].value, "a");
            assert_eq!(options[0].title, "Garden");
        }
        other => panic!("{other:?}"),
    }
    match &field(&fields, "size").kind {
        FieldKind::Choice { options, .. } => assert_eq!(options[1].title, "Medium"),
        other => panic!("{other:?}"),
    }
    match &field(&fields, "extras").kind {
        FieldKind::Choices {
            options, max_items, ..
        } => {
            assert_eq!(options.len(), 3);
            assert_eq!(*max_items, Some(2));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(field(&fields, "note").description, "Anything else");
}

#[test]
fn a_form_without_a_mode_is_a_form() {
    let mut value = form(booking_schema());
    value["inputRequests"]["booking"]["params"]
        .as_object_mut()
        .expect("params")
        .remove("mode");
    assert!(matches!(
        read_input_required(&value).expect("readable").requests[0].ask,
        Ask::Form { .. }
    ));
}

#[test]
fn what_cannot_be_asked_is_a_typed_error() {
    let nested = form(json!({"type": "object", "properties": {"a": {"type": "object"}}}));
    assert!(matches!(
        read_input_required(&nested),
        Err(ElicitError::Schema(_))
    ));
    let unknown_format =
        form(json!({"type": "object", "properties": {"a": {"type": "string", "format": "ipv4"}}}));
    assert!(matches!(
        read_input_required(&unknown_format),
        Err(ElicitError::Schema(_))
    ));
    let no_options = form(
        json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}),
    );
    assert!(matches!(
        read_input_required(&no_options),
        Err(ElicitError::Schema(_))
    ));
    let not_object = form(json!({"type": "array"}));
    assert!(matches!(
        read_input_required(&not_object),
        Err(ElicitError::Schema(_))
    ));
    let many: Map<String, Value> = (0..=MAX_FIELDS)
        .map(|i| (format!("f{i}"), json!({"type": "string"})))
        .collect();
    let too_wide = form(json!({"type": "object", "properties": many}));
    assert!(matches!(
        read_input_required(&too_wide),
        Err(ElicitError::Schema(_))
    ));

    let sampling =
        json!({"inputRequests": {"s": {"method": "sampling/createMessage", "params": {}}}});
    assert_eq!(
        read_input_required(&sampling),
        Err(ElicitError::Unsupported("sampling".into()))
    );
    let roots = json!({"inputRequests": {"r": {"method": "roots/list"}}});
    assert!(matches!(
        read_input_required(&roots),
        Err(ElicitError::Unsupported(_))
    ));
    let requests: Map<String, Value> = (0..=MAX_REQUESTS)
        .map(|i| (format!("k{i}"), json!({"method": "elicitation/create", "params": {"message": "?", "requestedSchema": {"type": "object", "properties": {}}}})))
        .collect();
    assert_eq!(
        read_input_required(&json!({ "inputRequests": requests })),
        Err(ElicitError::TooMany(MAX_REQUESTS + 1))
    );
    assert!(matches!(
        read_input_required(&json!({})),
        Err(ElicitError::Malformed(_))
    ));
    assert!(matches!(
        read_input_required(&json!("x")),
        Err(ElicitError::Malformed(_))
    ));
    assert!(matches!(
        read_input_required(&json!({"requestState": 7})),
        Err(ElicitError::Malformed(_))
    ));
    assert_eq!(
        read_input_required(&json!({"requestState": "x".repeat(MAX_STATE_BYTES + 1)})),
        Err(ElicitError::StateTooLarge)
    );
    let empty_key = json!({"inputRequests": {"": {"method": "elicitation/create", "params": {}}}});
    assert!(matches!(
        read_input_required(&empty_key),
        Err(ElicitError::Malformed(_))
    ));
}

#[test]
fn a_state_alone_is_read_as_a_retry_without_questions() {
    let asked = read_input_required(&json!({"requestState": "again"})).expect("readable");
    assert!(asked.requests.is_empty());
    assert_eq!(asked.state.as_deref(), Some("again"));
}

fn url_request(url: &str) -> Value {
    json!({"inputRequests": {"pay": {"method": "elicitation/create", "params": {
        "mode": "url", "message": "Pay here", "url": url, "elicitationId": "e-1"}}}})
}

#[test]
fn a_url_request_takes_only_web_addresses() {
    let asked = read_input_required(&url_request("https://pay.example.com/checkout?x=1"))
        .expect("readable");
    assert_eq!(
        asked.requests[0].ask,
        Ask::Url {
            url: "https://pay.example.com/checkout?x=1".into(),
            elicitation_id: Some("e-1".into())
        }
    );
    for bad in [
        "javascript:alert(1)",
        "data:text/html,<script>",
        "/relative",
        "//evil.example",
        "mailto:a@b.c",
        "https://",
        "https://a.example/\u{7}x",
    ] {
        assert_eq!(
            read_input_required(&url_request(bad)),
            Err(ElicitError::Url),
            "{bad}"
        );
    }
    let long = format!("https://a.example/{}", "x".repeat(MAX_URL_BYTES));
    assert_eq!(
        read_input_required(&url_request(&long)),
        Err(ElicitError::Url)
    );
    let mut no_id = url_request("https://a.example/");
    no_id["inputRequests"]["pay"]["params"]["elicitationId"] = json!("");
    assert!(matches!(
        read_input_required(&no_id)
            .expect("2026-07-28 has no id")
            .requests[0]
            .ask,
        Ask::Url {
            elicitation_id: None,
            ..
        }
    ));
    no_id["inputRequests"]["pay"]["params"]["elicitationId"] = json!("i".repeat(MAX_KEY_BYTES + 1));
    assert!(matches!(
        read_input_required(&no_id),
        Err(ElicitError::Malformed(_))
    ));
}

#[test]
fn long_messages_and_titles_are_cut() {
    let mut value = form(
        json!({"type": "object", "properties": {"a": {"type": "string", "title": "t".repeat(5_000)}}}),
    );
    value["inputRequests"]["booking"]["params"]["message"] = json!("m".repeat(5_000));
    let asked = read_input_required(&value).expect("readable");
    assert_eq!(
        asked.requests[0].message.chars().count(),
        MAX_MESSAGE_CHARS + 1
    );
    let Ask::Form { fields } = &asked.requests[0].ask else {
        panic!("a form")
    };
    assert_eq!(fields[0].title.chars().count(), MAX_MESSAGE_CHARS + 1);
}

fn given(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

#[test]
fn a_form_answer_is_checked_and_typed() {
    let fields = fields();
    let answer = check_form(
        &fields,
        &given(&[
            ("date", json!("2026-12-24")),
            ("guests", json!(" 4 ")),
            ("price", json!("12.5")),
            ("outside", json!(true)),
            ("room", json!("b")),
            ("extras", json!(["cake", "music"])),
            ("email", json!("ann@example.com")),
            ("note", json!("   ")),
        ]),
    )
    .expect("valid");
    assert_eq!(answer["guests"], json!(4));
    assert_eq!(answer["price"], json!(12.5));
    assert_eq!(answer["outside"], json!(true));
    assert_eq!(answer["room"], json!("b"));
    assert_eq!(answer["extras"], json!(["cake", "music"]));
    assert!(
        !answer.contains_key("note"),
        "an empty optional field is left out"
    );
    assert!(!answer.contains_key("size"));

    let minimal = check_form(
        &fields,
        &given(&[("date", json!("2026-12-24")), ("guests", json!(1))]),
    )
    .expect("valid");
    assert_eq!(minimal["outside"], json!(false), "an unticked yes/no is no");
}

#[test]
fn a_wrong_form_answer_names_its_field_and_sends_nothing() {
    let fields = fields();
    let base = [("date", json!("2026-12-24")), ("guests", json!("2"))];
    let with = |extra: (&str, Value)| {
        let mut all = given(&base);
        all.insert(extra.0.to_string(), extra.1);
        check_form(&fields, &all)
    };
    assert_eq!(
        check_form(&fields, &given(&[("guests", json!("2"))])),
        Err(AnswerError::Required("Date".into()))
    );
    assert_eq!(
        check_form(&fields, &given(&[("date", json!("2026-12-24"))])),
        Err(AnswerError::Required("guests".into()))
    );
    for bad in [
        ("guests", json!("two")),
        ("guests", json!("2.5")),
        ("guests", json!("13")),
        ("guests", json!("0")),
        ("price", json!("100")),
        ("price", json!("NaN")),
        ("date", json!("24/12/2026")),
        ("email", json!("not an email")),
        ("email", json!(format!("{}@example.com", "a".repeat(40)))),
        ("room", json!("c")),
        ("extras", json!(["cake", "wine", "music"])),
        ("extras", json!(["candles"])),
    ] {
        let name = bad.0;
        let refused = with(bad.clone()).expect_err(name);
        assert!(
            matches!(refused, AnswerError::Invalid(_)),
            "{bad:?}: {refused:?}"
        );
        assert!(refused.field().is_some());
    }
}

#[test]
fn replies_become_input_responses_under_the_servers_keys() {
    let two = json!({
        "inputRequests": {
            "booking": {"method": "elicitation/create", "params": {"message": "?", "requestedSchema": {
                "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}},
            "pay": {"method": "elicitation/create", "params": {"mode": "url", "message": "Pay",
                "url": "https://pay.example.com/", "elicitationId": "e"}}
        },
        "requestState": "s"
    });
    let asked = read_input_required(&two).expect("readable");
    let replies = vec![
        Reply::Accept(given(&[("name", json!("Ann"))])),
        Reply::Accept(Map::new()),
    ];
    assert_eq!(
        responses(&asked, &replies).expect("valid"),
        json!({"booking": {"action": "accept", "content": {"name": "Ann"}}, "pay": {"action": "accept"}})
    );
    assert_eq!(
        responses(&asked, &[Reply::Decline, Reply::Cancel]).expect("valid"),
        json!({"booking": {"action": "decline"}, "pay": {"action": "cancel"}})
    );
    assert_eq!(
        responses(&asked, &[Reply::Decline]),
        Err(AnswerError::Count)
    );
    assert_eq!(
        responses(&asked, &[Reply::Accept(Map::new()), Reply::Decline]),
        Err(AnswerError::Required("name".into()))
    );
    let responses = responses(&asked, &[Reply::Decline, Reply::Cancel]).expect("valid");
    assert!(
        read_responses(&responses).is_ok(),
        "what the app sends, the edge reads"
    );
}

#[test]
fn the_edge_reads_only_flat_bounded_responses() {
    assert!(read_responses(&json!({"a": {"action": "accept", "content": {"n": 1, "t": "x", "b": true, "l": ["p"]}}})).is_ok());
    for bad in [
        json!([]),
        json!({}),
        json!({"a": {"action": "maybe"}}),
        json!({"a": {"action": "accept", "content": {"deep": {"x": 1}}}}),
        json!({"a": {"action": "decline", "content": {"n": 1}}}),
        json!({"a": {"action": "accept", "content": {"t": "x".repeat(answer::MAX_TEXT_CHARS + 1)}}}),
        json!({"a": {"action": "accept", "extra": 1}}),
        json!({"": {"action": "cancel"}}),
    ] {
        assert!(read_responses(&bad).is_err(), "{bad}");
    }
    let many: Map<String, Value> = (0..=MAX_REQUESTS)
        .map(|i| (format!("k{i}"), json!({"action": "cancel"})))
        .collect();
    assert!(read_responses(&Value::Object(many)).is_err());
}

#[test]
fn a_pending_call_survives_its_storage_and_retries_only_once_answered() {
    let asked = read_input_required(&form(booking_schema())).expect("readable");
    let pending = Pending { asked, rounds: 1 };
    let stored = pending.encode();
    assert_eq!(Pending::decode(&stored), Some(pending.clone()));
    assert_eq!(Pending::decode(""), None);
    assert_eq!(Pending::decode("{not json"), None);
    assert_eq!(pending.retry(&[]), None, "no replies: nothing to send");
    let (responses, state) = pending.retry(&[Reply::Decline]).expect("answered");
    assert_eq!(responses, json!({"booking": {"action": "decline"}}));
    assert_eq!(state.as_deref(), Some("opaque-1"));
    assert_eq!(
        pending.retry(&[Reply::Accept(Map::new())]),
        None,
        "an answer missing its required fields is never sent"
    );
}

#[test]
fn a_call_asks_waits_takes_checked_replies_and_is_ready_to_run_again() {
    use crate::chat::tools::{ToolCallRecord, ToolCallStatus};
    let mut call = ToolCallRecord {
        status: ToolCallStatus::Running,
        ..ToolCallRecord::default()
    };
    let asked = read_input_required(&form(booking_schema())).expect("readable");
    ask(&mut call, asked.clone());
    assert_eq!(call.status, ToolCallStatus::AwaitingAnswer);
    assert_eq!(waiting(&call).expect("waiting").asked, asked);
    assert_eq!(ready(&call), None);

    // A reply missing a required field changes nothing.
    let before = call.clone();
    assert_eq!(
        take_replies(&mut call, vec![Reply::Accept(Map::new())]),
        Err(AnswerError::Required("Date".into()))
    );
    assert_eq!(call, before);
    let replies = vec![Reply::Accept(given(&[
        ("date", json!("2026-12-24")),
        ("guests", json!("3")),
    ]))];
    take_replies(&mut call, replies.clone()).expect("taken");
    assert_eq!(call.status, ToolCallStatus::Pending);
    assert_eq!(waiting(&call), None);
    assert_eq!(
        take_replies(&mut call, replies),
        Err(AnswerError::NotWaiting),
        "answered once"
    );
    let (responses, state) = ready(&call).expect("ready");
    assert_eq!(responses["booking"]["content"]["guests"], json!(3));
    assert_eq!(state.as_deref(), Some("opaque-1"));

    // Asking again counts; past the bound the call fails instead of waiting forever.
    for round in 2..=MAX_ROUNDS {
        ask(&mut call, asked.clone());
        assert_eq!(call.status, ToolCallStatus::AwaitingAnswer, "round {round}");
    }
    ask(&mut call, asked);
    assert_eq!(call.status, ToolCallStatus::Failed);
    assert!(call.is_error && call.elicitation.is_empty(), "{call:?}");
    assert!(!is_waiting(&call));

    // Replies that cannot be read are never sent.
    let mut broken = ToolCallRecord::default();
    ask(
        &mut broken,
        read_input_required(&form(booking_schema())).expect("readable"),
    );
    assert!(is_waiting(&broken));
    broken.status = ToolCallStatus::Pending;
    broken.elicitation_replies = "[{".into();
    assert_eq!(ready(&broken), None);
    settled(&mut broken);
    assert!(broken.elicitation.is_empty() && broken.elicitation_replies.is_empty());
}
