//! NextChat's backup: its stores by name, the conversations in
//! `chat-next-web-store.sessions` (`topic`, `lastUpdate`, `messages` in order). The
//! other stores (access control with its API keys, app settings, masks, prompts) are
//! never read; the report says they were left.
//!
//! Shown: user and assistant text (the text parts of multimodal content). Not shown, and
//! counted: system messages and a mask's preset context, images, tool calls.

use serde_json::Value;

use super::build::{SourceConversation, SourceMessage};
use super::{Omission, Omitted, read_each, text, time};
use crate::chat::record::Role;

const CHAT_STORE: &str = "chat-next-web-store";
/// The stores beside the chats that a backup holds.
const OTHER_STORES: [&str; 4] = ["access-control", "app-config", "mask-store", "prompt-store"];
/// The title NextChat gives a conversation until it names it, in its locales.
const UNNAMED: [&str; 6] = [
    "New Conversation",
    "新的聊天",
    "新的對話",
    "新しいチャット",
    "새 대화",
    "Nueva conversación",
];

/// Whether `value` is a NextChat backup.
pub fn recognise(value: &Value) -> bool {
    value
        .get(CHAT_STORE)
        .and_then(|s| s.get("sessions"))
        .is_some_and(Value::is_array)
}

/// Every conversation of the backup.
pub fn read(value: &Value, omitted: &mut Omitted) -> Vec<SourceConversation> {
    if OTHER_STORES.iter().any(|k| value.get(*k).is_some()) {
        omitted.add(Omission::Settings, 1);
    }
    let sessions = value
        .pointer(&format!("/{CHAT_STORE}/sessions"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    read_each(sessions, omitted, conversation)
}

fn conversation(session: &Value, omitted: &mut Omitted) -> Option<SourceConversation> {
    let id = text(session, "id");
    let list = session.get("messages")?.as_array()?;
    if id.is_empty() {
        return None;
    }
    let context = session
        .pointer("/mask/context")
        .and_then(Value::as_array)
        .map_or(0, |c| {
            c.iter()
                .filter(|m| !content(m, &mut Omitted::default()).is_empty())
                .count()
        });
    omitted.add(Omission::SystemPrompts, context);
    let updated_at = time::ms(session.get("lastUpdate"));
    let mut messages = Vec::with_capacity(list.len());
    let mut previous: Option<String> = None;
    for (i, message) in list.iter().enumerate() {
        if !message.is_object() {
            omitted.add(Omission::Damaged, 1);
            continue;
        }
        let id = match text(message, "id") {
            "" => format!("#{i}"),
            id => id.to_string(),
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
        let tools = message
            .get("tools")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        omitted.add(Omission::ToolCalls, tools);
        messages.push(SourceMessage {
            id: id.clone(),
            parent: previous.replace(id),
            role,
            content: content(message, omitted),
            model: message
                .get("model")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
                .map(str::to_string),
            // `date` is the browser's local format; it reads only when it is ISO.
            created_at: time::ms(message.get("date")),
            ..Default::default()
        });
    }
    let topic = text(session, "topic").trim();
    let title = if UNNAMED.contains(&topic) { "" } else { topic };
    Some(SourceConversation {
        id: id.to_string(),
        title: title.to_string(),
        created_at: updated_at.map(|at| at - messages.len() as f64),
        updated_at,
        pinned: false,
        current: messages.last().map(|m: &SourceMessage| m.id.clone()),
        messages,
    })
}

/// A message's text: a string, or the text parts of a list (images counted).
fn content(message: &Value, omitted: &mut Omitted) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            let mut out = Vec::new();
            for part in parts {
                match text(part, "type") {
                    "text" => out.push(text(part, "text")),
                    "image_url" => omitted.add(Omission::Images, 1),
                    _ => omitted.add(Omission::UnknownContent, 1),
                }
            }
            out.join("\n")
        }
        _ => String::new(),
    }
}
