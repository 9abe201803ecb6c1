//! Open WebUI's chat export: a list of chats (`id`, `title`, `chat`, `created_at`,
//! `updated_at`, `pinned`), or one chat on its own. A chat's `history.messages` is the
//! tree (`parentId`, `childrenIds`, `currentId` at the end of the path shown); several
//! models answering one question are sibling replies. Exports without a history have
//! `chat.messages` as a list.
//!
//! Open WebUI writes a reply's reasoning and tool calls into its text as `<details>`
//! blocks: reasoning becomes the reply's reasoning, tool calls and code runs are counted
//! and taken out. Files, images, sources and system prompts are counted.

use std::collections::HashSet;

use serde_json::Value;

use super::build::{SourceConversation, SourceMessage};
use super::{Omission, Omitted, items, read_each, text, time};
use crate::chat::record::Role;

/// The chat object of `item` (a listed chat, or a chat exported on its own).
fn chat_of(item: &Value) -> Option<&Value> {
    let chat = item.get("chat").filter(|c| c.is_object()).unwrap_or(item);
    let has_history = chat
        .pointer("/history/messages")
        .is_some_and(Value::is_object);
    let has_list =
        chat.get("messages").is_some_and(Value::is_array) && chat.get("models").is_some();
    (has_history || has_list).then_some(chat)
}

/// Whether `item` is one of Open WebUI's chats.
pub fn recognise(item: &Value) -> bool {
    chat_of(item).is_some()
}

/// Every chat of the export.
pub fn read(value: &Value, omitted: &mut Omitted) -> Vec<SourceConversation> {
    read_each(items(value), omitted, conversation)
}

fn conversation(item: &Value, omitted: &mut Omitted) -> Option<SourceConversation> {
    let chat = chat_of(item)?;
    let id = [text(item, "id"), text(chat, "id")]
        .into_iter()
        .find(|id| !id.is_empty())?
        .to_string();
    let title = [text(item, "title"), text(chat, "title")]
        .into_iter()
        .find(|t| !t.is_empty())
        .unwrap_or_default();
    let system = chat
        .get("system")
        .or_else(|| chat.pointer("/params/system"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !system.trim().is_empty() {
        omitted.add(Omission::SystemPrompts, 1);
    }
    let (list, current): (Vec<&Value>, Option<String>) =
        match chat.pointer("/history/messages").and_then(Value::as_object) {
            Some(map) => (
                map.values().collect(),
                chat.pointer("/history/currentId")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            ),
            None => (
                chat.get("messages")
                    .and_then(Value::as_array)
                    .map(|l| l.iter().collect())
                    .unwrap_or_default(),
                None,
            ),
        };
    let ids: HashSet<&str> = list.iter().map(|m| text(m, "id")).collect();
    let linear = !list.iter().any(|m| ids.contains(text(m, "parentId")));
    let mut messages = Vec::with_capacity(list.len());
    let mut previous: Option<String> = None;
    for message in list {
        if !message.is_object() {
            omitted.add(Omission::Damaged, 1);
            continue;
        }
        let id = text(message, "id").to_string();
        let parent = if linear {
            previous.clone()
        } else {
            Some(text(message, "parentId"))
                .filter(|p| ids.contains(p))
                .map(str::to_string)
        };
        let role = match text(message, "role") {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "system" => {
                omitted.add(Omission::SystemPrompts, 1);
                None
            }
            _ => None,
        };
        let (content, reasoning) = split_details(text(message, "content"), omitted);
        for file in message
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let kind = if text(file, "type") == "image" {
                Omission::Images
            } else {
                Omission::Files
            };
            omitted.add(kind, 1);
        }
        let images = message
            .get("images")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        omitted.add(Omission::Images, images);
        let sources = ["sources", "citations"].iter().any(|k| {
            message
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|l| !l.is_empty())
        });
        if sources {
            omitted.add(Omission::WebResults, 1);
        }
        let model = message
            .get("model")
            .and_then(Value::as_str)
            .or_else(|| message.pointer("/models/0").and_then(Value::as_str))
            .filter(|m| !m.is_empty())
            .map(str::to_string);
        messages.push(SourceMessage {
            id: id.clone(),
            parent,
            role,
            content,
            reasoning,
            model,
            created_at: time::ms(message.get("timestamp")),
            ..Default::default()
        });
        previous = Some(id);
    }
    if linear {
        messages.sort_by(|a, b| {
            a.created_at
                .unwrap_or(0.0)
                .total_cmp(&b.created_at.unwrap_or(0.0))
        });
        // Re-chain in time order (a list with no parents is the conversation in order).
        let mut previous: Option<String> = None;
        for message in &mut messages {
            message.parent = previous.replace(message.id.clone());
        }
    }
    let current = current.or_else(|| {
        linear
            .then(|| messages.last().map(|m| m.id.clone()))
            .flatten()
    });
    Some(SourceConversation {
        id,
        title: title.to_string(),
        created_at: time::ms(item.get("created_at")).or_else(|| time::ms(chat.get("timestamp"))),
        updated_at: time::ms(item.get("updated_at")),
        pinned: item.get("pinned").and_then(Value::as_bool) == Some(true),
        messages,
        current,
    })
}

/// A reply's text without its `<details type="…">` blocks: reasoning blocks become the
/// reasoning (their summary line and quote marks dropped), tool calls and code runs are
/// counted. Other `<details>` stay as they are.
fn split_details(content: &str, omitted: &mut Omitted) -> (String, String) {
    let mut text = String::with_capacity(content.len());
    let mut reasoning = Vec::new();
    let mut rest = content;
    while let Some(start) = rest.find("<details type=\"") {
        let kind_start = start + "<details type=\"".len();
        let kind_end = rest[kind_start..].find('"').map(|e| kind_start + e);
        let close = rest[start..].find("</details>").map(|e| start + e);
        let (Some(kind_end), Some(close)) = (kind_end, close) else {
            break;
        };
        let kind = &rest[kind_start..kind_end];
        let block = &rest[start..close];
        text.push_str(&rest[..start]);
        match kind {
            "reasoning" | "thinking" => {
                let body = block.find('>').map(|e| &block[e + 1..]).unwrap_or_default();
                let body = match (body.find("<summary>"), body.find("</summary>")) {
                    (Some(_), Some(end)) => &body[end + "</summary>".len()..],
                    _ => body,
                };
                let lines: Vec<&str> = body
                    .lines()
                    .map(|l| {
                        l.strip_prefix("> ")
                            .or_else(|| l.strip_prefix('>'))
                            .unwrap_or(l)
                    })
                    .collect();
                let body = lines.join("\n");
                if !body.trim().is_empty() {
                    reasoning.push(body.trim().to_string());
                }
            }
            "tool_calls" | "code_interpreter" => omitted.add(Omission::ToolCalls, 1),
            _ => text.push_str(&rest[start..close + "</details>".len()]),
        }
        rest = &rest[close + "</details>".len()..];
    }
    text.push_str(rest);
    (text.trim().to_string(), reasoning.join("\n\n"))
}
