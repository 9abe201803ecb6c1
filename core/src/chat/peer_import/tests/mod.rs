//! Each app's export, written as the app writes it, read into records; the shared
//! fixtures and checks. What damaged or hostile input does is `robustness`'s.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::*;
use crate::chat::record::{ConversationRecord, MessageRecord, Role};
use crate::chat::tree::MessageTree;

const NOW: f64 = 1_800_000_000_000.0;

fn read(value: &Value) -> Records {
    read_records(&value.to_string(), NOW).expect("reads")
}

/// The conversation titled `title`, and the contents of its active path.
fn path(records: &Records, title: &str) -> (ConversationRecord, Vec<MessageRecord>) {
    let conversation = records
        .archive
        .conversations
        .iter()
        .find(|c| c.title == title)
        .unwrap_or_else(|| panic!("no conversation {title}"))
        .clone();
    let messages: Vec<MessageRecord> = records
        .archive
        .messages
        .iter()
        .filter(|m| m.conversation_id == conversation.id)
        .cloned()
        .collect();
    let nodes: Vec<_> = messages.iter().map(MessageRecord::node).collect();
    let tree = MessageTree::from_records(&nodes, conversation.active_root_id.as_deref());
    let by_id: HashMap<&str, &MessageRecord> =
        messages.iter().map(|m| (m.id.as_str(), m)).collect();
    let active = tree
        .active_path()
        .iter()
        .map(|id| by_id[id.as_str()].clone())
        .collect();
    (conversation, active)
}

fn contents(messages: &[MessageRecord]) -> Vec<&str> {
    messages.iter().map(|m| m.content.as_str()).collect()
}

/// Every reply answers a question and every question follows a reply (or starts), and
/// each child is written after its parent.
fn assert_well_formed(records: &Records) {
    records.archive.check().expect("records fit together");
    let by_id: HashMap<&str, &MessageRecord> = records
        .archive
        .messages
        .iter()
        .map(|m| (m.id.as_str(), m))
        .collect();
    let with_files: HashSet<&str> = records
        .files
        .iter()
        .map(|f| f.message_id.as_str())
        .collect();
    for file in &records.files {
        assert!(by_id.contains_key(file.message_id.as_str()), "{file:?}");
        assert!(crate::stored_file::is_safe_name(&file.attachment_id));
    }
    for message in &records.archive.messages {
        assert!(
            !message.content.trim().is_empty()
                || !message.reasoning.is_empty()
                || with_files.contains(message.id.as_str()),
            "an empty message: {message:?}"
        );
        if let Some(parent) = &message.parent_id {
            let parent = by_id[parent.as_str()];
            assert_ne!(parent.role, message.role, "roles alternate: {message:?}");
            assert!(parent.created_at < message.created_at);
        }
    }
}

fn chatgpt_node(id: &str, parent: Option<&str>, children: &[&str], message: Value) -> Value {
    json!({"id": id, "parent": parent, "children": children, "message": message})
}

fn chatgpt_message(role: &str, at: f64, content: Value) -> Value {
    json!({
        "id": format!("m-{at}"),
        "author": {"role": role, "name": null, "metadata": {}},
        "create_time": at,
        "update_time": null,
        "content": content,
        "status": "finished_successfully",
        "end_turn": true,
        "weight": 1.0,
        "metadata": {"model_slug": if role == "assistant" { "gpt-4o" } else { "" }},
        "recipient": "all",
    })
}

fn text_content(text: &str) -> Value {
    json!({"content_type": "text", "parts": [text]})
}

