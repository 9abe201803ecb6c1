//! The open conversation: its id, its messages on screen, its tree and active path, and
//! the tree's operations (append, switch branch, remove and restore a subtree), each
//! stored in one write with the records whose active child moved.
//!
//! The messages' signals belong to an owner per shown conversation, disposed when
//! another is shown; a reply still being written keeps its conversation's owner alive
//! through its run (`Runs::keep`), so the run's text never lands in disposed signals, and
//! showing that conversation again shows the same live reply.

use std::collections::HashMap;

use hearth_core::chat::{
    ConversationRecord, MessageRecord, MessageTree, RemovedSubtree, TreeError,
};
use leptos::prelude::*;
use serde_json::json;

use super::list::Conversations;
use super::live::LiveMessage;
use super::runs::Runs;
use super::store::ChatDb;
use super::tabs::Tabs;
use crate::storage::{Batch, CONVERSATIONS, MESSAGES, StorageError};

/// Why a change of the tree was not made.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeChangeError {
    /// The change makes no sense for this tree (a message that is gone, say).
    Tree(TreeError),
    /// It could not be stored; nothing changed.
    Storage(StorageError),
}

/// The open conversation.
#[derive(Clone, Copy)]
pub struct OpenConversation {
    current: RwSignal<Option<String>>,
    messages: RwSignal<HashMap<String, LiveMessage>>,
    tree: RwSignal<MessageTree>,
    path: Memo<Vec<String>>,
    /// The owners of what is on screen: the conversation's, and those of finished runs
    /// it adopted.
    owners: StoredValue<Vec<Owner>, LocalStorage>,
    store: ChatDb,
    list: Conversations,
    runs: Runs,
    tabs: Tabs,
    /// The message a search result pointed at: scrolled to and highlighted.
    found: RwSignal<Option<String>>,
    /// Counts the requests to show something: a conversation whose read finishes after
    /// a later request (another conversation, a new chat, the same one again) shows
    /// nothing, so the last request wins and nothing is shown twice.
    asked: StoredValue<u64>,
}

impl OpenConversation {
    /// A new chat (nothing open).
    pub fn new(store: ChatDb, list: Conversations, runs: Runs, tabs: Tabs) -> Self {
        let tree = RwSignal::new(MessageTree::new());
        Self {
            current: RwSignal::new(None),
            messages: RwSignal::new(HashMap::new()),
            tree,
            path: Memo::new(move |_| tree.with(MessageTree::active_path)),
            owners: StoredValue::new_local(Vec::new()),
            store,
            list,
            runs,
            tabs,
            found: RwSignal::new(None),
            asked: StoredValue::new(0),
        }
    }

    /// A new request to show something; its number.
    fn ask(&self) -> u64 {
        self.asked.update_value(|n| *n += 1);
        self.asked.get_value()
    }

    /// Whether request `ticket` is still the latest.
    fn still_asked(&self, ticket: u64) -> bool {
        self.asked.try_get_value() == Some(ticket)
    }

    /// The message to scroll to and highlight (tracked), set by [`OpenConversation::reveal`].
    pub fn found(&self) -> Option<String> {
        self.found.get()
    }

    /// Stops highlighting the found message.
    pub fn clear_found(&self) {
        self.found.set(None);
    }

    /// Opens conversation `id` at message `message`: on the branch that holds it (made
    /// the active one if it is not), scrolled to and highlighted. Without a message, or
    /// when it is gone, the conversation opens at its end.
    pub fn reveal(&self, id: String, message: Option<String>) {
        let open = *self;
        self.found.set(None);
        let ticket = self.ask();
        self.store.spawn(async move {
            let records = match open.store.messages_of(&id).await {
                Ok(records) => records,
                Err(error) => return open.store.show_error(error),
            };
            if !open.still_asked(ticket) {
                return;
            }
            if !open.is_open_untracked(&id) {
                open.show(Some(id.clone()), records);
            }
            let Some(message) = message.filter(|m| open.tree.with_untracked(|t| t.contains(m)))
            else {
                return;
            };
            let on_path = open.path.with_untracked(|path| path.contains(&message));
            if !on_path {
                let mut batch = Batch::new();
                let target = message.clone();
                if open
                    .change_tree(&id, &mut batch, |tree| tree.activate(&target))
                    .await
                    .is_err()
                {
                    return;
                }
            }
            open.found.set(Some(message));
        });
    }

    /// The open conversation's id (tracked; `None`: a new chat).
    pub fn current(&self) -> Option<String> {
        self.current.get()
    }

    /// The open conversation's id (untracked).
    pub fn current_untracked(&self) -> Option<String> {
        self.current.get_untracked()
    }

    /// Whether conversation `id` is open (tracked).
    pub fn is_open(&self, id: &str) -> bool {
        self.current.with(|c| c.as_deref() == Some(id))
    }

