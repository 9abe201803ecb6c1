//! Turns the conversations a source module read into Hearth's records: one message per
//! turn, branches kept, the source's active path made the active path.
//!
//! Sources keep more steps than Hearth shows: hidden system messages, tool calls and
//! their results, a reply written in several parts. A step with no role Hearth shows is
//! *transparent*: its children hang from its nearest shown ancestor. Consecutive steps of
//! one role (a reply, a tool result, the rest of the reply) become one message; where such
//! a run branches, each branch gets the run's text before its own, so every path reads
//! as the source showed it and user and reply alternate.
//!
//! Files travel with their step's text: a message carries the files of every step it
//! covers, each as a [`PeerFile`] whose attachment id is derived from the message's.
//!
//! Everything is iterative (no recursion), so a conversation thousands of steps deep
//! cannot exhaust the stack; a parent chain that loops is cut where it loops.

use std::collections::{HashMap, HashSet};

use sha2::{Digest, Sha256};

use super::Source;
use super::files::{PeerFile, SourceFile};
use crate::chat::archive::{Archive, ArchiveError};
use crate::chat::record::{ConversationRecord, MessageRecord, MessageStatus, Role};
use crate::chat::title::auto_title;

/// One step of a conversation, as a source holds it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceMessage {
    /// The source's id for it.
    pub id: String,
    /// The step it follows, if any.
    pub parent: Option<String>,
    /// Who wrote it; `None` for a step Hearth does not show.
    pub role: Option<Role>,
    /// Its text (Markdown).
    pub content: String,
    /// The model's reasoning, apart from the text.
    pub reasoning: String,
    /// The model that wrote it.
    pub model: Option<String>,
    /// When it was written, ms since the epoch.
    pub created_at: Option<f64>,
    /// The files it carries.
    pub files: Vec<SourceFile>,
}

/// One conversation, as a source holds it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceConversation {
    /// The source's id for it.
    pub id: String,
    /// Its title ("" when it has none).
    pub title: String,
    /// When it was started.
    pub created_at: Option<f64>,
    /// When it last changed.
    pub updated_at: Option<f64>,
    /// Pinned in the source.
    pub pinned: bool,
    /// Its steps, in the source's order.
    pub messages: Vec<SourceMessage>,
    /// The last step of the path the source showed, when it says.
    pub current: Option<String>,
}

