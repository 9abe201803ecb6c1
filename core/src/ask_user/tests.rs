use super::*;

fn args(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

fn pick(chosen: &[&str], other: &str) -> Answer {
    Answer {
        chosen: chosen.iter().map(|c| c.to_string()).collect(),
        other: other.into(),
    }
}

#[test]
fn a_call_asks_its_questions_trimmed_with_their_options_once_each() {
    let questions = questions_of(&args(json!({"questions": [
        {"question": " Which language? ", "options": ["Rust", "Go", "Rust"], "allowOther": false},
        {"question": "Anything else?"},
        {"question": "Which platforms?", "options": ["Linux", "macOS"], "multiple": true}
    ]})))
    .unwrap();
    assert_eq!(questions.len(), 3);
    assert_eq!(questions[0].question, "Which language?");
    assert_eq!(questions[0].options, ["Rust", "Go"]);
    assert!(!questions[0].other && !questions[0].multiple);
    // Without options, the user's own words are the answer, whatever the model said.
    assert!(questions[1].other && questions[1].options.is_empty());
    assert!(questions[2].multiple && questions[2].other);
}

#[test]
fn a_call_that_cannot_be_asked_says_why_to_the_model() {
    let too_many: Vec<Value> = (0..5)
        .map(|n| json!({"question": format!("q{n}")}))
        .collect();
    let cases = [
        (json!({}), "`questions` must be a list"),
        (
            json!({"questions": []}),
            "Ask 1 to 4 questions at once, not 0.",
        ),
        (json!({"questions": too_many}), "not 5."),
        (
            json!({"questions": [{"question": "  "}]}),
            "Question 1 has no `question` text.",
        ),
        (
            json!({"questions": [{"question": "q"}, {"question": "x".repeat(501)}]}),
            "Question 2 is longer than 500",
        ),
        (
            json!({"questions": [{"question": "q", "options": "a, b"}]}),
            "must be a list",
        ),
        (
            json!({"questions": [{"question": "q", "options": ["a", ""]}]}),
            "Each option of question 1",
        ),
        (
            json!({"questions": [{"question": "q", "options": (0..9).map(|n| n.to_string()).collect::<Vec<_>>()}]}),
            "more than 8 options",
        ),
    ];
    for (value, said) in cases {
        let error = questions_of(&args(value.clone())).unwrap_err();
        assert!(error.contains(said), "{value}: {error}");
    }
}

#[test]
fn only_a_complete_answer_within_what_each_question_allows_is_sent() {
    let questions = questions_of(&args(json!({"questions": [
        {"question": "One?", "options": ["a", "b"], "allowOther": false},
        {"question": "Several?", "options": ["x", "y", "z"], "multiple": true},
        {"question": "Free?"}
    ]})))
    .unwrap();
    let good = [
        pick(&["a"], ""),
        pick(&["x", "z"], "and w"),
        pick(&[], "mine"),
    ];
    assert_eq!(check_answers(&questions, &good), Ok(()));
    let refusals = [
        (vec![pick(&["a"], ""), pick(&["x"], "")], AnswerError::Count),
        (
            vec![pick(&["a"], ""), pick(&[], "  "), pick(&[], "m")],
            AnswerError::Unanswered(1),
        ),
        (
            vec![pick(&["a", "b"], ""), pick(&["x"], ""), pick(&[], "m")],
            AnswerError::Choice(0),
        ),
        (
            vec![pick(&["c"], ""), pick(&["x"], ""), pick(&[], "m")],
            AnswerError::Choice(0),
        ),
        (
            vec![pick(&["a"], "mine"), pick(&["x"], ""), pick(&[], "m")],
            AnswerError::Other(0),
        ),
        (
            vec![
                pick(&["a"], ""),
                pick(&["x"], ""),
                pick(&[], &"m".repeat(2_001)),
            ],
            AnswerError::Other(2),
        ),
    ];
    for (answers, error) in refusals {
        assert_eq!(
            check_answers(&questions, &answers),
            Err(error),
            "{answers:?}"
        );
    }
}

#[test]
fn the_model_reads_each_question_with_its_answer() {
    let questions = questions_of(&args(json!({"questions": [
        {"question": "Which?", "options": ["a", "b"], "multiple": true},
        {"question": "Why?"}
    ]})))
    .unwrap();
    let answers = [pick(&["a", "b"], ""), pick(&[], "because")];
    assert_eq!(
        answered_result(&questions, &answers),
        "The user answered:\n- Which?\n  → a; b\n- Why?\n  → (in their own words) because"
    );
    let kept = encode_answers(&answers);
    assert_eq!(decode_answers(&kept).unwrap(), answers);
    assert_eq!(decode_answers(""), None);
}

#[test]
fn the_tool_is_offered_once_and_never_over_a_users_tool_of_the_same_name() {
    let mut toolset = Toolset::default();
    offer(&mut toolset);
    offer(&mut toolset);
    assert_eq!(toolset.specs.len(), 1);
    assert_eq!(toolset.targets[ASK_USER_TOOL].plugin_id, ASK_USER_PLUGIN_ID);
    let mut taken = Toolset::default();
    taken.targets.insert(
        ASK_USER_TOOL.into(),
        ToolTarget {
            plugin_id: "mcp:someone".into(),
            ..toolset.targets[ASK_USER_TOOL].clone()
        },
    );
    offer(&mut taken);
    assert!(taken.specs.is_empty());
    assert_eq!(taken.targets[ASK_USER_TOOL].plugin_id, "mcp:someone");
}

#[test]
fn a_waiting_call_is_settled_only_by_a_complete_answer_or_a_refusal_and_survives_a_reload() {
    let mut call = ToolCallRecord {
        name: ASK_USER_TOOL.into(),
        arguments:
            json!({"questions": [{"question": "Tabs or spaces?", "options": ["tabs", "spaces"]}]})
                .to_string(),
        status: ToolCallStatus::AwaitingAnswer,
        ..ToolCallRecord::default()
    };
    // A reload keeps it waiting.
    let reopened = call.clone().reopened();
    assert_eq!(reopened.status, ToolCallStatus::AwaitingAnswer);
    assert!(!reopened.status.is_settled());
    assert!(reopened.model_text().contains("not answered"));
    // Incomplete: refused, still waiting.
    assert_eq!(
        settle(&mut call, Some(&[pick(&[], "")])),
        Err(AnswerError::Unanswered(0))
    );
    assert_eq!(call.status, ToolCallStatus::AwaitingAnswer);
    assert!(call.result.is_empty());
    settle(&mut call, Some(&[pick(&["spaces"], "")])).unwrap();
    assert_eq!(call.status, ToolCallStatus::Done);
    assert!(
        call.model_text().ends_with("→ spaces"),
        "{}",
        call.model_text()
    );
    assert_eq!(
        decode_answers(&call.structured).unwrap(),
        [pick(&["spaces"], "")]
    );
    // Declined: the model reads that, and nothing of an answer.
    let mut declined = reopened;
    settle(&mut declined, None).unwrap();
    assert_eq!(declined.model_text(), DECLINED_RESULT);
    assert!(declined.structured.is_empty());
}
