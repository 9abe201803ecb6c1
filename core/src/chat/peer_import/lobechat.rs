//! LobeChat's exports: the config file of its browser version (`exportType`, `state` with
//! `sessions`, `topics` and `messages`) and the data export of its database version
//! (`data` with the same tables as rows, `schemaHash`). A conversation is a topic; the
//! messages of an agent outside any topic are one more conversation, named after the
//! agent. `parentId` gives the tree; a message without one follows the one before it.
//!
//! Shown: user and assistant text and reasoning. Not shown, and counted: tool calls and
//! tool messages, agents' system roles, images and files, and the settings (never read).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use super::build::{SourceConversation, SourceMessage};
use super::{Omission, Omitted, text, time};
use crate::chat::record::Role;

/// The tables of a LobeChat export, whichever kind.
fn tables(value: &Value) -> Option<&Value> {
    if let Some(state) = value.get("state").filter(|s| s.is_object())
        && value.get("exportType").is_some()
    {
        return Some(state);
    }
    value
        .get("data")
        .filter(|d| d.get("messages").is_some_and(Value::is_array))
        .filter(|_| value.get("schemaHash").is_some() || value.get("mode").is_some())
}

/// Whether `value` is a LobeChat export.
pub fn recognise(value: &Value) -> bool {
    tables(value).is_some()
}

/// The first of `keys` that `row` has (camelCase, or snake_case as the database names).
fn field<'a>(row: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter()
        .find_map(|k| row.get(*k))
        .filter(|v| !v.is_null())
}

fn field_text<'a>(row: &'a Value, keys: &[&str]) -> &'a str {
    field(row, keys).and_then(Value::as_str).unwrap_or_default()
}

fn rows<'a>(tables: &'a Value, name: &str) -> &'a [Value] {
    tables
        .get(name)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// Every conversation of the export.
pub fn read(value: &Value, omitted: &mut Omitted) -> Vec<SourceConversation> {
    let Some(tables) = tables(value) else {
        return Vec::new();
    };
    if tables.get("settings").is_some_and(|s| !s.is_null())
        || tables.get("userSettings").is_some_and(|s| !s.is_null())
    {
        omitted.add(Omission::Settings, 1);
    }
    let mut session_titles: HashMap<&str, &str> = HashMap::new();
    for session in rows(tables, "sessions") {
        let title = [
            session.pointer("/meta/title").and_then(Value::as_str),
            field(session, &["title"]).and_then(Value::as_str),
        ]
        .into_iter()
        .flatten()
        .find(|t| !t.is_empty())
        .unwrap_or_default();
        session_titles.insert(text(session, "id"), title);
        let role = [
            session.pointer("/config/systemRole"),
            field(session, &["systemRole", "system_role"]),
        ]
        .into_iter()
        .flatten()
        .find_map(Value::as_str)
        .unwrap_or_default();
        if !role.trim().is_empty() {
            omitted.add(Omission::SystemPrompts, 1);
        }
    }
    for agent in rows(tables, "agents") {
        if !field_text(agent, &["systemRole", "system_role"])
            .trim()
            .is_empty()
        {
            omitted.add(Omission::SystemPrompts, 1);
        }
    }
    let plugin_rows = rows(tables, "messagePlugins").len() + rows(tables, "message_plugins").len();
    let topics: HashMap<&str, &Value> = rows(tables, "topics")
        .iter()
        .map(|t| (text(t, "id"), t))
        .collect();

    // Messages by conversation: a topic, or an agent's messages outside any topic.
    let mut groups: BTreeMap<(String, String), Vec<&Value>> = BTreeMap::new();
    for message in rows(tables, "messages") {
        if !message.is_object() || text(message, "id").is_empty() {
            omitted.add(Omission::Damaged, 1);
            continue;
        }
        let topic = field_text(message, &["topicId", "topic_id"]);
        let session = field_text(message, &["sessionId", "session_id"]);
        let key = if topic.is_empty() {
            ("session".to_string(), session.to_string())
        } else {
            ("topic".to_string(), topic.to_string())
        };
        groups.entry(key).or_default().push(message);
    }
    let mut tool_messages = 0;
    let out = groups
        .into_iter()
        .map(|((kind, key), list)| {
            let topic = (kind == "topic")
                .then(|| topics.get(key.as_str()))
                .flatten();
            let session = list
                .first()
                .map(|m| field_text(m, &["sessionId", "session_id"]))
                .unwrap_or_default();
            let title = match topic {
                Some(t) => text(t, "title"),
                None => session_titles.get(session).copied().unwrap_or_default(),
            };
            let mut conversation = SourceConversation {
                id: format!("{kind}:{key}"),
                title: title.to_string(),
                created_at: topic.and_then(|t| time::ms(field(t, &["createdAt", "created_at"]))),
                updated_at: topic.and_then(|t| time::ms(field(t, &["updatedAt", "updated_at"]))),
                pinned: topic
                    .and_then(|t| t.get("favorite"))
                    .and_then(Value::as_bool)
                    == Some(true),
                messages: Vec::new(),
                current: None,
            };
            conversation.messages = messages(&list, omitted, &mut tool_messages);
            conversation
        })
        .collect();
    // A tool message and its plugin row are one call.
    omitted.add(Omission::ToolCalls, tool_messages.max(plugin_rows));
    out
}

/// One conversation's messages, in time order, each under its parent (or the message
/// before it when it names none that is here).
fn messages(list: &[&Value], omitted: &mut Omitted, tools: &mut usize) -> Vec<SourceMessage> {
    let mut list: Vec<&Value> = list.to_vec();
    list.sort_by(|a, b| {
        let at = |m: &Value| time::ms(field(m, &["createdAt", "created_at"])).unwrap_or(0.0);
        at(a).total_cmp(&at(b))
    });
    let ids: HashSet<&str> = list.iter().map(|m| text(m, "id")).collect();
    let mut previous: Option<String> = None;
    let mut out = Vec::with_capacity(list.len());
    for message in list {
        let id = text(message, "id").to_string();
        let parent = Some(field_text(message, &["parentId", "parent_id"]))
            .filter(|p| ids.contains(p) && *p != id)
            .map(str::to_string)
            .or_else(|| previous.clone());
        let role = match text(message, "role") {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "tool" | "function" => {
                *tools += 1;
                None
            }
            "system" => {
                omitted.add(Omission::SystemPrompts, 1);
                None
            }
            _ => None,
        };
        let reasoning = message
            .get("reasoning")
            .map(|r| match r {
                Value::String(s) => s.as_str(),
                other => text(other, "content"),
            })
            .unwrap_or_default();
        for key in ["files", "fileList"] {
            let n = message
                .get(key)
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            omitted.add(Omission::Files, n);
        }
        let images = message
            .get("imageList")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        omitted.add(Omission::Images, images);
        let model = [
            field(message, &["model"]),
            message.pointer("/extra/fromModel"),
            field(message, &["fromModel"]),
        ]
        .into_iter()
        .flatten()
        .find_map(Value::as_str)
        .filter(|m| !m.is_empty())
        .map(str::to_string);
        out.push(SourceMessage {
            id: id.clone(),
            parent,
            role,
            content: text(message, "content").to_string(),
            reasoning: reasoning.to_string(),
            model,
            created_at: time::ms(field(message, &["createdAt", "created_at"])),
            ..Default::default()
        });
        previous = Some(id);
    }
    out
}