/// A ChatGPT conversation: a hidden system message, a question asked twice (edited), a
/// reply regenerated, a code run between two parts of a reply, an image, reasoning.
fn chatgpt_conversation() -> Value {
    let mut hidden = chatgpt_message("system", 1.0, text_content(""));
    hidden["metadata"]["is_visually_hidden_from_conversation"] = json!(true);
    let mut call = chatgpt_message(
        "assistant",
        1_700_000_006.0,
        json!({"content_type": "code", "language": "unknown", "text": "2+2"}),
    );
    call["recipient"] = json!("python");
    let run = chatgpt_message(
        "tool",
        1_700_000_007.0,
        json!({"content_type": "execution_output", "text": "4"}),
    );
    let mut thinking = chatgpt_message(
        "assistant",
        1_700_000_005.0,
        json!({"content_type": "thoughts", "thoughts": [{"summary": "Adding", "content": "Two and two."}]}),
    );
    thinking["metadata"]["model_slug"] = json!("o3");
    let mapping = json!({
        "root": chatgpt_node("root", None, &["sys"], Value::Null),
        "sys": chatgpt_node("sys", Some("root"), &["u1", "u1b"], hidden),
        "u1": chatgpt_node("u1", Some("sys"), &["a1", "a2"], chatgpt_message("user", 1_700_000_001.0, json!({
            "content_type": "multimodal_text",
            "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-1"}, "What is this?"]
        }))),
        "u1b": chatgpt_node("u1b", Some("sys"), &[], chatgpt_message("user", 1_700_000_009.0, text_content("What is that?"))),
        "a1": chatgpt_node("a1", Some("u1"), &["u2"], chatgpt_message("assistant", 1_700_000_002.0, text_content("A cat \u{e200}cite\u{e202}turn0search0\u{e201}."))),
        "a2": chatgpt_node("a2", Some("u1"), &[], chatgpt_message("assistant", 1_700_000_003.0, text_content("A dog."))),
        "u2": chatgpt_node("u2", Some("a1"), &["t"], chatgpt_message("user", 1_700_000_004.0, text_content("And 2+2?"))),
        "t": chatgpt_node("t", Some("u2"), &["c"], thinking),
        "c": chatgpt_node("c", Some("t"), &["r"], call),
        "r": chatgpt_node("r", Some("c"), &["a3"], run),
        "a3": chatgpt_node("a3", Some("r"), &[], chatgpt_message("assistant", 1_700_000_008.0, text_content("It is 4."))),
    });
    json!({
        "title": "Pets and sums",
        "create_time": 1_700_000_000.0,
        "update_time": 1_700_000_010.0,
        "mapping": mapping,
        "current_node": "a3",
        "conversation_id": "conv-1",
        "id": "conv-1",
        "default_model_slug": "gpt-4o",
        "is_archived": false,
    })
}

#[test]
fn a_chatgpt_export_keeps_its_branches_and_the_path_that_was_shown() {
    let records = read(&json!([chatgpt_conversation()]));
    assert_well_formed(&records);
    let report = records.from.clone().expect("from another app");
    assert_eq!(report.source, Source::ChatGpt);
    let (conversation, active) = path(&records, "Pets and sums");
    assert!(conversation.title_by_user);
    assert_eq!(conversation.created_at, 1_700_000_000_000.0);
    assert_eq!(conversation.updated_at, 1_700_000_010_000.0);
    assert_eq!(
        contents(&active),
        ["What is this?", "A cat .", "And 2+2?", "It is 4."]
    );
    // The thinking, the call and the result are one reply, with the reasoning kept.
    let answer = &active[3];
    assert_eq!(answer.reasoning, "**Adding**\n\nTwo and two.");
    assert_eq!(answer.model.as_deref(), Some("gpt-4o"));
    assert_eq!(answer.role, Some(Role::Assistant));
    assert_eq!(active[0].model, None);
    // Both branches are there: the edited question and the regenerated reply.
    let all: Vec<&str> = records
        .archive
        .messages
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert!(all.contains(&"What is that?") && all.contains(&"A dog."));
    assert_eq!(records.archive.messages.len(), 6);
    assert_eq!(records.archive.conversations.len(), 1);
    // What was left out is counted; the image is the question's file, found later.
    assert_eq!(report.omitted.count(Omission::Images), 0);
    assert_eq!(report.omitted.count(Omission::ToolCalls), 2);
    assert_eq!(records.files.len(), 1);
    assert_eq!(records.files[0].message_id, active[0].id);
    assert_eq!(records.files[0].file.pointer, "file-1");
    assert!(records.files[0].file.image);
    assert_eq!(report.omitted.count(Omission::SystemPrompts), 0);
}

#[test]
fn the_same_export_read_twice_gives_the_same_ids() {
    let file = json!([chatgpt_conversation()]);
    let (first, second) = (read(&file), read(&file));
    assert_eq!(first.archive.conversations, second.archive.conversations);
    assert_eq!(first.archive.messages, second.archive.messages);
    // An id is UUID-shaped, and another app's conversation with the same id differs.
    let id = &first.archive.conversations[0].id;
    assert_eq!(id.len(), 36);
    assert_eq!(&id[14..15], "8");
    assert_ne!(
        build::derived_id(Source::ChatGpt, &["conv-1"]),
        build::derived_id(Source::Claude, &["conv-1"])
    );
    // Importing it again writes nothing.
    let stored: HashMap<String, (u64, f64)> = first
        .archive
        .messages
        .iter()
        .map(|m| (m.id.clone(), (m.rev, m.updated_at)))
        .collect();
    let plan = second.archive.plan(&first.archive.conversations, &stored);
    assert!(plan.conversations.is_empty() && plan.messages.is_empty());
}

