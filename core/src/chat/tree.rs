//! The message tree of a conversation. Every message has at most one parent; the
//! children of a message are alternatives (regenerated replies, edited questions), one of
//! which is active. The *active path* — from the active root down through each active
//! child — is the conversation the user sees and the model is sent.
//!
//! - Regenerating a reply adds a sibling of that reply; editing a user message adds a
//!   sibling of that message. Both become active, so the old branch is kept, one switch
//!   away (`n/m`).
//! - Deleting removes a message with its whole subtree and returns what was removed, so
//!   the deletion can be undone exactly.
//! - Stored as one record per message ([`NodeRecord`]) plus the conversation's active
//!   root; [`MessageTree::from_records`] rebuilds the tree and never drops a record, even
//!   an orphan.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// What the tree needs of one stored message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRecord {
    /// The message id.
    pub id: String,
    /// Its parent, if it is not a root.
    pub parent_id: Option<String>,
    /// Which child continues the active path, if any.
    pub active_child_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Node {
    parent: Option<String>,
    children: Vec<String>,
    active_child: Option<String>,
}

/// A change the tree refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// The id is already in the tree.
    #[error("message {0} already exists")]
    Duplicate(String),
    /// No message has this id.
    #[error("message {0} does not exist")]
    Unknown(String),
}

/// What [`MessageTree::remove`] took out, for undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedSubtree {
    /// The removed ids, the subtree's root first, parents before children.
    pub ids: Vec<String>,
    records: Vec<(String, Node)>,
    parent: Option<String>,
    position: usize,
    was_active: bool,
}

/// A conversation's message tree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MessageTree {
    nodes: HashMap<String, Node>,
    roots: Vec<String>,
    active_root: Option<String>,
}

impl MessageTree {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Rebuilds a tree from stored records, in creation order, and the stored active root.
    /// A record whose parent is missing (or that is caught in a cycle) becomes a root:
    /// nothing stored is ever hidden. A stale pointer falls back to the
    /// newest alternative.
    pub fn from_records(records: &[NodeRecord], active_root: Option<&str>) -> Self {
        let mut tree = Self::new();
        let known: std::collections::HashSet<&str> =
            records.iter().map(|r| r.id.as_str()).collect();
        // Parents go in before their children whatever order the records come in (a store
        // returns them by key, and a question and its replies may share a millisecond);
        // siblings keep their order among the records. A record whose parent is missing
        // becomes a root; one caught in a cycle too, after the rest.
        let mut children: HashMap<&str, Vec<&NodeRecord>> = HashMap::new();
        let mut roots: Vec<&NodeRecord> = Vec::new();
        for record in records {
            match record
                .parent_id
                .as_deref()
                .filter(|p| known.contains(p) && *p != record.id)
            {
                Some(parent) => children.entry(parent).or_default().push(record),
                None => roots.push(record),
            }
        }
        // Depth first from the roots, each one's children in their order.
        let mut stack: Vec<(&NodeRecord, Option<String>)> =
            roots.iter().rev().map(|record| (*record, None)).collect();
        while let Some((record, parent)) = stack.pop() {
            if tree.nodes.contains_key(&record.id) {
                continue;
            }
            tree.insert(record.id.clone(), parent);
            for child in children.get(record.id.as_str()).into_iter().flatten().rev() {
                stack.push((*child, Some(record.id.clone())));
            }
        }
        for record in records {
            if !tree.nodes.contains_key(&record.id) {
                tree.insert(record.id.clone(), None);
            }
        }
        for record in records {
            if let Some(active) = &record.active_child_id
                && let Some(node) = tree.nodes.get_mut(&record.id)
                && node.children.contains(active)
            {
                node.active_child = Some(active.clone());
            }
        }
        if let Some(root) = active_root.filter(|r| tree.roots.iter().any(|x| x == r)) {
            tree.active_root = Some(root.to_string());
        }
        tree
    }

    /// The root of the active path (stored with the conversation).
    pub fn active_root(&self) -> Option<&str> {
        self.active_root.as_deref()
    }

    /// The records to store, one per message (parents before children).
    pub fn records(&self) -> Vec<NodeRecord> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack: Vec<&String> = self.roots.iter().rev().collect();
        while let Some(id) = stack.pop() {
            let node = &self.nodes[id];
            out.push(NodeRecord {
                id: id.clone(),
                parent_id: node.parent.clone(),
                active_child_id: node.active_child.clone(),
            });
            stack.extend(node.children.iter().rev());
        }
        out
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no message.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Whether `id` is in the tree.
    pub fn contains(&self, id: &str) -> bool {
        self.nodes.contains_key(id)
    }

    /// The parent of `id`.
    pub fn parent(&self, id: &str) -> Option<&str> {
        self.nodes.get(id)?.parent.as_deref()
    }