    /// Whether conversation `id` is open (untracked).
    pub fn is_open_untracked(&self, id: &str) -> bool {
        self.current.with_untracked(|c| c.as_deref() == Some(id))
    }

    /// The active path, root first (a memo).
    pub fn path(&self) -> Memo<Vec<String>> {
        self.path
    }

    /// Reads `f` of the tree (tracked).
    pub fn with_tree<R>(&self, f: impl FnOnce(&MessageTree) -> R) -> R {
        self.tree.with(f)
    }

    /// The live message `id` of the open conversation.
    pub fn live(&self, id: &str) -> Option<LiveMessage> {
        self.messages.with_untracked(|m| m.get(id).copied())
    }

    /// The active path's records, root first.
    pub fn path_records(&self) -> Vec<MessageRecord> {
        self.path
            .get_untracked()
            .iter()
            .filter_map(|id| self.live(id).map(|l| l.snapshot()))
            .collect()
    }

    /// The records from the root down to message `id` (itself last), on whichever
    /// branch it is: what a reply answers, even one not on the active path (a compared
    /// answer).
    pub fn records_to(&self, id: &str) -> Vec<MessageRecord> {
        self.tree
            .with_untracked(|tree| tree.path_to(id))
            .iter()
            .filter_map(|id| self.live(id).map(|l| l.snapshot()))
            .collect()
    }

    /// The files the active path's messages carry, root first (tracked: the path only;
    /// a message's files never change once it is sent, and tracking every record would
    /// recompute on each flush of a streaming reply).
    pub fn path_attachments(&self) -> Vec<hearth_core::attachment::Attachment> {
        self.path.with(|path| {
            self.messages.with_untracked(|m| {
                path.iter()
                    .filter_map(|id| m.get(id))
                    .flat_map(|live| live.record.with_untracked(|r| r.attachments.clone()))
                    .collect()
            })
        })
    }

    /// The active leaf (where a new message goes).
    pub fn active_leaf(&self) -> Option<String> {
        self.tree.with_untracked(MessageTree::active_leaf)
    }

    /// Opens conversation `id`, read from the database (nothing to do when it is open).
    pub fn open(&self, id: String) {
        if self.is_open_untracked(&id) {
            self.ask();
            return;
        }
        let open = *self;
        let ticket = self.ask();
        self.store.spawn(async move {
            match open.store.messages_of(&id).await {
                Ok(records) if open.still_asked(ticket) => open.show(Some(id), records),
                Ok(_) => {}
                Err(error) => open.store.show_error(error),
            }
        });
    }

    /// Shows a new, empty chat.
    pub fn show_new(&self) {
        self.show(None, Vec::new());
    }

    /// Replaces what is on screen with conversation `id` and its `records`. A reply this
    /// tab is writing there is shown live, one another tab writes as stored; any other
    /// that was streaming is reopened.
    pub fn show(&self, id: Option<String>, mut records: Vec<MessageRecord>) {
        self.ask();
        self.found.set(None);
        // Siblings keep the order they were written in (the store returns them by id).
        records.sort_by(|a, b| a.created_at.total_cmp(&b.created_at));
        let active_root = id
            .as_ref()
            .and_then(|id| self.list.find(id))
            .and_then(|c| c.active_root_id);
        let nodes: Vec<_> = records.iter().map(MessageRecord::node).collect();
        let tree = MessageTree::from_records(&nodes, active_root.as_deref());
        let writing = id
            .as_ref()
            .map(|id| self.runs.writing(id))
            .unwrap_or_default();
        let elsewhere = id
            .as_ref()
            .is_some_and(|id| self.tabs.is_elsewhere_untracked(id));
        let owner = Owner::new();
        let live: HashMap<String, LiveMessage> = owner.with(|| {
            records
                .into_iter()
                .map(|record| {
                    let live = match writing.iter().find(|live| live.id() == record.id) {
                        Some(live) => *live,
                        _ if elsewhere => LiveMessage::new(record),
                        _ => LiveMessage::new(record.reopened()),
                    };
                    (live.id(), live)
                })
                .collect()
        });
        let previous = self
            .owners
            .try_update_value(|owners| std::mem::replace(owners, vec![owner]))
            .unwrap_or_default();
        self.release(self.current.get_untracked(), previous);
        self.messages.set(live);
        self.tree.set(tree);
        self.current.set(id);
    }

    /// Lets go of the owners of conversation `left` once its views are gone; a run still
    /// writing there keeps them.
    fn release(&self, left: Option<String>, owners: Vec<Owner>) {
        let runs = self.runs;
        let dropped: Vec<Owner> = match left {
            Some(id) => owners
                .into_iter()
                .filter_map(|owner| runs.keep(&id, owner).err())
                .collect(),
            None => owners,
        };
        if !dropped.is_empty() {
            request_animation_frame(move || drop(dropped));
        }
    }

