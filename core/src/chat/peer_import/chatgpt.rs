//! ChatGPT's `conversations.json`: a list of conversations, each a `mapping` of nodes
//! (`message`, `parent`, `children`) with `current_node` at the end of the path shown.
//! Older exports have no conversation id (it is then derived from the title and start).
//!
//! Shown: user and assistant text, the text parts of multimodal messages, voice
//! transcripts, code the reply showed, and the reasoning of thinking models (as
//! reasoning). Carried as attachments: uploaded images and files (`metadata.attachments`
//! names them) and generated images (a tool's message of images, which joins the reply
//! after it); the ZIP holds their bytes. Not shown, and counted: hidden system and
//! context messages, custom instructions and memory, tool calls and results (code runs,
//! browsing, quotes), audio.

use serde_json::Value;

use super::build::{SourceConversation, SourceMessage};
use super::files::{SourceFile, pointer_id};
use super::{Omission, Omitted, items, read_each, text, time};
use crate::chat::record::Role;

/// Whether `item` is one of ChatGPT's conversations.
pub fn recognise(item: &Value) -> bool {
    item.get("mapping").is_some_and(Value::is_object)
        && (item.get("create_time").is_some() || item.get("current_node").is_some())
}

/// Every conversation of the export.
pub fn read(value: &Value, omitted: &mut Omitted) -> Vec<SourceConversation> {
    read_each(items(value), omitted, conversation)
}