    fn insert(&mut self, id: String, parent: Option<String>) {
        match &parent {
            Some(parent) => {
                if let Some(node) = self.nodes.get_mut(parent) {
                    node.children.push(id.clone());
                    node.active_child = Some(id.clone());
                }
            }
            None => {
                self.roots.push(id.clone());
                self.active_root = Some(id.clone());
            }
        }
        self.nodes.insert(
            id,
            Node {
                parent,
                children: Vec::new(),
                active_child: None,
            },
        );
    }

    /// Adds `id` under `parent` (or as a new root) and makes it the active path.
    pub fn append(&mut self, id: &str, parent: Option<&str>) -> Result<(), TreeError> {
        if self.nodes.contains_key(id) {
            return Err(TreeError::Duplicate(id.to_string()));
        }
        if let Some(parent) = parent
            && !self.nodes.contains_key(parent)
        {
            return Err(TreeError::Unknown(parent.to_string()));
        }
        self.insert(id.to_string(), parent.map(str::to_string));
        self.activate(id)
    }

    /// Adds `id` as a sibling of `of` (a regenerated reply, an edited question) and makes
    /// it active.
    pub fn add_sibling(&mut self, of: &str, id: &str) -> Result<(), TreeError> {
        let parent = self
            .nodes
            .get(of)
            .ok_or_else(|| TreeError::Unknown(of.to_string()))?
            .parent
            .clone();
        self.append(id, parent.as_deref())
    }

    /// The active path, root first.
    pub fn active_path(&self) -> Vec<String> {
        let mut path = Vec::new();
        let mut current = self.active_root.clone();
        while let Some(id) = current {
            current = self.nodes.get(&id).and_then(|n| n.active_child.clone());
            path.push(id);
        }
        path
    }

    /// The messages from the root down to `id` (itself last), whichever branches are
    /// active: what a reply that is not on the active path (one of several compared
    /// answers) answers. Empty for an unknown id.
    pub fn path_to(&self, id: &str) -> Vec<String> {
        let mut path = Vec::new();
        let mut current = self.nodes.contains_key(id).then(|| id.to_string());
        while let Some(id) = current {
            current = self.parent(&id).map(str::to_string);
            path.push(id);
        }
        path.reverse();
        path
    }

    /// The last message of the active path.
    pub fn active_leaf(&self) -> Option<String> {
        self.active_path().pop()
    }

    /// `id`'s alternatives (itself included) and its position among them, for `n/m`.
    pub fn siblings(&self, id: &str) -> Option<(&[String], usize)> {
        let node = self.nodes.get(id)?;
        let list = match &node.parent {
            Some(parent) => &self.nodes[parent].children,
            None => &self.roots,
        };
        let position = list.iter().position(|s| s == id)?;
        Some((list.as_slice(), position))
    }

    /// Makes `id` part of the active path (its ancestors switch to it too).
    pub fn activate(&mut self, id: &str) -> Result<(), TreeError> {
        if !self.nodes.contains_key(id) {
            return Err(TreeError::Unknown(id.to_string()));
        }
        let mut child = id.to_string();
        while let Some(parent) = self.nodes[&child].parent.clone() {
            if let Some(node) = self.nodes.get_mut(&parent) {
                node.active_child = Some(child.clone());
            }
            child = parent;
        }
        self.active_root = Some(child);
        Ok(())
    }

    /// Switches from `id` to the sibling `step` places away (wrapping), and returns it.
    pub fn switch_sibling(&mut self, id: &str, step: isize) -> Result<String, TreeError> {
        let (list, position) = self
            .siblings(id)
            .ok_or_else(|| TreeError::Unknown(id.to_string()))?;
        let len = list.len() as isize;
        let target = list[((position as isize + step).rem_euclid(len)) as usize].clone();
        self.activate(&target)?;
        Ok(target)
    }

    /// Removes `id` and everything below it.
    pub fn remove(&mut self, id: &str) -> Result<RemovedSubtree, TreeError> {
        let parent = self
            .nodes
            .get(id)
            .ok_or_else(|| TreeError::Unknown(id.to_string()))?
            .parent
            .clone();
        let was_active = self.active_path().iter().any(|p| p == id);
        let list = self.alternatives_mut(parent.as_ref())?;
        let position = list.iter().position(|s| s == id).unwrap_or(list.len());
        list.retain(|s| s != id);
        let replacement = list
            .get(position.min(list.len().saturating_sub(1)))
            .cloned();
        match &parent {
            Some(parent) => {
                if let Some(node) = self.nodes.get_mut(parent)
                    && node.active_child.as_deref() == Some(id)
                {
                    node.active_child = replacement;
                }
            }
            None => {
                if self.active_root.as_deref() == Some(id) {
                    self.active_root = replacement;
                }
            }
        }
        let mut ids = Vec::new();
        let mut records = Vec::new();
        let mut stack = vec![id.to_string()];
        while let Some(current) = stack.pop() {
            if let Some(node) = self.nodes.remove(&current) {
                stack.extend(node.children.iter().rev().cloned());
                ids.push(current.clone());
                records.push((current, node));
            }
        }
        Ok(RemovedSubtree {
            ids,
            records,
            parent,
            position,
            was_active,
        })
    }