#[test]
fn an_older_chatgpt_export_without_ids_still_reads() {
    let mut old = chatgpt_conversation();
    let object = old.as_object_mut().unwrap();
    object.remove("conversation_id");
    object.remove("id");
    object.remove("default_model_slug");
    let records = read(&json!([old.clone(), old]));
    assert_well_formed(&records);
    // Two copies of one conversation are two conversations, not a refused file.
    assert_eq!(records.archive.conversations.len(), 2);
    assert_eq!(records.archive.messages.len(), 12);
}

#[test]
fn a_claude_export_reads_blocks_thinking_and_branches() {
    let linear = json!({
        "uuid": "c-1",
        "name": "Trip plan",
        "created_at": "2024-06-01T10:00:00.000000Z",
        "updated_at": "2024-06-01T10:05:00.000000Z",
        "account": {"uuid": "acct"},
        "chat_messages": [
            {"uuid": "m1", "text": "Plan a trip", "sender": "human", "created_at": "2024-06-01T10:00:01Z",
             "content": [{"type": "text", "text": "Plan a trip"}],
             "attachments": [{"file_name": "notes.txt", "extracted_content": "beach"}], "files": []},
            {"uuid": "m2", "text": "", "sender": "assistant", "created_at": "2024-06-01T10:00:05Z",
             "content": [
                {"type": "thinking", "thinking": "Where to?"},
                {"type": "tool_use", "name": "web_search", "input": {}},
                {"type": "tool_result", "content": []},
                {"type": "text", "text": "Go to the coast."}
             ], "attachments": [], "files": []},
        ]
    });
    let tree = json!({
        "uuid": "c-2",
        "name": "",
        "created_at": "2024-06-02T10:00:00Z",
        "updated_at": "2024-06-02T10:00:00Z",
        "current_leaf_message_uuid": "r1",
        "chat_messages": [
            {"uuid": "q", "text": "Name a colour", "sender": "human", "created_at": "2024-06-02T10:00:01Z",
             "parent_message_uuid": "00000000-0000-4000-8000-000000000000"},
            {"uuid": "r1", "text": "Blue", "sender": "assistant", "created_at": "2024-06-02T10:00:02Z", "parent_message_uuid": "q"},
            {"uuid": "r2", "text": "Red", "sender": "assistant", "created_at": "2024-06-02T10:00:03Z", "parent_message_uuid": "q"},
        ]
    });
    let records = read(&json!([linear, tree]));
    assert_well_formed(&records);
    let report = records.from.clone().unwrap();
    assert_eq!(report.source, Source::Claude);
    let (trip, active) = path(&records, "Trip plan");
    assert_eq!(contents(&active), ["Plan a trip", "Go to the coast."]);
    assert_eq!(active[1].reasoning, "Where to?");
    assert_eq!(trip.created_at, 1_717_236_000_000.0);
    // The attachment comes with the text the export holds; `files` hold only names.
    assert_eq!(report.omitted.count(Omission::Files), 0);
    assert_eq!(report.omitted.count(Omission::ToolCalls), 2);
    assert_eq!(records.files.len(), 1);
    assert_eq!(records.files[0].message_id, active[0].id);
    assert_eq!(records.files[0].file.name, "notes.txt");
    assert_eq!(records.files[0].file.text.as_deref(), Some("beach"));
    // Untitled: named from its first exchange; the branch the export showed is active.
    let untitled = records
        .archive
        .conversations
        .iter()
        .find(|c| c.title != "Trip plan")
        .unwrap()
        .title
        .clone();
    assert!(!untitled.is_empty());
    let (named, active) = path(&records, &untitled);
    assert!(!named.title_by_user);
    assert_eq!(contents(&active), ["Name a colour", "Blue"]);
}

