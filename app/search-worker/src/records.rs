//! Reads the stored conversation and message objects the page posts (camelCase, as in
//! IndexedDB) into the texts core indexes: only the fields search needs, and a missing
//! or wrongly typed field reads as empty, never as an error.

use std::cell::RefCell;
use std::collections::HashMap;

use hearth_core::chat::Role;
use hearth_core::search::conversation::{ConversationText, MessageText};
use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// Read access to one field of a record.
pub trait Fields {
    /// The field's value when it is a string.
    fn text(&self, name: &'static str) -> Option<String>;
    /// The field's value when it is a finite number.
    fn number(&self, name: &'static str) -> Option<f64>;
}

thread_local! {
    /// Field names as JS strings, made once: a build reads eight fields of 100,000
    /// messages, and making each name anew took the records' reading from 0.5 s to 0.7 s.
    static KEYS: RefCell<HashMap<&'static str, JsValue>> = RefCell::default();
}

/// Field `name` of `record`.
fn get(record: &JsValue, name: &'static str) -> Option<JsValue> {
    KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        let key = keys.entry(name).or_insert_with(|| JsValue::from_str(name));
        Reflect::get(record, key).ok()
    })
}

impl Fields for JsValue {
    fn text(&self, name: &'static str) -> Option<String> {
        get(self, name)?.as_string()
    }

    fn number(&self, name: &'static str) -> Option<f64> {
        get(self, name)?.as_f64().filter(|v| v.is_finite())
    }
}

/// A role as stored (`"user"`, `"assistant"`); any other is none.
pub fn role(name: Option<&str>) -> Option<Role> {
    match name? {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        _ => None,
    }
}

/// A stored conversation (`id`, `title`, `activeRootId`, `updatedAt`).
pub fn conversation(record: &impl Fields) -> ConversationText {
    ConversationText {
        id: record.text("id").unwrap_or_default(),
        title: record.text("title").unwrap_or_default(),
        active_root_id: record.text("activeRootId"),
        updated_at: record.number("updatedAt").unwrap_or_default(),
    }
}

/// A stored message (`id`, `parentId`, `activeChildId`, `role`, `content`, `createdAt`,
/// `updatedAt`) of conversation `conversation`, or `None` when its `conversationId`
/// names another (one without a `conversationId` is taken as the conversation's).
pub fn message(record: &impl Fields, conversation: &str) -> Option<MessageText> {
    if record
        .text("conversationId")
        .is_some_and(|id| id != conversation)
    {
        return None;
    }
    Some(MessageText {
        id: record.text("id").unwrap_or_default(),
        parent_id: record.text("parentId"),
        active_child_id: record.text("activeChildId"),
        role: role(record.text("role").as_deref()),
        content: record.text("content").unwrap_or_default(),
        created_at: record.number("createdAt").unwrap_or_default(),
        updated_at: record.number("updatedAt").unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    impl Fields for Value {
        fn text(&self, name: &'static str) -> Option<String> {
            self.get(name)?.as_str().map(str::to_string)
        }

        fn number(&self, name: &'static str) -> Option<f64> {
            self.get(name)?.as_f64().filter(|v| v.is_finite())
        }
    }

    #[test]
    fn a_conversation_is_read_from_its_stored_fields() {
        let stored = json!({
            "id": "c1", "title": "Lifetimes", "titleByUser": true, "pinned": false,
            "activeRootId": "m1", "providerId": "p", "model": "m",
            "createdAt": 10.0, "updatedAt": 20.5, "rev": 3,
        });
        assert_eq!(
            conversation(&stored),
            ConversationText {
                id: "c1".into(),
                title: "Lifetimes".into(),
                active_root_id: Some("m1".into()),
                updated_at: 20.5,
            }
        );
    }

    #[test]
    fn a_message_is_read_from_its_stored_fields_only() {
        let stored = json!({
            "id": "m2", "conversationId": "c1", "parentId": "m1", "activeChildId": "m3",
            "role": "assistant", "content": "An answer", "reasoning": "secret thoughts",
            "status": "done", "toolRounds": [{"calls": []}], "generationError": null,
            "createdAt": 100.0, "updatedAt": 150.0, "rev": 1,
        });
        assert_eq!(
            message(&stored, "c1"),
            Some(MessageText {
                id: "m2".into(),
                parent_id: Some("m1".into()),
                active_child_id: Some("m3".into()),
                role: Some(Role::Assistant),
                content: "An answer".into(),
                created_at: 100.0,
                updated_at: 150.0,
            })
        );
        assert_eq!(message(&stored, "c2"), None);
        // Without a conversationId it is taken as the conversation's.
        assert!(message(&json!({"id": "m"}), "c1").is_some());
    }

    #[test]
    fn missing_or_wrongly_typed_fields_read_as_empty() {
        let empty = MessageText::default();
        assert_eq!(message(&json!({}), "c"), Some(empty.clone()));
        assert_eq!(message(&json!(null), "c"), Some(empty.clone()));
        assert_eq!(message(&json!("text"), "c"), Some(empty.clone()));
        let odd = json!({
            "id": 7, "parentId": null, "activeChildId": false, "role": 1,
            "content": ["no"], "createdAt": "yesterday", "updatedAt": {},
        });
        assert_eq!(message(&odd, "c"), Some(empty));
        assert_eq!(
            conversation(&json!({"title": null, "updatedAt": "now"})),
            ConversationText::default()
        );
        // A conversationId of the wrong type names no other conversation.
        assert!(message(&json!({"conversationId": 3}), "c").is_some());
    }

    #[test]
    fn roles_as_stored() {
        assert_eq!(role(Some("user")), Some(Role::User));
        assert_eq!(role(Some("assistant")), Some(Role::Assistant));
        for other in ["system", "tool", "User", ""] {
            assert_eq!(role(Some(other)), None);
        }
        assert_eq!(role(None), None);
    }
}
