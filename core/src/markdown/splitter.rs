//! [`StableSplitter`]: where the finished blocks of a streaming reply end, so they render
//! once and only the open tail renders again.

/// Finds where the finished blocks of a growing Markdown text end.
///
/// Feed it the whole text each time it grows (it scans only the new complete lines);
/// [`StableSplitter::stable_len`] is a byte offset such that `text[..offset]` will never
/// render differently however the text continues. It advances only at a blank line
/// outside a code fence that is followed by a line that cannot continue the previous
/// block (not indented, not a list item, quote or table row).
#[derive(Debug, Default, Clone)]
pub struct StableSplitter {
    scanned: usize,
    stable: usize,
    fence: Option<(char, usize)>,
    blank_at: Option<usize>,
}

impl StableSplitter {
    /// A splitter at the start of a reply.
    pub fn new() -> Self {
        Self::default()
    }

    /// The offset up to which the text is stable.
    pub fn stable_len(&self) -> usize {
        self.stable
    }

    /// Scans the new complete lines of `text` and returns the stable offset.
    pub fn advance(&mut self, text: &str) -> usize {
        while let Some(newline) = text.get(self.scanned..).and_then(|rest| rest.find('\n')) {
            let start = self.scanned;
            let line = &text[start..start + newline];
            self.scanned = start + newline + 1;
            self.line(line, start);
        }
        self.stable
    }

    fn line(&mut self, line: &str, start: usize) {
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        if let Some((marker, length)) = self.fence {
            let run = trimmed.chars().take_while(|c| *c == marker).count();
            if indent < 4 && run >= length && trimmed[run * marker.len_utf8()..].trim().is_empty() {
                self.fence = None;
            }
            return;
        }
        if line.trim().is_empty() {
            self.blank_at.get_or_insert(start);
            return;
        }
        let continues_block = indent > 0
            || trimmed.starts_with(['>', '|', '-', '*', '+'])
            || trimmed.split_once(['.', ')']).is_some_and(|(number, _)| {
                !number.is_empty()
                    && number.len() <= 9
                    && number.chars().all(|c| c.is_ascii_digit())
            })
            || trimmed.starts_with("[^");
        if let Some(blank) = self.blank_at.take()
            && !continues_block
        {
            self.stable = blank;
        }
        for marker in ['`', '~'] {
            let run = trimmed.chars().take_while(|c| *c == marker).count();
            if indent < 4 && run >= 3 && !(marker == '`' && trimmed[run..].contains('`')) {
                self.fence = Some((marker, run));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::{Labels, render};

    fn html(source: &str) -> String {
        render(source, &Labels::default())
    }

    fn stable_after_each_line(text: &str) -> usize {
        let mut splitter = StableSplitter::new();
        let mut last = 0;
        for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
            let offset = splitter.advance(&text[..end]);
            assert!(offset >= last, "the stable offset never moves back");
            last = offset;
        }
        last
    }

    #[test]
    fn stable_prefix_ends_at_finished_blocks() {
        let text = "First paragraph.\n\nSecond paragraph\ncontinues.\n\n# Heading\n";
        let stable = stable_after_each_line(text);
        assert_eq!(
            &text[..stable],
            "First paragraph.\n\nSecond paragraph\ncontinues.\n"
        );
        assert_eq!(html(&text[..stable]) + &html(&text[stable..]), html(text));
    }

    #[test]
    fn blank_lines_inside_a_fence_or_a_list_do_not_split() {
        let text = "```\ncode\n\nmore code\n```\n\n- one\n\n- two\n\n  indented\n\nDone.\n";
        let mut splitter = StableSplitter::new();
        let stable = splitter.advance(text);
        assert_eq!(
            &text[..stable],
            "```\ncode\n\nmore code\n```\n\n- one\n\n- two\n\n  indented\n"
        );
        assert_eq!(html(&text[..stable]) + &html(&text[stable..]), html(text));

        let open_fence = "Intro\n\n```\nstill\n\ncode\n";
        assert_eq!(StableSplitter::new().advance(open_fence), "Intro\n".len());
    }
}
