//! Where a conversation's context starts again: `/clear` marks the message the
//! conversation ends with, and a turn whose active path holds a marked message sends only
//! what follows the last one (`request::turn_history`; compression folds only those
//! turns). The marks live on the conversation (`ConversationRecord::context_breaks`), not
//! on messages: nothing stored is changed, a break on another branch does not apply, and
//! taking a break back restores the whole history.

/// The most breaks a conversation keeps (the oldest go first).
pub const MAX_BREAKS: usize = 100;

/// `breaks` with a break after message `after_id` (kept once, the newest last).
pub fn add(mut breaks: Vec<String>, after_id: &str) -> Vec<String> {
    breaks.retain(|id| id != after_id);
    breaks.push(after_id.to_string());
    if breaks.len() > MAX_BREAKS {
        breaks.drain(..breaks.len() - MAX_BREAKS);
    }
    breaks
}

/// `breaks` without the break after message `after_id`.
pub fn remove(mut breaks: Vec<String>, after_id: &str) -> Vec<String> {
    breaks.retain(|id| id != after_id);
    breaks
}

/// Where the context starts on a path of message ids (oldest first): just after the last
/// of them that has a break, or 0 when none has.
pub fn start<'a>(
    path: impl DoubleEndedIterator<Item = &'a str> + ExactSizeIterator,
    breaks: &[String],
) -> usize {
    let len = path.len();
    path.rev()
        .position(|id| breaks.iter().any(|b| b == id))
        .map_or(0, |from_end| len - from_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn start_of(path: &[&str], breaks: &[&str]) -> usize {
        start(path.iter().copied(), &ids(breaks))
    }

    #[test]
    fn the_context_starts_after_the_last_break_on_the_path() {
        let path = ["u1", "a1", "u2", "a2", "u3"];
        assert_eq!(start_of(&path, &[]), 0);
        assert_eq!(start_of(&path, &["a1"]), 2);
        assert_eq!(start_of(&path, &["a1", "a2"]), 4);
        // Order in the list does not matter: the path decides which is last.
        assert_eq!(start_of(&path, &["a2", "a1"]), 4);
        // A break on another branch does not apply.
        assert_eq!(start_of(&path, &["b7"]), 0);
        // A break after the newest message leaves nothing before it.
        assert_eq!(start_of(&path, &["u3"]), 5);
    }

    #[test]
    fn a_break_is_kept_once_and_bounded_oldest_first() {
        let breaks = add(add(Vec::new(), "a1"), "a2");
        assert_eq!(breaks, ids(&["a1", "a2"]));
        assert_eq!(add(breaks.clone(), "a1"), ids(&["a2", "a1"]));
        assert_eq!(remove(breaks, "a1"), ids(&["a2"]));
        let many = (0..MAX_BREAKS + 5).fold(Vec::new(), |b, i| add(b, &format!("m{i}")));
        assert_eq!(many.len(), MAX_BREAKS);
        assert_eq!(many[0], "m5");
        assert_eq!(many.last().map(String::as_str), Some("m104"));
    }
}
