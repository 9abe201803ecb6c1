//! What of a conversation is searchable ([`Source::Conversations`]): its title, and the
//! text of the user's and the model's messages on the active path, the branch the user
//! sees. Nothing else: not the other branches, reasoning, tool calls and results, errors
//! or images.
//!
//! The worker that holds the index replaces a conversation's documents whenever it
//! changes ([`documents`] of the new state after removing the parent's documents), so
//! switching branches, editing or deleting a message changes what is found.

use crate::chat::{MessageTree, NodeRecord, Role};

use super::{Document, Source};

/// What the index reads of a stored conversation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConversationText {
    /// Its id: the parent of its documents.
    pub id: String,
    /// Its title (the title document; none when empty).
    pub title: String,
    /// The root of its active path, as stored.
    pub active_root_id: Option<String>,
    /// When it last changed (ms since the epoch): the title document's timestamp.
    pub updated_at: f64,
}

/// What the index reads of a stored message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MessageText {
    /// Its id: the document's id and position.
    pub id: String,
    /// Its parent message, if it is not a root.
    pub parent_id: Option<String>,
    /// Which child continues the active path.
    pub active_child_id: Option<String>,
    /// Who wrote it; messages of no known role are not indexed.
    pub role: Option<Role>,
    /// Its text (the body).
    pub content: String,
    /// When it was written (ms since the epoch).
    pub created_at: f64,
    /// When it last changed (ms since the epoch; 0 when never).
    pub updated_at: f64,
}

/// Milliseconds as the index's timestamp (saturating; NaN reads as 0).
fn millis(value: f64) -> i64 {
    value as i64
}