    /// Puts a removed subtree back where it was, active again if it was active.
    pub fn restore(&mut self, removed: RemovedSubtree) -> Result<(), TreeError> {
        if let Some(parent) = &removed.parent
            && !self.nodes.contains_key(parent)
        {
            return Err(TreeError::Unknown(parent.clone()));
        }
        if let Some((id, _)) = removed
            .records
            .iter()
            .find(|(id, _)| self.nodes.contains_key(id))
        {
            return Err(TreeError::Duplicate(id.clone()));
        }
        let Some(root) = removed.ids.first().cloned() else {
            return Ok(());
        };
        let list = self.alternatives_mut(removed.parent.as_ref())?;
        let position = removed.position.min(list.len());
        list.insert(position, root.clone());
        for (id, node) in removed.records {
            self.nodes.insert(id, node);
        }
        if removed.was_active || self.active_root.is_none() {
            let leaf = self.leaf_below(&root);
            self.activate(&leaf)?;
        }
        Ok(())
    }

    /// The children of `parent`, or the roots.
    fn alternatives_mut(&mut self, parent: Option<&String>) -> Result<&mut Vec<String>, TreeError> {
        match parent {
            Some(parent) => Ok(&mut self
                .nodes
                .get_mut(parent)
                .ok_or_else(|| TreeError::Unknown(parent.clone()))?
                .children),
            None => Ok(&mut self.roots),
        }
    }