#[test]
fn an_open_webui_export_keeps_each_models_reply_and_its_reasoning() {
    let chat = json!({
        "id": "owui-1",
        "user_id": "u",
        "title": "Compare",
        "created_at": 1_710_000_000,
        "updated_at": 1_710_000_100,
        "pinned": true,
        "archived": false,
        "chat": {
            "id": "",
            "title": "Compare",
            "models": ["llama3", "qwen"],
            "system": "Be terse.",
            "history": {
                "currentId": "b",
                "messages": {
                    "q": {"id": "q", "parentId": null, "childrenIds": ["a", "b"], "role": "user",
                          "content": "Why is the sky blue?", "timestamp": 1_710_000_001,
                          "files": [{"type": "image", "url": "data:image/png;base64,AAAA"}]},
                    "a": {"id": "a", "parentId": "q", "childrenIds": [], "role": "assistant",
                          "content": "<details type=\"reasoning\" done=\"true\" duration=\"2\">\n<summary>Thought for 2 seconds</summary>\n> Light scatters.\n</details>\nRayleigh scattering.",
                          "model": "llama3", "timestamp": 1_710_000_002},
                    "b": {"id": "b", "parentId": "q", "childrenIds": [], "role": "assistant",
                          "content": "<details type=\"tool_calls\" done=\"true\" content=\"[]\">\n<summary>Tool Executed</summary>\n</details>\nBecause of scattering.",
                          "model": "qwen", "timestamp": 1_710_000_003, "sources": [{"source": {}}]}
                }
            },
            "messages": []
        }
    });
    let records = read(&json!([chat]));
    assert_well_formed(&records);
    let report = records.from.clone().unwrap();
    assert_eq!(report.source, Source::OpenWebUi);
    let (conversation, active) = path(&records, "Compare");
    assert!(conversation.pinned);
    assert_eq!(
        contents(&active),
        ["Why is the sky blue?", "Because of scattering."]
    );
    assert_eq!(active[1].model.as_deref(), Some("qwen"));
    let other = records
        .archive
        .messages
        .iter()
        .find(|m| m.content == "Rayleigh scattering.")
        .expect("the other model's reply is a branch");
    assert_eq!(other.reasoning, "Light scatters.");
    assert_eq!(report.omitted.count(Omission::Images), 1);
    assert_eq!(report.omitted.count(Omission::ToolCalls), 1);
    assert_eq!(report.omitted.count(Omission::SystemPrompts), 1);
    assert_eq!(report.omitted.count(Omission::WebResults), 1);
    // One chat exported on its own reads the same.
    let alone = read(&chat_alone());
    assert_eq!(alone.archive.messages.len(), 2);
}

fn chat_alone() -> Value {
    json!({
        "id": "solo", "title": "Solo",
        "models": ["llama3"],
        "messages": [
            {"id": "1", "role": "user", "content": "hello", "timestamp": 1_710_000_001},
            {"id": "2", "role": "assistant", "content": "hi", "timestamp": 1_710_000_002}
        ],
        "history": {"currentId": "2", "messages": {
            "1": {"id": "1", "parentId": null, "childrenIds": ["2"], "role": "user", "content": "hello", "timestamp": 1_710_000_001},
            "2": {"id": "2", "parentId": "1", "childrenIds": [], "role": "assistant", "content": "hi", "timestamp": 1_710_000_002}
        }}
    })
}

