use super::*;

fn kinds(body: &str) -> Vec<(String, VariableKind)> {
    parse(body)
        .unwrap()
        .variables
        .into_iter()
        .map(|v| (v.name, v.kind))
        .collect()
}

fn values(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| v.to_string()).collect()
}

#[test]
fn every_kind_is_read_in_order_of_first_appearance() {
    let body = "Write to {{ who }} in {{lang:choice: French | German|日本語}} by {{due:date}}.\n\
                Budget {{amount:number}}. {{who}} again.\n{{notes:paragraph}} {{title:text}} {{言語}}";
    assert_eq!(
        kinds(body),
        vec![
            ("who".into(), VariableKind::Text),
            (
                "lang".into(),
                VariableKind::Choice(vec!["French".into(), "German".into(), "日本語".into()])
            ),
            ("due".into(), VariableKind::Date),
            ("amount".into(), VariableKind::Number),
            ("notes".into(), VariableKind::Paragraph),
            ("title".into(), VariableKind::Text),
            ("言語".into(), VariableKind::Text),
        ]
    );
    assert!(kinds("No variables at all, just } and { braces.").is_empty());
}

#[test]
fn filling_replaces_every_use_and_keeps_the_rest_verbatim() {
    let parsed = parse("Dear {{name}},\n\n{{body:paragraph}}\n\n— {{name}} \\{{literal}}").unwrap();
    let filled = parsed
        .fill(&values(&[" Ada ", "line one\nline two"]))
        .unwrap();
    assert_eq!(
        filled,
        "Dear Ada,\n\nline one\nline two\n\n— Ada {{literal}}"
    );
    // A template without variables is its text.
    assert_eq!(parse("Just text").unwrap().fill(&[]).unwrap(), "Just text");
}

#[test]
fn every_value_that_does_not_fit_is_reported_by_variable() {
    let parsed = parse(
        "{{a}} {{b:number}} {{c:date}} {{d:choice:x|y}} {{e:paragraph}} {{f:text}} {{g:number}}",
    )
    .unwrap();
    let long = "z".repeat(MAX_VALUE_CHARS + 1);
    let problems = parsed
        .fill(&values(&[
            "two\nlines",
            "12abc",
            "2025-02-29",
            "z",
            "  ",
            &long,
            "1e3",
        ]))
        .unwrap_err();
    assert_eq!(
        problems,
        vec![
            (0, ValueProblem::LineBreak),
            (1, ValueProblem::NotANumber),
            (2, ValueProblem::NotADate),
            (3, ValueProblem::NotAnOption),
            (4, ValueProblem::Missing),
            (5, ValueProblem::TooLong),
        ]
    );
    // Fewer values than variables: the rest are missing.
    assert_eq!(
        parse("{{a}} {{b}}").unwrap().fill(&values(&["x"])),
        Err(vec![(1, ValueProblem::Missing)])
    );
}

#[test]
fn dates_are_real_calendar_days() {
    for good in ["2024-02-29", "2000-02-29", "1999-12-31", "2026-01-01"] {
        assert_eq!(check(&VariableKind::Date, good), Ok(()), "{good}");
    }
    for bad in [
        "2023-02-29",
        "1900-02-29",
        "2026-13-01",
        "2026-00-10",
        "2026-04-31",
        "2026-4-1",
        "26-04-01",
        "2026/04/01",
        "２０２６-04-01",
        "+026-04-01",
    ] {
        assert_eq!(
            check(&VariableKind::Date, bad),
            Err(ValueProblem::NotADate),
            "{bad}"
        );
    }
}

#[test]
fn numbers_are_finite() {
    for good in ["0", "-1.5", " 42 ", "1e3"] {
        assert_eq!(check(&VariableKind::Number, good), Ok(()), "{good}");
    }
    for bad in ["NaN", "inf", "1,5", "one", "1e999"] {
        assert_eq!(
            check(&VariableKind::Number, bad),
            Err(ValueProblem::NotANumber),
            "{bad}"
        );
    }
}

#[test]
fn a_malformed_template_says_what_and_where() {
    let cases: Vec<(String, TemplateError)> = vec![
        ("".into(), TemplateError::Empty),
        (" \n ".into(), TemplateError::Empty),
        ("x".repeat(MAX_BODY_CHARS + 1), TemplateError::TooLong),
        ("a\nb {{name".into(), TemplateError::Unclosed { line: 2 }),
        ("{{na\nme}}".into(), TemplateError::Unclosed { line: 1 }),
        (
            "{{}}".into(),
            TemplateError::BadName {
                line: 1,
                text: String::new(),
            },
        ),
        (
            "x\n\n{{a|b}}".into(),
            TemplateError::BadName {
                line: 3,
                text: "a|b".into(),
            },
        ),
        (
            format!("{{{{{}}}}}", "n".repeat(MAX_NAME_CHARS + 1)),
            TemplateError::BadName {
                line: 1,
                text: "n".repeat(MAX_NAME_CHARS + 1),
            },
        ),
        (
            "{{a:colour}}".into(),
            TemplateError::UnknownKind {
                line: 1,
                kind: "colour".into(),
            },
        ),
        (
            "{{a:choice:}}".into(),
            TemplateError::BadChoice { name: "a".into() },
        ),
        (
            "{{a:choice:x||y}}".into(),
            TemplateError::BadChoice { name: "a".into() },
        ),
        (
            "{{a:choice:x|x}}".into(),
            TemplateError::BadChoice { name: "a".into() },
        ),
        (
            "{{a}} {{a:number}}".into(),
            TemplateError::KindChanged { name: "a".into() },
        ),
    ];
    for (body, error) in cases {
        assert_eq!(parse(&body), Err(error), "{body:?}");
    }
    let too_many: String = (0..=MAX_VARIABLES)
        .map(|i| format!("{{{{v{i}}}}}"))
        .collect();
    assert_eq!(parse(&too_many), Err(TemplateError::TooManyVariables));
    let most: String = (0..MAX_VARIABLES)
        .map(|i| format!("{{{{v{i}}}}} {{{{v{i}}}}}"))
        .collect();
    assert_eq!(parse(&most).unwrap().variables.len(), MAX_VARIABLES);
    let options = (0..=MAX_CHOICES)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("|");
    assert_eq!(
        parse(&format!("{{{{a:choice:{options}}}}}")),
        Err(TemplateError::BadChoice { name: "a".into() })
    );
}

#[test]
fn a_value_is_never_read_as_a_variable() {
    // What the user types is inserted as it is: braces in a value stay braces.
    let parsed = parse("Q: {{q:paragraph}}").unwrap();
    assert_eq!(
        parsed.fill(&values(&["{{q}} and {{other}}"])).unwrap(),
        "Q: {{q}} and {{other}}"
    );
}