fn conversation(item: &Value, omitted: &mut Omitted) -> Option<SourceConversation> {
    let mapping = item.get("mapping")?.as_object()?;
    let created_at = time::ms(item.get("create_time"));
    let id = [text(item, "conversation_id"), text(item, "id")]
        .into_iter()
        .find(|id| !id.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| {
            format!(
                "{}\0{}",
                text(item, "title"),
                created_at.unwrap_or_default()
            )
        });
    let default_model = item
        .get("default_model_slug")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut messages = Vec::with_capacity(mapping.len());
    for (key, node) in mapping {
        let node_id = node.get("id").and_then(Value::as_str).unwrap_or(key);
        let parent = node
            .get("parent")
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut step = SourceMessage {
            id: node_id.to_string(),
            parent,
            ..Default::default()
        };
        if let Some(message) = node.get("message").filter(|m| m.is_object()) {
            read_message(message, &mut step, omitted);
            if step.role == Some(Role::Assistant) && step.model.is_none() {
                step.model.clone_from(&default_model);
            }
        }
        messages.push(step);
    }
    Some(SourceConversation {
        id,
        title: text(item, "title").to_string(),
        created_at,
        updated_at: time::ms(item.get("update_time")),
        pinned: item.get("is_starred").and_then(Value::as_bool) == Some(true),
        messages,
        current: item
            .get("current_node")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// Fills `step` from one node's `message`.
fn read_message(message: &Value, step: &mut SourceMessage, omitted: &mut Omitted) {
    let role = message
        .pointer("/author/role")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let metadata = message.get("metadata").unwrap_or(&Value::Null);
    step.created_at = time::ms(message.get("create_time"));
    step.model = metadata
        .get("model_slug")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .map(str::to_string);
    let content = message.get("content").unwrap_or(&Value::Null);
    let kind = text(content, "content_type");
    let hidden = metadata
        .get("is_visually_hidden_from_conversation")
        .and_then(Value::as_bool)
        == Some(true);
    let recipient = message
        .get("recipient")
        .and_then(Value::as_str)
        .unwrap_or("all");
    let has_text = !plain(content).trim().is_empty();
    match (role, kind) {
        ("system", _) => {
            if has_text && !hidden {
                omitted.add(Omission::SystemPrompts, 1);
            }
        }
        (_, "user_editable_context" | "model_editable_context") => {
            omitted.add(Omission::SystemPrompts, 1);
        }
        ("tool", _) if has_images(content) => {
            // A generated image: the reply it belongs to carries it.
            step.role = Some(Role::Assistant);
            step.files = images(content, &Names::default());
        }
        ("tool", kind) => omitted.add(tool_omission(kind), 1),
        ("assistant", _) if recipient != "all" => omitted.add(Omission::ToolCalls, 1),
        (_, _) if hidden => {}
        ("user" | "assistant", kind) => {
            let role = if role == "user" {
                Role::User
            } else {
                Role::Assistant
            };
            let names = Names::of(metadata);
            match kind {
                "text" | "multimodal_text" => {
                    step.content = parts(content, omitted);
                    step.files = images(content, &names);
                }
                "code" => {
                    let language = match text(content, "language") {
                        "unknown" => "",
                        other => other,
                    };
                    step.content = format!("```{language}\n{}\n```", text(content, "text"));
                }
                "thoughts" => step.reasoning = thoughts(content),
                "reasoning_recap" => {}
                "tether_quote" | "tether_browsing_display" | "sonic_webpage" => {
                    omitted.add(Omission::WebResults, 1);
                }
                "execution_output" | "system_error" | "computer_output" => {
                    omitted.add(Omission::ToolCalls, 1);
                }
                _ => omitted.add(Omission::UnknownContent, 1),
            }
            step.content = without_citation_marks(&step.content);
            step.role = Some(role);
            step.files.extend(names.documents);
        }
        _ => {
            if has_text {
                omitted.add(Omission::UnknownContent, 1);
            }
        }
    }
}

/// What a tool's message is, for the report.
fn tool_omission(kind: &str) -> Omission {
    match kind {
        "tether_quote" | "tether_browsing_display" | "sonic_webpage" => Omission::WebResults,
        _ => Omission::ToolCalls,
    }
}

fn is_image(part: &Value) -> bool {
    text(part, "content_type") == "image_asset_pointer"
}

fn has_images(content: &Value) -> bool {
    content
        .get("parts")
        .and_then(Value::as_array)
        .is_some_and(|parts| parts.iter().any(is_image))
}

/// What a message's `metadata.attachments` says: the names of its images by file id,
/// and its other files.
#[derive(Default)]
struct Names {
    images: std::collections::HashMap<String, String>,
    documents: Vec<SourceFile>,
}

impl Names {
    fn of(metadata: &Value) -> Self {
        let mut names = Self::default();
        for attachment in metadata
            .get("attachments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (id, name) = (text(attachment, "id"), text(attachment, "name"));
            if text(attachment, "mime_type").starts_with("image/") {
                names.images.insert(id.to_string(), name.to_string());
            } else {
                names.documents.push(SourceFile {
                    pointer: id.to_string(),
                    name: name.to_string(),
                    image: false,
                    text: None,
                });
            }
        }
        names
    }
}

/// The images among a content's parts, named as `names` says.
fn images(content: &Value, names: &Names) -> Vec<SourceFile> {
    content
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|part| is_image(part))
        .map(|part| {
            let pointer = pointer_id(text(part, "asset_pointer")).to_string();
            SourceFile {
                name: names.images.get(&pointer).cloned().unwrap_or_default(),
                pointer,
                image: true,
                text: None,
            }
        })
        .collect()
}

/// The text of a `text` or `multimodal_text` content: its string parts, voice
/// transcripts; images are the message's files, audio is counted.
fn parts(content: &Value, omitted: &mut Omitted) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in content
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match part {
            Value::String(s) => out.push(s),
            Value::Object(_) => match text(part, "content_type") {
                "image_asset_pointer" => {}
                "audio_transcription" => out.push(text(part, "text")),
                "audio_asset_pointer" | "real_time_user_audio_video_asset_pointer" => {
                    omitted.add(Omission::Files, 1);
                }
                _ => omitted.add(Omission::UnknownContent, 1),
            },
            _ => {}
        }
    }
    out.retain(|s| !s.is_empty());
    out.join("\n")
}

/// Any text a content holds, to tell an empty message from one with something in it.
fn plain(content: &Value) -> String {
    let mut out = text(content, "text").to_string();
    for part in content
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(s) = part.as_str() {
            out.push_str(s);
        }
    }
    out
}

/// A thinking model's thoughts, each under its summary.
fn thoughts(content: &Value) -> String {
    content
        .get("thoughts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|thought| {
            let (summary, body) = (
                text(thought, "summary").trim(),
                text(thought, "content").trim(),
            );
            match (summary.is_empty(), body.is_empty()) {
                (false, false) => format!("**{summary}**\n\n{body}"),
                (false, true) => format!("**{summary}**"),
                _ => body.to_string(),
            }
        })
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `text` without ChatGPT's citation marks (private-use characters U+E200 … U+E201
/// around a reference to a search result the export does not hold).
fn without_citation_marks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for c in text.chars() {
        match c {
            '\u{e200}' => inside = true,
            '\u{e201}' if inside => inside = false,
            _ if inside => {}
            _ => out.push(c),
        }
    }
    out
}