#[test]
fn a_lobechat_config_file_reads_topics_and_an_agents_loose_messages() {
    let file = json!({
        "exportType": "all",
        "version": 7,
        "state": {
            "sessions": [{"id": "s1", "type": "agent", "meta": {"title": "Translator"},
                          "config": {"systemRole": "Translate to French.", "model": "gpt-4o-mini"},
                          "createdAt": 1_700_000_000_000u64, "updatedAt": 1_700_000_000_000u64}],
            "topics": [{"id": "t1", "title": "Greetings", "sessionId": "s1", "favorite": true,
                        "createdAt": 1_700_000_100_000u64, "updatedAt": 1_700_000_200_000u64}],
            "messages": [
                {"id": "m1", "role": "user", "content": "Hello", "sessionId": "s1", "topicId": "t1", "createdAt": 1_700_000_100_001u64},
                {"id": "m2", "role": "assistant", "content": "", "sessionId": "s1", "topicId": "t1", "parentId": "m1",
                 "tools": [{"id": "call", "apiName": "search"}], "createdAt": 1_700_000_100_002u64},
                {"id": "m3", "role": "tool", "content": "{}", "sessionId": "s1", "topicId": "t1", "parentId": "m2", "createdAt": 1_700_000_100_003u64},
                {"id": "m4", "role": "assistant", "content": "Bonjour", "sessionId": "s1", "topicId": "t1", "parentId": "m3",
                 "reasoning": {"content": "Simple."}, "extra": {"fromModel": "gpt-4o-mini"}, "createdAt": 1_700_000_100_004u64},
                {"id": "m5", "role": "user", "content": "Thanks", "sessionId": "s1", "createdAt": 1_700_000_300_000u64,
                 "imageList": [{"id": "img"}]},
                {"id": "m6", "role": "assistant", "content": "Merci", "sessionId": "s1", "parentId": "m5", "createdAt": 1_700_000_300_001u64}
            ],
            "settings": {"keyVaults": {"openai": {"apiKey": "sk-lobe-secret"}}}
        }
    });
    let records = read(&file);
    assert_well_formed(&records);
    assert!(
        !serde_json::to_string(&records.archive)
            .unwrap()
            .contains("sk-lobe-secret")
    );
    let report = records.from.clone().unwrap();
    assert_eq!(report.source, Source::LobeChat);
    let (topic, active) = path(&records, "Greetings");
    assert!(topic.pinned);
    assert_eq!(contents(&active), ["Hello", "Bonjour"]);
    assert_eq!(active[1].reasoning, "Simple.");
    assert_eq!(active[1].model.as_deref(), Some("gpt-4o-mini"));
    let (_, loose) = path(&records, "Translator");
    assert_eq!(contents(&loose), ["Thanks", "Merci"]);
    assert_eq!(report.omitted.count(Omission::ToolCalls), 1);
    assert_eq!(report.omitted.count(Omission::SystemPrompts), 1);
    assert_eq!(report.omitted.count(Omission::Images), 1);
    assert_eq!(report.omitted.count(Omission::Settings), 1);
}

#[test]
fn a_lobechat_database_export_reads_the_same_tables() {
    let file = json!({
        "mode": "pglite",
        "schemaHash": "abc",
        "data": {
            "sessions": [{"id": "s1", "title": "Coder"}],
            "topics": [{"id": "t1", "title": "Rust help", "sessionId": "s1", "createdAt": "2025-01-01T00:00:00.000Z", "updatedAt": "2025-01-01T00:10:00.000Z"}],
            "messages": [
                {"id": "m1", "role": "user", "content": "Borrow checker?", "topicId": "t1", "sessionId": "s1", "createdAt": "2025-01-01T00:00:01.000Z"},
                {"id": "m2", "role": "assistant", "content": "It checks lifetimes.", "model": "claude", "topicId": "t1", "sessionId": "s1",
                 "parentId": "m1", "createdAt": "2025-01-01T00:00:02.000Z"}
            ],
            "messagePlugins": []
        }
    });
    let records = read(&file);
    assert_well_formed(&records);
    let (topic, active) = path(&records, "Rust help");
    assert_eq!(
        contents(&active),
        ["Borrow checker?", "It checks lifetimes."]
    );
    assert_eq!(topic.updated_at, 1_735_690_200_000.0);
}