    /// Takes the owners a finished run kept: shown with conversation `id` when it is open,
    /// else disposed.
    pub fn adopt(&self, id: &str, owners: Vec<Owner>) {
        if owners.is_empty() {
            return;
        }
        if self.is_open_untracked(id) {
            self.owners.update_value(|mine| mine.extend(owners));
        } else {
            request_animation_frame(move || drop(owners));
        }
    }

    /// Adds `record` to the live messages, under the conversation's owner.
    pub fn add_live(&self, record: MessageRecord) -> LiveMessage {
        let owner = self.owners.with_value(|owners| owners.first().cloned());
        let make = move || LiveMessage::new(record);
        let live = match owner {
            Some(owner) => owner.with(make),
            None => make(),
        };
        let id = live.id();
        self.messages.update(|m| {
            m.insert(id, live);
        });
        live
    }

    /// Takes messages `ids` off the screen.
    pub fn remove_live(&self, ids: &[String]) {
        self.messages.update(|m| {
            for id in ids {
                m.remove(id);
            }
        });
    }

    /// Stores new `records` and applies `change` to the tree in one write. They are live
    /// before the tree shows them (a row without its message would stay empty), and gone
    /// again if the write fails.
    pub async fn insert(
        &self,
        conversation_id: &str,
        records: Vec<MessageRecord>,
        change: impl FnOnce(&mut MessageTree) -> Result<(), TreeError>,
    ) -> Result<(), TreeChangeError> {
        self.insert_with(Batch::new(), conversation_id, records, change)
            .await
    }

    /// [`Self::insert`] of a new conversation's first messages, with the conversation
    /// record itself in the same write: a full disk leaves neither (never an empty
    /// conversation without its question).
    pub async fn insert_first(
        &self,
        conversation: &ConversationRecord,
        records: Vec<MessageRecord>,
        change: impl FnOnce(&mut MessageTree) -> Result<(), TreeError>,
    ) -> Result<(), TreeChangeError> {
        let mut batch = Batch::new();
        batch.put(CONVERSATIONS, conversation);
        self.insert_with(batch, &conversation.id, records, change)
            .await
    }

    async fn insert_with(
        &self,
        mut batch: Batch,
        conversation_id: &str,
        records: Vec<MessageRecord>,
        change: impl FnOnce(&mut MessageTree) -> Result<(), TreeError>,
    ) -> Result<(), TreeChangeError> {
        let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
        for record in records {
            batch.put(MESSAGES, &record);
            self.add_live(record);
        }
        let applied = self.change_tree(conversation_id, &mut batch, change).await;
        if applied.is_err() {
            self.remove_live(&ids);
        }
        applied
    }

    /// Applies `change` to the tree, adds the records whose `activeChildId` moved (and the
    /// conversation's active root and time) to `batch`, and writes it. On a storage
    /// failure the tree is left as it was.
    pub async fn change_tree(
        &self,
        conversation_id: &str,
        batch: &mut Batch,
        change: impl FnOnce(&mut MessageTree) -> Result<(), TreeError>,
    ) -> Result<(), TreeChangeError> {
        let before = self.tree.get_untracked();
        let mut after = before.clone();
        change(&mut after).map_err(TreeChangeError::Tree)?;
        let old: HashMap<String, Option<String>> = before
            .records()
            .into_iter()
            .map(|n| (n.id, n.active_child_id))
            .collect();
        // Every record whose active child moved, new records (put in this batch) included.
        for node in after.records() {
            let changed = match old.get(&node.id) {
                Some(previous) => *previous != node.active_child_id,
                None => node.active_child_id.is_some(),
            };
            if changed {
                batch.merge(
                    MESSAGES,
                    &node.id,
                    json!({ "activeChildId": node.active_child_id }),
                );
            }
        }
        let at = crate::browser::now();
        batch.merge(
            CONVERSATIONS,
            conversation_id,
            json!({ "activeRootId": after.active_root(), "updatedAt": at }),
        );
        self.store
            .write(std::mem::take(batch))
            .await
            .map_err(TreeChangeError::Storage)?;
        for node in after.records() {
            if let Some(live) = self.live(&node.id) {
                let changed = live
                    .record
                    .with_untracked(|r| r.active_child_id != node.active_child_id);
                if changed {
                    live.record
                        .update(|r| r.active_child_id = node.active_child_id.clone());
                }
            }
        }
        let root = after.active_root().map(str::to_string);
        self.tree.set(after);
        self.list.touch(conversation_id, |c| {
            c.active_root_id = root;
            c.updated_at = at;
        });
        Ok(())
    }