    fn leaf_below(&self, id: &str) -> String {
        let mut current = id.to_string();
        while let Some(next) = self
            .nodes
            .get(&current)
            .and_then(|n| n.active_child.clone())
        {
            current = next;
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// u1 → a1 → u2 → a2, then a regenerated a1' and an edited u2'.
    fn conversation() -> MessageTree {
        let mut tree = MessageTree::new();
        tree.append("u1", None).unwrap();
        tree.append("a1", Some("u1")).unwrap();
        tree.append("u2", Some("a1")).unwrap();
        tree.append("a2", Some("u2")).unwrap();
        tree
    }

    #[test]
    fn appending_builds_the_active_path() {
        let tree = conversation();
        assert_eq!(tree.active_path(), ["u1", "a1", "u2", "a2"]);
        assert_eq!(tree.active_leaf().as_deref(), Some("a2"));
        assert_eq!(tree.len(), 4);
    }

    #[test]
    fn regenerate_and_edit_create_active_siblings_and_keep_the_old_branch() {
        let mut tree = conversation();
        tree.add_sibling("a2", "a2b").unwrap();
        assert_eq!(tree.active_path(), ["u1", "a1", "u2", "a2b"]);
        assert_eq!(
            tree.siblings("a2b").map(|(s, p)| (s.len(), p)),
            Some((2, 1))
        );

        tree.add_sibling("u2", "u2b").unwrap();
        tree.append("a3", Some("u2b")).unwrap();
        assert_eq!(tree.active_path(), ["u1", "a1", "u2b", "a3"]);

        // Switching back restores the old branch with its own active reply.
        assert_eq!(tree.switch_sibling("u2b", -1).unwrap(), "u2");
        assert_eq!(tree.active_path(), ["u1", "a1", "u2", "a2b"]);
        assert_eq!(tree.switch_sibling("a2b", 1).unwrap(), "a2", "wraps");
        assert_eq!(tree.active_path(), ["u1", "a1", "u2", "a2"]);
    }

    #[test]
    fn the_path_to_a_message_off_the_active_branch_is_its_own_ancestry() {
        let mut tree = conversation();
        tree.add_sibling("a2", "b2").unwrap();
        tree.add_sibling("a2", "c2").unwrap();
        // c2 is active; a2 and b2 answer the same question.
        assert_eq!(tree.active_path(), ["u1", "a1", "u2", "c2"]);
        assert_eq!(tree.path_to("b2"), ["u1", "a1", "u2", "b2"]);
        assert_eq!(tree.path_to("a1"), ["u1", "a1"]);
        assert_eq!(tree.path_to("u1"), ["u1"]);
        assert!(tree.path_to("gone").is_empty());
        // Asking changes nothing.
        assert_eq!(tree.active_path(), ["u1", "a1", "u2", "c2"]);
    }

    #[test]
    fn activating_a_deep_message_switches_every_ancestor() {
        let mut tree = conversation();
        tree.add_sibling("a1", "a1b").unwrap();
        tree.append("u3", Some("a1b")).unwrap();
        tree.activate("a2").unwrap();
        assert_eq!(tree.active_path(), ["u1", "a1", "u2", "a2"]);
        tree.activate("u3").unwrap();
        assert_eq!(tree.active_path(), ["u1", "a1b", "u3"]);
    }

    #[test]
    fn delete_removes_the_subtree_and_undo_restores_it_exactly() {
        let mut tree = conversation();
        tree.add_sibling("u2", "u2b").unwrap();
        let before = tree.clone();
        let removed = tree.remove("u2b").unwrap();
        assert_eq!(removed.ids, ["u2b"]);
        assert_eq!(
            tree.active_path(),
            ["u1", "a1", "u2", "a2"],
            "falls back to a sibling"
        );
        tree.restore(removed).unwrap();
        assert_eq!(tree, before);

        let removed = tree.remove("a1").unwrap();
        assert_eq!(removed.ids, ["a1", "u2", "a2", "u2b"]);
        assert_eq!(tree.active_path(), ["u1"]);
        assert!(!tree.contains("a2"));
        tree.restore(removed).unwrap();
        assert_eq!(tree, before);
    }

    #[test]
    fn siblings_keep_their_order_when_their_parent_comes_after_some_of_them() {
        // A question and its replies written in one millisecond come back by id: here
        // the first reply before its question, the others after it.
        let node = |id: &str, parent: Option<&str>| NodeRecord {
            id: id.into(),
            parent_id: parent.map(str::to_string),
            active_child_id: None,
        };
        let records = [
            node("first", Some("question")),
            node("question", None),
            node("second", Some("question")),
            node("third", Some("question")),
            node("deeper", Some("second")),
        ];
        let tree = MessageTree::from_records(&records, None);
        assert_eq!(
            tree.siblings("second").unwrap().0,
            ["first", "second", "third"]
        );
        assert_eq!(tree.path_to("deeper"), ["question", "second", "deeper"]);
        assert_eq!(tree.len(), 5);
    }

    #[test]
    fn records_round_trip_and_orphans_are_kept() {
        let mut tree = conversation();
        tree.add_sibling("a2", "a2b").unwrap();
        tree.switch_sibling("a2b", 1).unwrap();
        tree.add_sibling("u1", "u1b").unwrap();
        tree.switch_sibling("u1b", 1).unwrap();
        assert_eq!(tree.active_root(), Some("u1"));
        let records = tree.records();
        assert_eq!(records.len(), 6);
        assert_eq!(
            MessageTree::from_records(&records, tree.active_root()),
            tree
        );

        let mut broken = records.clone();
        broken.push(NodeRecord {
            id: "lost".into(),
            parent_id: Some("missing".into()),
            active_child_id: Some("nowhere".into()),
        });
        let rebuilt = MessageTree::from_records(&broken, Some("gone"));
        assert!(rebuilt.contains("lost"), "an orphan is kept as a root");
        assert_eq!(rebuilt.len(), 7);
        assert!(
            rebuilt.active_root().is_some(),
            "a stale active root falls back"
        );
    }

    #[test]
    fn invalid_changes_are_refused() {
        let mut tree = conversation();
        assert_eq!(
            tree.append("a1", Some("u1")),
            Err(TreeError::Duplicate("a1".into()))
        );
        assert_eq!(
            tree.append("x", Some("nope")),
            Err(TreeError::Unknown("nope".into()))
        );
        assert_eq!(
            tree.remove("nope").unwrap_err(),
            TreeError::Unknown("nope".into())
        );
        assert_eq!(tree.active_path(), ["u1", "a1", "u2", "a2"], "unchanged");
    }

    #[test]
    fn records_in_any_order_rebuild_the_same_tree() {
        let node = |id: &str, parent: Option<&str>, active: Option<&str>| NodeRecord {
            id: id.into(),
            parent_id: parent.map(Into::into),
            active_child_id: active.map(Into::into),
        };
        // Children before their parents, as a store ordered by id may return them.
        let records = [
            node("z-reply", Some("m-question"), None),
            node("a-reply", Some("m-question"), None),
            node("m-question", None, Some("a-reply")),
        ];
        let tree = MessageTree::from_records(&records, Some("m-question"));
        assert_eq!(tree.active_path(), ["m-question", "a-reply"]);
        let (siblings, position) = tree.siblings("a-reply").unwrap();
        assert_eq!(
            siblings,
            ["z-reply", "a-reply"],
            "siblings keep the given order"
        );
        assert_eq!(position, 1);
        // A cycle loses nothing: its records become roots.
        let cycle = [node("x", Some("y"), None), node("y", Some("x"), None)];
        let tree = MessageTree::from_records(&cycle, None);
        assert_eq!(tree.len(), 2);
    }
}
