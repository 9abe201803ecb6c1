//! Claude's `conversations.json`: a list of conversations (`uuid`, `name`,
//! `chat_messages`). Messages carry `sender` (`human` or `assistant`), `text` and, in
//! newer exports, typed `content` blocks and `parent_message_uuid`; without parents the
//! list is the conversation in order.
//!
//! Shown: text blocks (or the message's `text`) and thinking blocks (as reasoning).
//! Carried as attachments: `attachments` with the text Claude extracted from them (the
//! export holds that, not their bytes). Not shown, and counted: tool use and results,
//! images, attachments without text, and `files` (the export holds only their names).

use std::collections::HashSet;

use serde_json::Value;

use super::build::{SourceConversation, SourceMessage};
use super::files::SourceFile;
use super::{Omission, Omitted, items, read_each, text, time};
use crate::chat::record::Role;

/// Whether `item` is one of Claude's conversations.
pub fn recognise(item: &Value) -> bool {
    item.get("chat_messages").is_some_and(Value::is_array) && item.get("uuid").is_some()
}

/// Every conversation of the export.
pub fn read(value: &Value, omitted: &mut Omitted) -> Vec<SourceConversation> {
    read_each(items(value), omitted, conversation)
}

fn conversation(item: &Value, omitted: &mut Omitted) -> Option<SourceConversation> {
    let list = item.get("chat_messages")?.as_array()?;
    let id = item.get("uuid")?.as_str()?.to_string();
    let ids: HashSet<&str> = list.iter().map(|m| text(m, "uuid")).collect();
    // Parents are used when the export has them; otherwise each message follows the one
    // before it.
    let has_tree = list
        .iter()
        .any(|m| ids.contains(text(m, "parent_message_uuid")));
    let mut messages = Vec::with_capacity(list.len());
    let mut previous: Option<String> = None;
    for (i, message) in list.iter().enumerate() {
        if !message.is_object() {
            omitted.add(Omission::Damaged, 1);
            continue;
        }
        let uuid = match text(message, "uuid") {
            "" => format!("#{i}"),
            uuid => uuid.to_string(),
        };
        let parent = if has_tree {
            Some(text(message, "parent_message_uuid"))
                .filter(|p| ids.contains(p))
                .map(str::to_string)
        } else {
            previous.clone()
        };
        let mut step = SourceMessage {
            id: uuid.clone(),
            parent,
            role: match text(message, "sender") {
                "human" | "user" => Some(Role::User),
                "assistant" => Some(Role::Assistant),
                _ => None,
            },
            created_at: time::ms(message.get("created_at")),
            ..Default::default()
        };
        read_content(message, &mut step, omitted);
        step.files = attachments(message);
        let files = message
            .get("files")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        omitted.add(Omission::Files, files);
        previous = Some(uuid);
        messages.push(step);
    }
    let current = Some(text(item, "current_leaf_message_uuid"))
        .filter(|c| ids.contains(c))
        .map(str::to_string)
        .or(previous);
    Some(SourceConversation {
        id,
        title: text(item, "name").to_string(),
        created_at: time::ms(item.get("created_at")),
        updated_at: time::ms(item.get("updated_at")),
        pinned: item.get("is_starred").and_then(Value::as_bool) == Some(true),
        messages,
        current,
    })
}

/// A message's attachments, each with the text the export holds of it (one without text
/// is counted as left out when the files are found).
fn attachments(message: &Value) -> Vec<SourceFile> {
    message
        .get("attachments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|attachment| SourceFile {
            pointer: String::new(),
            name: text(attachment, "file_name").to_string(),
            image: false,
            text: Some(text(attachment, "extracted_content").to_string()),
        })
        .collect()
}

/// The text and reasoning of one message, from its blocks when it has them.
fn read_content(message: &Value, step: &mut SourceMessage, omitted: &mut Omitted) {
    let Some(blocks) = message.get("content").and_then(Value::as_array) else {
        step.content = text(message, "text").to_string();
        return;
    };
    let mut content = Vec::new();
    let mut reasoning = Vec::new();
    for block in blocks {
        match text(block, "type") {
            "text" => content.push(text(block, "text")),
            "thinking" => reasoning.push(text(block, "thinking")),
            "redacted_thinking" => {}
            "tool_use" | "tool_result" | "server_tool_use" => {
                omitted.add(Omission::ToolCalls, 1);
            }
            "web_search_tool_result" => omitted.add(Omission::WebResults, 1),
            "image" => omitted.add(Omission::Images, 1),
            "document" => omitted.add(Omission::Files, 1),
            _ => omitted.add(Omission::UnknownContent, 1),
        }
    }
    content.retain(|t| !t.trim().is_empty());
    reasoning.retain(|t| !t.trim().is_empty());
    step.content = content.join("\n\n");
    step.reasoning = reasoning.join("\n\n");
}