    /// Shows the previous (`step` −1) or next (+1) sibling of `id`.
    pub fn switch(&self, id: String, step: isize) {
        let Some(conversation_id) = self.current_untracked() else {
            return;
        };
        let open = *self;
        self.store.spawn(async move {
            let mut batch = Batch::new();
            let _ = open
                .change_tree(&conversation_id, &mut batch, |tree| {
                    tree.switch_sibling(&id, step).map(|_| ())
                })
                .await;
        });
    }

    /// Removes message `id` and its subtree from the tree and the database; what was
    /// removed, with its records, for Undo.
    pub async fn remove_subtree(
        &self,
        conversation_id: &str,
        id: &str,
    ) -> Option<(RemovedSubtree, Vec<MessageRecord>)> {
        let mut removed = None;
        let mut batch = Batch::new();
        self.change_tree(conversation_id, &mut batch, |tree| {
            removed = Some(tree.remove(id)?);
            Ok(())
        })
        .await
        .ok()?;
        let removed = removed?;
        // The records go in a second step; the tree no longer shows them.
        let records: Vec<MessageRecord> = removed
            .ids
            .iter()
            .filter_map(|id| self.live(id).map(|l| l.snapshot()))
            .collect();
        let mut deletes = Batch::new();
        for id in &removed.ids {
            deletes.delete(MESSAGES, id);
        }
        self.store.write(deletes).await.ok()?;
        self.remove_live(&removed.ids);
        Some((removed, records))
    }

    /// Puts a removed subtree back, when its conversation is still open.
    pub async fn restore(
        &self,
        conversation_id: &str,
        removed: RemovedSubtree,
        records: Vec<MessageRecord>,
    ) {
        if !self.is_open_untracked(conversation_id) {
            return;
        }
        let mut batch = Batch::new();
        for record in &records {
            batch.put(MESSAGES, record);
        }
        // On screen before the tree shows them again.
        let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
        for record in records {
            self.add_live(record);
        }
        let restored = self
            .change_tree(conversation_id, &mut batch, |tree| tree.restore(removed))
            .await;
        if restored.is_err() {
            self.remove_live(&ids);
        }
    }

    /// Shows another tab's version of message `id` of the open conversation.
    pub fn apply_stored(&self, id: &str, stored: Option<MessageRecord>) {
        let stored = stored.filter(|record| self.is_open_untracked(&record.conversation_id));
        match (stored, self.live(id)) {
            (Some(record), Some(live)) => {
                let current = live.record.with_untracked(|r| (r.rev, r.updated_at));
                if hearth_core::chat::record::newer(
                    record.rev,
                    record.updated_at,
                    current.0,
                    current.1,
                ) {
                    let structure_changed = live
                        .record
                        .with_untracked(|r| r.active_child_id != record.active_child_id);
                    live.replace(record);
                    if structure_changed {
                        self.rebuild_tree();
                    }
                }
            }
            (Some(record), None) => {
                self.add_live(record);
                self.rebuild_tree();
            }
            (None, Some(_)) => {
                self.remove_live(&[id.to_string()]);
                self.rebuild_tree();
            }
            (None, None) => {}
        }
    }

    /// The messages on screen still shown streaming that this tab does not write.
    pub fn streaming_elsewhere(&self) -> Vec<String> {
        self.messages.with_untracked(|m| {
            m.values()
                .filter(|live| {
                    live.record
                        .with_untracked(|r| r.status == hearth_core::chat::MessageStatus::Streaming)
                })
                .map(LiveMessage::id)
                .filter(|id| !self.runs.is_writing(id))
                .collect()
        })
    }

    /// Shows message `id` as stored, reopened: no tab writes it any more (its writer
    /// finished, or closed or crashed mid-reply).
    pub fn show_abandoned(&self, id: &str, stored: MessageRecord) {
        if let Some(live) = self.live(id)
            && self.is_open_untracked(&stored.conversation_id)
        {
            live.replace(stored.reopened());
        }
    }

    /// Rebuilds the tree from the live records.
    fn rebuild_tree(&self) {
        let mut records: Vec<(f64, hearth_core::chat::NodeRecord)> =
            self.messages.with_untracked(|m| {
                m.values()
                    .map(|live| live.record.with_untracked(|r| (r.created_at, r.node())))
                    .collect()
            });
        // Siblings keep the order they were written in.
        records.sort_by(|a, b| a.0.total_cmp(&b.0));
        let nodes: Vec<_> = records.into_iter().map(|(_, node)| node).collect();
        let root = self
            .current_untracked()
            .and_then(|id| self.list.find(&id))
            .and_then(|c| c.active_root_id);
        self.tree
            .set(MessageTree::from_records(&nodes, root.as_deref()));
    }
}
