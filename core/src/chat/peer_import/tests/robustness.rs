//! Damaged and hostile input: a damaged conversation among good ones, parent loops, a
//! chain thousands deep, every field missing or of another type, files of no format,
//! and where a ZIP keeps its conversations.

use serde_json::{Value, json};

use super::*;

#[test]
fn a_damaged_conversation_is_counted_and_the_others_come_in() {
    let damaged = json!({"title": "Broken", "create_time": 1.0, "mapping": {"x": 5, "y": {"message": {"author": 3}}}});
    let records = read(&json!([chatgpt_conversation(), damaged, 7]));
    assert_well_formed(&records);
    assert_eq!(records.archive.conversations.len(), 1);
    let report = records.from.unwrap();
    // The list's stray number is damaged; the conversation with no readable message has
    // nothing to show, so it is not imported.
    assert_eq!(report.omitted.count(Omission::Damaged), 1);
}

#[test]
fn parents_that_loop_and_chains_thousands_deep_are_read() {
    let mut mapping = serde_json::Map::new();
    mapping.insert(
        "a".into(),
        chatgpt_node(
            "a",
            Some("b"),
            &["b"],
            chatgpt_message("user", 10.0, text_content("one")),
        ),
    );
    mapping.insert(
        "b".into(),
        chatgpt_node(
            "b",
            Some("a"),
            &["a"],
            chatgpt_message("assistant", 11.0, text_content("two")),
        ),
    );
    let looped = json!({"title": "Loop", "create_time": 1.0, "mapping": mapping, "current_node": "b", "id": "loop"});
    let mut deep = serde_json::Map::new();
    let depth = 20_000;
    for i in 0..depth {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let parent = (i > 0).then(|| format!("n{}", i - 1));
        deep.insert(
            format!("n{i}"),
            chatgpt_node(
                &format!("n{i}"),
                parent.as_deref(),
                &[],
                chatgpt_message(
                    role,
                    1_700_000_000.0 + f64::from(i),
                    text_content(&format!("step {i}")),
                ),
            ),
        );
    }
    let deep = json!({"title": "Deep", "create_time": 1.0, "mapping": deep, "current_node": format!("n{}", depth - 1), "id": "deep"});
    let records = read(&json!([looped, deep]));
    assert_well_formed(&records);
    let (_, looped_path) = path(&records, "Loop");
    assert_eq!(looped_path.len(), 2);
    let (_, deep_path) = path(&records, "Deep");
    assert_eq!(deep_path.len(), depth as usize);
    assert_eq!(
        deep_path.last().unwrap().content,
        format!("step {}", depth - 1)
    );
}