/// The documents of `conversation` whose messages are `messages` (in any order): the
/// title document (id and parent: the conversation) when the title is not empty, then
/// one per message on the active path, in path order, with text and a user or assistant
/// role (id and position: the message). A conversation without an id has none.
pub fn documents(conversation: &ConversationText, messages: &[MessageText]) -> Vec<Document> {
    if conversation.id.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    if !conversation.title.is_empty() {
        out.push(Document {
            id: conversation.id.clone(),
            source: Source::Conversations,
            parent: conversation.id.clone(),
            position: String::new(),
            title: conversation.title.clone(),
            body: String::new(),
            timestamp: millis(conversation.updated_at),
        });
    }
    // Siblings keep the order they were written in, whatever order the store gave.
    let mut sorted: Vec<&MessageText> = messages.iter().collect();
    sorted.sort_by(|a, b| a.created_at.total_cmp(&b.created_at).then(a.id.cmp(&b.id)));
    let nodes: Vec<NodeRecord> = sorted
        .iter()
        .map(|m| NodeRecord {
            id: m.id.clone(),
            parent_id: m.parent_id.clone(),
            active_child_id: m.active_child_id.clone(),
        })
        .collect();
    let tree = MessageTree::from_records(&nodes, conversation.active_root_id.as_deref());
    let by_id: std::collections::HashMap<&str, &MessageText> =
        sorted.iter().map(|m| (m.id.as_str(), *m)).collect();
    for id in tree.active_path() {
        let Some(message) = by_id.get(id.as_str()) else {
            continue;
        };
        if message.content.is_empty() || message.role.is_none() {
            continue;
        }
        let written = if message.updated_at > 0.0 {
            message.updated_at
        } else {
            message.created_at
        };
        out.push(Document {
            id: message.id.clone(),
            source: Source::Conversations,
            parent: conversation.id.clone(),
            position: String::new(),
            title: String::new(),
            body: message.content.clone(),
            timestamp: millis(written),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversation(title: &str, root: Option<&str>) -> ConversationText {
        ConversationText {
            id: "c".into(),
            title: title.into(),
            active_root_id: root.map(str::to_string),
            updated_at: 900.0,
        }
    }

    fn message(
        id: &str,
        parent: Option<&str>,
        active: Option<&str>,
        role: Option<Role>,
        content: &str,
        at: f64,
    ) -> MessageText {
        MessageText {
            id: id.into(),
            parent_id: parent.map(str::to_string),
            active_child_id: active.map(str::to_string),
            role,
            content: content.into(),
            created_at: at,
            updated_at: 0.0,
        }
    }

    /// q1 → (a1 | a2, active a2) → q2 under a2.
    fn branched() -> Vec<MessageText> {
        vec![
            message("q1", None, Some("a2"), Some(Role::User), "question", 1.0),
            message("a1", Some("q1"), None, Some(Role::Assistant), "old", 2.0),
            message(
                "a2",
                Some("q1"),
                Some("q2"),
                Some(Role::Assistant),
                "new",
                3.0,
            ),
            message("q2", Some("a2"), None, Some(Role::User), "again", 4.0),
        ]
    }

    fn ids(docs: &[Document]) -> Vec<&str> {
        docs.iter().map(|d| d.id.as_str()).collect()
    }

    #[test]
    fn only_the_active_branch_is_indexed() {
        let docs = documents(&conversation("", Some("q1")), &branched());
        assert_eq!(ids(&docs), ["q1", "a2", "q2"]);
        for doc in &docs {
            assert_eq!(doc.source, Source::Conversations);
            assert_eq!(doc.parent, "c");
            assert_eq!(doc.position, "");
            assert_eq!(doc.title, "");
        }
        assert_eq!(docs[1].body, "new");
        // Switching to the other branch indexes it instead.
        let mut other = branched();
        other[0].active_child_id = Some("a1".into());
        let docs = documents(&conversation("", Some("q1")), &other);
        assert_eq!(ids(&docs), ["q1", "a1"]);
    }

    #[test]
    fn the_title_is_a_document_of_its_own() {
        let docs = documents(&conversation("Borrow checker", None), &branched());
        assert_eq!(ids(&docs), ["c", "q1", "a2", "q2"]);
        assert_eq!(
            docs[0],
            Document {
                id: "c".into(),
                source: Source::Conversations,
                parent: "c".into(),
                position: String::new(),
                title: "Borrow checker".into(),
                body: String::new(),
                timestamp: 900,
            }
        );
        // An untitled conversation without messages has nothing to index.
        assert!(documents(&conversation("", None), &[]).is_empty());
        // Nor has one without an id.
        let mut nameless = conversation("Title", None);
        nameless.id.clear();
        assert!(documents(&nameless, &branched()).is_empty());
    }

    #[test]
    fn roles_and_empty_messages() {
        let messages = vec![
            message("q", None, None, Some(Role::User), "asked", 1.0),
            message("a", Some("q"), None, Some(Role::Assistant), "", 2.0),
            message("x", Some("a"), None, None, "unknown role", 3.0),
            message("b", Some("x"), None, Some(Role::Assistant), "answered", 4.0),
        ];
        let docs = documents(&conversation("", None), &messages);
        // The empty reply and the message of no known role are skipped, not the path
        // below them.
        assert_eq!(ids(&docs), ["q", "b"]);
    }

    #[test]
    fn timestamps_prefer_the_last_change() {
        let mut messages = branched();
        messages[0].updated_at = 50.7;
        let docs = documents(&conversation("", None), &messages);
        assert_eq!(docs[0].timestamp, 50);
        assert_eq!(docs[1].timestamp, 3);
    }

    #[test]
    fn the_order_of_the_records_does_not_matter() {
        let expected = documents(&conversation("T", Some("q1")), &branched());
        let mut reversed = branched();
        reversed.reverse();
        assert_eq!(
            documents(&conversation("T", Some("q1")), &reversed),
            expected
        );
        let mut rotated = branched();
        rotated.rotate_left(2);
        assert_eq!(
            documents(&conversation("T", Some("q1")), &rotated),
            expected
        );
    }

    #[test]
    fn a_stale_active_root_falls_back_to_the_newest_root() {
        let messages = vec![
            message("r1", None, None, Some(Role::User), "first", 1.0),
            message("r2", None, None, Some(Role::User), "second", 2.0),
        ];
        let docs = documents(&conversation("", Some("gone")), &messages);
        assert_eq!(ids(&docs), ["r2"]);
        let docs = documents(&conversation("", Some("r1")), &messages);
        assert_eq!(ids(&docs), ["r1"]);
    }
}