/// A UUID-shaped id derived from `parts` (a version-8 UUID, RFC 9562): the same source
/// ids give the same id, and different ones never meet.
pub fn derived_id(source: Source, parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    hash.update(b"hearth-import\0");
    hash.update(source.key().as_bytes());
    for part in parts {
        hash.update([0]);
        hash.update(part.as_bytes());
    }
    let mut bytes: [u8; 16] = hash.finalize()[..16].try_into().unwrap_or([0; 16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// The archive of `conversations` from `source`, and the files its messages carry. An
/// empty conversation (nothing shown in it) is left out; a duplicated source id is told
/// apart by its position.
pub fn archive(
    source: Source,
    conversations: Vec<SourceConversation>,
    now: f64,
) -> Result<(Archive, Vec<PeerFile>), ArchiveError> {
    let mut records = Vec::new();
    let mut messages = Vec::new();
    let mut files = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for conversation in conversations {
        let seen_before = seen.entry(conversation.id.clone()).or_default();
        let key = match *seen_before {
            0 => conversation.id.clone(),
            n => format!("{}\0{n}", conversation.id),
        };
        *seen_before += 1;
        if let Some((record, mut built, mut carried)) =
            conversation_records(source, &key, conversation, now)
        {
            records.push(record);
            messages.append(&mut built);
            files.append(&mut carried);
        }
    }
    let archive = Archive::new(records, messages, None, Vec::new(), now);
    archive.check()?;
    Ok((archive, files))
}

/// A run of same-role steps not written yet: what the next message starts with.
#[derive(Debug, Clone)]
struct Run {
    content: Vec<String>,
    reasoning: Vec<String>,
    files: Vec<SourceFile>,
    model: Option<String>,
    created_at: Option<f64>,
}

/// The shown steps as a tree: which are shown, each one's shown parent, and the
/// children of each (roots under `None`), oldest first.
struct Shape {
    shown: Vec<bool>,
    shown_parent: Vec<Option<usize>>,
    children: HashMap<Option<usize>, Vec<usize>>,
}

impl Shape {
    fn of(steps: &[SourceMessage], index: &HashMap<&str, usize>) -> Self {
        let shown: Vec<bool> = steps
            .iter()
            .map(|s| {
                s.role.is_some()
                    && !(s.content.trim().is_empty()
                        && s.reasoning.trim().is_empty()
                        && s.files.is_empty())
            })
            .collect();
        // Each step's nearest shown ancestor, cut where a parent chain loops.
        let mut shown_parent = shown_parents(steps, index, &shown);
        cut_loops(&mut shown_parent, &shown);
        let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
        for (i, parent) in shown_parent.iter().enumerate() {
            if shown[i] {
                children.entry(*parent).or_default().push(i);
            }
        }
        for list in children.values_mut() {
            list.sort_by(|&a, &b| {
                let at = |i: usize| steps[i].created_at.unwrap_or(f64::MAX);
                at(a).total_cmp(&at(b)).then(a.cmp(&b))
            });
        }
        Self {
            shown,
            shown_parent,
            children,
        }
    }

    fn children(&self, of: Option<usize>) -> &[usize] {
        self.children
            .get(&of)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }
}

/// A step waiting to be written: the message it hangs from, the run of its role it
/// continues, and the steps that run covers.
struct Pending {
    step: usize,
    parent: Option<usize>,
    run: Option<Run>,
    covered: Vec<usize>,
}

/// The messages written for a conversation, with the message that ends at a step and
/// the first one that covers it (a step inside a run).
#[derive(Default)]
struct Written {
    messages: Vec<MessageRecord>,
    files: Vec<PeerFile>,
    ends: HashMap<usize, usize>,
    covers: HashMap<usize, usize>,
}

/// Where a conversation's messages go and how their ids and times are made.
struct Target<'a> {
    source: Source,
    key: &'a str,
    conversation_id: &'a str,
    start: f64,
}

/// Writes the messages of `steps`, depth first with an explicit stack.
fn write_messages(target: &Target<'_>, steps: &[SourceMessage], shape: &Shape) -> Written {
    let mut written = Written::default();
    let mut work: Vec<Pending> = shape
        .children(None)
        .iter()
        .rev()
        .map(|&step| Pending {
            step,
            parent: None,
            run: None,
            covered: Vec::new(),
        })
        .collect();
    while let Some(Pending {
        step: step_at,
        parent,
        run,
        mut covered,
    }) = work.pop()
    {
        let step = &steps[step_at];
        let mut run = run.unwrap_or(Run {
            content: Vec::new(),
            reasoning: Vec::new(),
            files: Vec::new(),
            model: None,
            created_at: step.created_at,
        });
        run.add(step);
        covered.push(step_at);
        let (same, other): (Vec<usize>, Vec<usize>) = shape
            .children(Some(step_at))
            .iter()
            .partition(|&&k| steps[k].role == step.role);
        let mut at = None;
        if same.is_empty() || !other.is_empty() {
            let message = run.message(target, step, parent.map(|p| &written.messages[p]));
            let here = written.messages.len();
            written
                .files
                .extend(run.files.iter().enumerate().map(|(i, file)| PeerFile {
                    message_id: message.id.clone(),
                    attachment_id: derived_id(
                        target.source,
                        &[&message.id, "attachment", &i.to_string()],
                    ),
                    file: file.clone(),
                }));
            written.messages.push(message);
            written.ends.insert(step_at, here);
            for &c in &covered {
                written.covers.entry(c).or_insert(here);
            }
            at = Some(here);
        }
        for &kid in other.iter().rev() {
            work.push(Pending {
                step: kid,
                parent: at,
                run: None,
                covered: Vec::new(),
            });
        }
        for &kid in same.iter().rev() {
            work.push(Pending {
                step: kid,
                parent,
                run: Some(run.clone()),
                covered: covered.clone(),
            });
        }
    }
    written
}

impl Run {
    fn add(&mut self, step: &SourceMessage) {
        if !step.content.trim().is_empty() {
            self.content.push(step.content.trim_end().to_string());
        }
        if !step.reasoning.trim().is_empty() {
            self.reasoning.push(step.reasoning.trim_end().to_string());
        }
        self.files.extend(step.files.iter().cloned());
        if step.model.is_some() {
            self.model.clone_from(&step.model);
        }
    }

    /// The message of this run, ending at `last`, written after `parent`.
    fn message(
        &self,
        target: &Target<'_>,
        last: &SourceMessage,
        parent: Option<&MessageRecord>,
    ) -> MessageRecord {
        let role = last.role.unwrap_or(Role::User);
        let created_at = self
            .created_at
            .unwrap_or(target.start)
            .max(parent.map_or(f64::MIN, |p| p.created_at + 1.0));
        MessageRecord {
            id: derived_id(target.source, &[target.key, &last.id]),
            conversation_id: target.conversation_id.to_string(),
            parent_id: parent.map(|p| p.id.clone()),
            role: Some(role),
            content: self.content.join("\n\n"),
            reasoning: self.reasoning.join("\n\n"),
            status: MessageStatus::Done,
            model: (role == Role::Assistant)
                .then(|| self.model.clone())
                .flatten(),
            created_at,
            updated_at: created_at,
            rev: 1,
            ..Default::default()
        }
    }
}

/// The source's title, or one made from the first exchange; and whether it is the
/// user's (an automatic title never replaces one).
fn title(given: &str, messages: &[MessageRecord]) -> (String, bool) {
    let given = given.trim();
    if !given.is_empty() {
        return (given.to_string(), true);
    }
    let first = |user: bool| {
        messages
            .iter()
            .find(|m| m.is_user() == user)
            .map(|m| m.content.as_str())
            .unwrap_or_default()
    };
    (
        auto_title(first(true), first(false)).unwrap_or_default(),
        false,
    )
}

fn conversation_records(
    source: Source,
    key: &str,
    conversation: SourceConversation,
    now: f64,
) -> Option<(ConversationRecord, Vec<MessageRecord>, Vec<PeerFile>)> {
    let conversation_id = derived_id(source, &[key]);
    let steps = unique_ids(conversation.messages);
    let index: HashMap<&str, usize> = steps
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    let shape = Shape::of(&steps, &index);
    let start = conversation
        .created_at
        .or_else(|| steps.iter().filter_map(|s| s.created_at).reduce(f64::min))
        .unwrap_or(now);
    let target = Target {
        source,
        key,
        conversation_id: &conversation_id,
        start,
    };
    let Written {
        messages: mut out,
        files,
        ends,
        covers,
    } = write_messages(&target, &steps, &shape);
    if out.is_empty() {
        return None;
    }
    let current = conversation
        .current
        .as_deref()
        .and_then(|c| index.get(c).copied())
        .and_then(|c| {
            if shape.shown[c] {
                Some(c)
            } else {
                shape.shown_parent[c]
            }
        })
        .and_then(|c| ends.get(&c).or_else(|| covers.get(&c)).copied());
    let current_root = set_active_path(&mut out, current);
    let (title, by_user) = title(&conversation.title, &out);
    let last = out.iter().map(|m| m.created_at).fold(start, f64::max);
    let active_root = current_root
        .or_else(|| out.iter().rposition(|m| m.parent_id.is_none()))
        .map(|at| out[at].id.clone());
    let record = ConversationRecord {
        id: conversation_id,
        title,
        title_by_user: by_user,
        pinned: conversation.pinned,
        active_root_id: active_root,
        model: out.iter().rev().find_map(|m| m.model.clone()),
        created_at: start.min(out[0].created_at),
        updated_at: conversation.updated_at.unwrap_or(last).max(last),
        rev: 1,
        ..Default::default()
    };
    Some((record, out, files))
}

/// The steps with ids made unique (a repeated or empty id gets its position).
fn unique_ids(steps: Vec<SourceMessage>) -> Vec<SourceMessage> {
    let mut seen = HashSet::new();
    steps
        .into_iter()
        .enumerate()
        .map(|(i, mut step)| {
            if step.id.is_empty() || !seen.insert(step.id.clone()) {
                step.id = format!("{}\0{i}", step.id);
                seen.insert(step.id.clone());
            }
            step
        })
        .collect()
}

/// For each step, the nearest ancestor that is shown (`None` at a root). A parent that is
/// missing ends the chain, and so does one that loops back.
fn shown_parents(
    steps: &[SourceMessage],
    index: &HashMap<&str, usize>,
    shown: &[bool],
) -> Vec<Option<usize>> {
    let parent_of = |i: usize| -> Option<usize> {
        steps[i]
            .parent
            .as_deref()
            .and_then(|p| index.get(p).copied())
            .filter(|&p| p != i)
    };
    let mut memo: Vec<Option<Option<usize>>> = vec![None; steps.len()];
    for i in 0..steps.len() {
        if memo[i].is_some() {
            continue;
        }
        // Walk up to a shown ancestor, a known answer, a root or a loop.
        let mut path = Vec::new();
        let mut on_path = HashSet::new();
        let mut at = parent_of(i);
        let answer = loop {
            match at {
                None => break None,
                Some(p) if on_path.contains(&p) || p == i => break None,
                Some(p) if shown[p] => break Some(p),
                Some(p) => {
                    if let Some(known) = memo[p] {
                        break known;
                    }
                    path.push(p);
                    on_path.insert(p);
                    at = parent_of(p);
                }
            }
        };
        memo[i] = Some(answer);
        for p in path {
            memo[p] = Some(answer);
        }
    }
    memo.into_iter().map(Option::flatten).collect()
}

/// Shown steps whose shown parents loop (A answers B, B answers A) would never be
/// reached from a root: each loop is cut at the step where it closes, which becomes a root.
fn cut_loops(shown_parent: &mut [Option<usize>], shown: &[bool]) {
    // 0: not seen, 1: on the current walk, 2: known to reach a root.
    let mut state = vec![0u8; shown_parent.len()];
    for start in 0..shown_parent.len() {
        if !shown[start] || state[start] == 2 {
            continue;
        }
        let mut walk = Vec::new();
        let mut at = start;
        loop {
            match state[at] {
                2 => break,
                1 => {
                    shown_parent[at] = None;
                    break;
                }
                _ => {}
            }
            state[at] = 1;
            walk.push(at);
            match shown_parent[at] {
                Some(parent) => at = parent,
                None => break,
            }
        }
        for step in walk {
            state[step] = 2;
        }
    }
}

/// Points every message's `active_child_id` at its newest child, then, from `current`
/// up, along the path the source showed; returns that path's root.
fn set_active_path(out: &mut [MessageRecord], current: Option<usize>) -> Option<usize> {
    let position: HashMap<String, usize> = out
        .iter()
        .enumerate()
        .map(|(i, m)| (m.id.clone(), i))
        .collect();
    let parent_of = |out: &[MessageRecord], i: usize| {
        out[i]
            .parent_id
            .as_ref()
            .and_then(|p| position.get(p).copied())
    };
    // Children are written in the source's order, so the last one written is the newest.
    for i in 0..out.len() {
        if let Some(parent) = parent_of(out, i) {
            out[parent].active_child_id = Some(out[i].id.clone());
        }
    }
    let mut at = current?;
    while let Some(parent) = parent_of(out, at) {
        out[parent].active_child_id = Some(out[at].id.clone());
        at = parent;
    }
    Some(at)
}