#[test]
fn a_hearth_export_is_read_as_one_and_anything_else_is_refused() {
    let archive = Archive::new(Vec::new(), Vec::new(), None, Vec::new(), NOW);
    let records = read_records(&serde_json::to_string(&archive).unwrap(), NOW).unwrap();
    assert_eq!(records.from, None);
    assert_eq!(records.archive, archive);
    for other in [
        json!({}),
        json!([]),
        json!([1, 2]),
        json!({"conversations": []}),
        json!({"state": {"messages": []}}),
        json!("text"),
    ] {
        assert_eq!(
            read_records(&other.to_string(), NOW),
            Err(ArchiveError::NotAnExport),
            "{other}"
        );
    }
    assert_eq!(read_records("not json", NOW), Err(ArchiveError::NotJson));
    assert_eq!(
        read_records(r#"{"format":"hearth-export","version":9}"#, NOW),
        Err(ArchiveError::NewerVersion(9))
    );
}

#[test]
fn what_is_left_out_is_counted_by_kind() {
    let mut omitted = Omitted::default();
    assert!(omitted.is_empty());
    omitted.add(Omission::Files, 2);
    omitted.add(Omission::Images, 0);
    omitted.add(Omission::Files, 1);
    omitted.add(Omission::Images, 4);
    assert_eq!(
        omitted.kinds(),
        [(Omission::Images, 4), (Omission::Files, 3)]
    );
    assert_eq!(omitted.count(Omission::ToolCalls), 0);
}

/// Every copy of `value` with one field removed or given another type.
fn damaged_copies(value: &Value) -> Vec<Value> {
    fn walk(value: &Value, rebuild: &dyn Fn(Value) -> Value, out: &mut Vec<Value>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let mut without = map.clone();
                    without.remove(key);
                    out.push(rebuild(Value::Object(without)));
                    for other in [Value::Null, json!(7), json!("x"), json!([]), json!({})] {
                        let mut changed = map.clone();
                        changed.insert(key.clone(), other);
                        out.push(rebuild(Value::Object(changed)));
                    }
                    let (map, key) = (map.clone(), key.clone());
                    walk(
                        child,
                        &move |replaced| {
                            let mut map = map.clone();
                            map.insert(key.clone(), replaced);
                            rebuild(Value::Object(map))
                        },
                        out,
                    );
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    let items = items.clone();
                    walk(
                        child,
                        &move |replaced| {
                            let mut items = items.clone();
                            items[i] = replaced;
                            rebuild(Value::Array(items))
                        },
                        out,
                    );
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &|v| v, &mut out);
    out
}

#[test]
fn a_field_missing_or_of_another_type_anywhere_never_breaks_a_read() {
    let exports = [
        json!([chatgpt_conversation()]),
        json!([chatgpt_with_files()]),
        chat_alone(),
        json!({"chat-next-web-store": {"sessions": [{"id": "n", "topic": "T", "lastUpdate": 5,
            "messages": [{"id": "a", "role": "user", "content": "q"}, {"id": "b", "role": "assistant", "content": "r"}]}]}}),
        json!({"exportType": "sessions", "state": {"sessions": [{"id": "s", "meta": {"title": "S"}}],
            "topics": [{"id": "t", "title": "T", "sessionId": "s"}],
            "messages": [{"id": "a", "role": "user", "content": "q", "sessionId": "s", "topicId": "t", "createdAt": 1},
                         {"id": "b", "role": "assistant", "content": "r", "sessionId": "s", "topicId": "t", "parentId": "a", "createdAt": 2}]}}),
        json!([{"uuid": "c", "name": "N", "chat_messages": [
            {"uuid": "a", "sender": "human", "text": "q", "content": [{"type": "text", "text": "q"}],
             "attachments": [{"file_name": "n.txt", "extracted_content": "notes"}], "files": [{"file_name": "p.png"}]},
            {"uuid": "b", "sender": "assistant", "text": "r", "parent_message_uuid": "a"}]}]),
    ];
    let mut reads = 0;
    for export in exports {
        for copy in damaged_copies(&export) {
            match read_records(&copy.to_string(), NOW) {
                Ok(records) => assert_well_formed(&records),
                Err(error) => assert!(
                    matches!(error, ArchiveError::NotAnExport),
                    "{error:?} for {copy}"
                ),
            }
            reads += 1;
        }
    }
    assert!(reads > 500, "{reads}");
}

#[test]
fn the_conversations_of_a_zip_export_are_found_at_its_shallowest() {
    use crate::zip_store::{self, DosTime};
    let file = zip_store::write_all(
        &[
            ("chat.html", b"<html>"),
            ("deep/more/conversations.json", b"[]"),
            ("export/conversations.json", b"[1]"),
            ("user.json", b"{}"),
        ],
        DosTime::from_unix_ms(NOW),
    )
    .unwrap();
    let len = file.len() as u64;
    let at = zip_store::find_directory(&file, len).unwrap();
    let entries = zip_store::read_foreign_directory(
        &file[at.range.start as usize..at.range.end as usize],
        &at,
    )
    .unwrap();
    assert_eq!(
        conversations_entry(&entries).unwrap().name,
        "export/conversations.json"
    );
    assert_eq!(
        conversations_entry(&entries[..1]),
        Err(ArchiveError::NotAnExport)
    );
    let mut huge = entries[2].clone();
    huge.size = MAX_ARCHIVE_BYTES as u64 + 1;
    assert_eq!(
        conversations_entry(&[huge]),
        Err(ArchiveError::TooLarge(MAX_ARCHIVE_BYTES + 1))
    );
}