#[test]
fn a_nextchat_backup_imports_chats_and_never_its_keys() {
    let file = json!({
        "chat-next-web-store": {
            "sessions": [
                {"id": "n1", "topic": "New Conversation", "memoryPrompt": "", "lastUpdate": 1_720_000_000_000u64,
                 "mask": {"name": "Default", "context": [{"role": "system", "content": "You are helpful."}]},
                 "messages": [
                    {"id": "x1", "role": "user", "content": "How do magnets work?", "date": "7/3/2024, 10:00:00 AM"},
                    {"id": "x2", "role": "assistant", "content": "Aligned electron spins.", "date": "7/3/2024, 10:00:05 AM", "model": "gpt-4o"},
                    {"id": "x3", "role": "user", "content": [{"type": "text", "text": "And this?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}], "date": ""}
                 ]},
                {"id": "n2", "topic": "Empty", "messages": [], "lastUpdate": 1_720_000_000_000u64}
            ],
            "currentSessionIndex": 0
        },
        "access-control": {"openaiApiKey": "sk-nextchat-secret", "accessCode": "hunter2"},
        "app-config": {"theme": "dark"}
    });
    let records = read(&file);
    assert_well_formed(&records);
    let json = serde_json::to_string(&records.archive).unwrap();
    assert!(!json.contains("sk-nextchat-secret") && !json.contains("hunter2"));
    let report = records.from.clone().unwrap();
    assert_eq!(report.source, Source::NextChat);
    assert_eq!(report.omitted.count(Omission::Settings), 1);
    assert_eq!(report.omitted.count(Omission::Images), 1);
    assert_eq!(report.omitted.count(Omission::SystemPrompts), 1);
    // The empty chat is not imported; the unnamed one is named from its first exchange.
    assert_eq!(records.archive.conversations.len(), 1);
    let conversation = &records.archive.conversations[0];
    assert_ne!(conversation.title, "New Conversation");
    assert!(!conversation.title.is_empty());
    let (_, active) = path(&records, &conversation.title.clone());
    assert_eq!(
        contents(&active),
        [
            "How do magnets work?",
            "Aligned electron spins.",
            "And this?"
        ]
    );
    assert_eq!(conversation.updated_at, 1_720_000_000_000.0);
}

mod robustness;

/// A ChatGPT conversation with an image sent alone, a document, and an image the model
/// generated through its image tool.
fn chatgpt_with_files() -> Value {
    let mut photo = chatgpt_message(
        "user",
        1_700_000_001.0,
        json!({"content_type": "multimodal_text", "parts": [
            {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-Photo", "width": 800, "height": 600}
        ]}),
    );
    photo["metadata"]["attachments"] = json!([
        {"id": "file-Photo", "name": "beach.jpg", "mime_type": "image/jpeg"},
        {"id": "file-Doc", "name": "plan.pdf", "mime_type": "application/pdf"}
    ]);
    let mut call = chatgpt_message(
        "assistant",
        1_700_000_003.0,
        json!({"content_type": "text", "parts": ["{\"prompt\": \"a beach\"}"]}),
    );
    call["recipient"] = json!("dalle.text2im");
    let generated = chatgpt_message(
        "tool",
        1_700_000_004.0,
        json!({"content_type": "multimodal_text", "parts": [
            {"content_type": "image_asset_pointer", "asset_pointer": "sediment://file_00000000aa11?x=1", "metadata": {"dalle": {"prompt": "a beach"}}}
        ]}),
    );
    let mapping = json!({
        "u1": chatgpt_node("u1", None, &["a1"], photo),
        "a1": chatgpt_node("a1", Some("u1"), &["u2"], chatgpt_message("assistant", 1_700_000_002.0, text_content("A beach."))),
        "u2": chatgpt_node("u2", Some("a1"), &["c"], chatgpt_message("user", 1_700_000_002.5, text_content("Draw one."))),
        "c": chatgpt_node("c", Some("u2"), &["g"], call),
        "g": chatgpt_node("g", Some("c"), &["a2"], generated),
        "a2": chatgpt_node("a2", Some("g"), &[], chatgpt_message("assistant", 1_700_000_005.0, text_content("Here it is."))),
    });
    json!({"title": "Beach", "create_time": 1_700_000_000.0, "mapping": mapping,
           "current_node": "a2", "conversation_id": "conv-files"})
}

#[test]
fn chatgpt_images_and_files_travel_with_their_messages() {
    let records = read(&json!([chatgpt_with_files()]));
    let (_, active) = path(&records, "Beach");
    // The image sent alone is a question with no text; the generated image joins the
    // reply written after it.
    assert_eq!(
        contents(&active),
        ["", "A beach.", "Draw one.", "Here it is."]
    );
    let carried: Vec<(&str, &str, &str, bool)> = records
        .files
        .iter()
        .map(|f| {
            (
                f.message_id.as_str(),
                f.file.pointer.as_str(),
                f.file.name.as_str(),
                f.file.image,
            )
        })
        .collect();
    assert_eq!(
        carried,
        [
            (active[0].id.as_str(), "file-Photo", "beach.jpg", true),
            (active[0].id.as_str(), "file-Doc", "plan.pdf", false),
            (active[3].id.as_str(), "file_00000000aa11", "", true),
        ]
    );
    let report = records.from.clone().unwrap();
    assert_eq!(report.omitted.count(Omission::Images), 0);
    assert_eq!(report.omitted.count(Omission::ToolCalls), 1);
    // Attachment ids are safe file names, distinct, and the same on a second read.
    let ids: Vec<&str> = records
        .files
        .iter()
        .map(|f| f.attachment_id.as_str())
        .collect();
    assert!(ids.iter().all(|id| crate::stored_file::is_safe_name(id)));
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
    assert_eq!(read(&json!([chatgpt_with_files()])).files, records.files);
    records.archive.check().expect("records fit together");
}
