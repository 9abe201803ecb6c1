//! Cutting a document's text into passages on its structure, for retrieval and for the
//! attachments band of the context planner: headings, paragraphs, list items, code
//! blocks, block quotes and table rows are the units, grouped up to a size and never cut
//! inside unless one alone is too big (then at line ends, then at character
//! boundaries). Each passage knows the headings it sits under, its byte range in the
//! text and its page, and the next passage repeats the end of the previous one
//! (overlap) so a sentence at the seam is found from either side.
//!
//! Ids are stable per file version: the same text cut with the same settings gives the
//! same ids, and [`stale_ids`] names those a new version no longer has.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::{Deserialize, Serialize};

use crate::context::estimate_tokens;

/// How passages are sized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChunkSettings {
    /// The most tokens of a passage's own text (its heading path is extra).
    pub max_tokens: u64,
    /// Tokens of the previous passage repeated at the start of the next.
    pub overlap_tokens: u64,
}

impl Default for ChunkSettings {
    /// About 2,000 characters of English with 200 characters of overlap.
    fn default() -> Self {
        Self {
            max_tokens: 500,
            overlap_tokens: 50,
        }
    }
}

/// One passage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    /// `<file>@<version>#<index>`.
    pub id: String,
    /// Its position, from 0.
    pub index: u32,
    /// The headings it sits under, outermost first.
    pub headings: Vec<String>,
    /// Where its own text starts and ends in the document, in bytes (the overlap it
    /// repeats lies before `start`).
    pub start: usize,
    /// See `start`.
    pub end: usize,
    /// The page `start` is on, from 1, when the document has pages.
    pub page: Option<u32>,
    /// The text to index and send: the overlap, then its own text (a table's header row
    /// is repeated when the passage starts inside the table).
    pub text: String,
}

/// A unit of structure: a byte range and what to repeat before it when a passage starts
/// there (a table's header).
#[derive(Debug, Clone)]
struct Block {
    start: usize,
    end: usize,
    headings: Vec<String>,
    prefix: Option<(usize, usize)>,
}

/// Cuts `text` (Markdown or plain text) into passages. `page_starts` are the byte
/// offsets where pages 1, 2, … begin (empty when the document has no pages).
pub fn chunk(
    text: &str,
    file: &str,
    version: &str,
    page_starts: &[u64],
    settings: ChunkSettings,
) -> Vec<Chunk> {
    let max = settings.max_tokens.max(8);
    let overlap = settings.overlap_tokens.min(max / 2);
    let mut pieces: Vec<Block> = Vec::new();
    for block in blocks(text) {
        split_block(text, block, max, &mut pieces);
    }
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut current: Option<(Block, u64)> = None;
    let flush = |group: Block, chunks: &mut Vec<Chunk>| {
        let index = chunks.len() as u32;
        let previous = chunks.last().map(|c: &Chunk| (c.start, c.end));
        let mut body = String::new();
        if let Some((start, end)) = previous
            && overlap > 0
        {
            body.push_str(tail(&text[start..end], overlap));
            if !body.is_empty() {
                body.push_str("\n\n");
            }
        }
        if let Some((start, end)) = group.prefix
            && start < group.start
        {
            body.push_str(text[start..end].trim_end());
            body.push('\n');
        }
        body.push_str(&text[group.start..group.end]);
        chunks.push(Chunk {
            id: format!("{file}@{version}#{index}"),
            index,
            headings: group.headings.clone(),
            start: group.start,
            end: group.end,
            page: page_of(page_starts, group.start),
            text: body,
        });
    };
    for piece in pieces {
        let tokens = estimate_tokens(&text[piece.start..piece.end]);
        current = match current.take() {
            // A new heading section starts a new passage; so does a full one.
            Some((group, used)) if group.headings == piece.headings && used + tokens <= max => {
                Some((
                    Block {
                        end: piece.end,
                        ..group
                    },
                    used + tokens,
                ))
            }
            Some((group, _)) => {
                flush(group, &mut chunks);
                Some((piece, tokens))
            }
            None => Some((piece, tokens)),
        };
    }
    if let Some((group, _)) = current {
        flush(group, &mut chunks);
    }
    chunks
}

/// The ids in `old` that `new` does not have (to delete after re-indexing).
pub fn stale_ids<'a>(old: &'a [String], new: &[Chunk]) -> Vec<&'a str> {
    old.iter()
        .filter(|id| !new.iter().any(|chunk| &chunk.id == *id))
        .map(String::as_str)
        .collect()
}

fn page_of(page_starts: &[u64], offset: usize) -> Option<u32> {
    if page_starts.is_empty() {
        return None;
    }
    let before = page_starts.partition_point(|&start| start <= offset as u64);
    Some(before.max(1) as u32)
}

/// The end of `text` worth about `tokens`, starting at a word boundary.
fn tail(text: &str, tokens: u64) -> &str {
    let text = text.trim_end();
    let mut start = text.len();
    for (index, _) in text.char_indices().rev() {
        if estimate_tokens(&text[index..]) > tokens {
            break;
        }
        start = index;
    }
    let rest = &text[start..];
    match rest.find(char::is_whitespace) {
        Some(space) if start > 0 && space < rest.len() => rest[space..].trim_start(),
        _ => rest,
    }
}

/// The document's units of structure, in order.
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut headings: Vec<(HeadingLevel, String)> = Vec::new();
    let mut depth = 0usize;
    let mut heading: Option<(HeadingLevel, String)> = None;
    // Inside a list or table at the top: its items or rows are the units.
    let mut container: Option<Tag<'_>> = None;
    let mut table_head: Option<(usize, usize)> = None;
    let path = |headings: &[(HeadingLevel, String)]| -> Vec<String> {
        headings.iter().map(|(_, title)| title.clone()).collect()
    };
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                let is_heading = matches!(tag, Tag::Heading { .. });
                if depth == 0 {
                    match &tag {
                        Tag::Heading { level, .. } => heading = Some((*level, String::new())),
                        Tag::List(_) | Tag::Table(_) => container = Some(tag.clone()),
                        _ => out.push(Block {
                            start: range.start,
                            end: range.end,
                            headings: path(&headings),
                            prefix: None,
                        }),
                    }
                } else if depth == 1 && container.is_some() {
                    match tag {
                        Tag::TableHead => table_head = Some((range.start, range.end)),
                        Tag::Item | Tag::TableRow => out.push(Block {
                            start: range.start,
                            end: range.end,
                            headings: path(&headings),
                            prefix: table_head,
                        }),
                        _ => {}
                    }
                }
                if depth == 0 && is_heading {
                    out.push(Block {
                        start: range.start,
                        end: range.end,
                        headings: Vec::new(),
                        prefix: None,
                    });
                }
                depth += 1;
            }
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    match end {
                        TagEnd::Heading(_) => {
                            if let Some((level, title)) = heading.take() {
                                headings.retain(|(l, _)| *l < level);
                                headings.push((level, title.trim().to_string()));
                                // The heading line belongs to the section it opens.
                                if let Some(block) = out.last_mut() {
                                    block.headings = path(&headings);
                                }
                            }
                        }
                        TagEnd::List(_) | TagEnd::Table => {
                            container = None;
                            table_head = None;
                        }
                        _ => {}
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, title)) = heading.as_mut() {
                    title.push_str(&t);
                }
            }
            // Top-level leaves without a start tag (rules, HTML, …).
            Event::Rule | Event::Html(_) if depth == 0 => out.push(Block {
                start: range.start,
                end: range.end,
                headings: path(&headings),
                prefix: None,
            }),
            _ => {}
        }
    }
    for block in &mut out {
        while block.end > block.start && text.as_bytes()[block.end - 1].is_ascii_whitespace() {
            block.end -= 1;
        }
    }
    out.retain(|b| b.end > b.start);
    out
}

/// Pushes `block` as is when it fits, else cut at line ends, then at characters.
fn split_block(text: &str, block: Block, max: u64, out: &mut Vec<Block>) {
    let slice = &text[block.start..block.end];
    if estimate_tokens(slice) <= max {
        out.push(block);
        return;
    }
    let mut start = block.start;
    let mut used = 0;
    let mut cursor = block.start;
    let push = |from: usize, to: usize, out: &mut Vec<Block>| {
        if to > from {
            out.push(Block {
                start: from,
                end: to,
                ..block.clone()
            });
        }
    };
    for line in slice.split_inclusive('\n') {
        let line_start = cursor;
        cursor += line.len();
        let tokens = estimate_tokens(line);
        if tokens > max {
            push(start, line_start, out);
            split_chars(text, line_start, cursor, max, &block, out);
            start = cursor;
            used = 0;
        } else if used + tokens > max {
            push(start, line_start, out);
            start = line_start;
            used = tokens;
        } else {
            used += tokens;
        }
    }
    push(start, block.end, out);
}

fn split_chars(text: &str, from: usize, to: usize, max: u64, block: &Block, out: &mut Vec<Block>) {
    let mut start = from;
    let mut used = 0;
    for (offset, c) in text[from..to].char_indices() {
        let cost = if c.is_ascii() { 1 } else { 4 };
        // `max` tokens is about `4 × max` ASCII characters.
        if used + cost > max * 4 && from + offset > start {
            out.push(Block {
                start,
                end: from + offset,
                ..block.clone()
            });
            start = from + offset;
            used = 0;
        }
        used += cost;
    }
    if to > start {
        out.push(Block {
            start,
            end: to,
            ..block.clone()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(max_tokens: u64, overlap_tokens: u64) -> ChunkSettings {
        ChunkSettings {
            max_tokens,
            overlap_tokens,
        }
    }

    fn cut(text: &str, max: u64) -> Vec<Chunk> {
        chunk(text, "f", "v1", &[], settings(max, 0))
    }

    #[test]
    fn passages_follow_headings_and_carry_their_path() {
        let text = "# Guide\n\nIntro paragraph.\n\n## Install\n\nRun the installer.\n\n## Use\n\nOpen the app.\n";
        let chunks = cut(text, 500);
        let paths: Vec<Vec<String>> = chunks.iter().map(|c| c.headings.clone()).collect();
        assert_eq!(
            paths,
            [
                vec!["Guide".to_string()],
                vec!["Guide".to_string(), "Install".to_string()],
                vec!["Guide".to_string(), "Use".to_string()],
            ]
        );
        assert!(chunks[1].text.starts_with("## Install"));
        assert!(chunks[1].text.contains("Run the installer."));
        assert_eq!(chunks[0].id, "f@v1#0");
        assert_eq!(chunks[2].index, 2);
    }

    #[test]
    fn a_code_block_is_never_cut_when_it_fits() {
        let code = format!("```rust\n{}```", "let x = 1;\n".repeat(20));
        let text = format!("Before.\n\n{code}\n\nAfter.\n");
        let chunks = cut(&text, 80);
        assert!(chunks.iter().any(|c| c.text.contains(&code)), "{chunks:#?}");
    }

    #[test]
    fn an_oversized_block_is_cut_at_lines_then_characters() {
        let paragraph = "word ".repeat(400);
        let code = format!("```\n{}```", "line of code here\n".repeat(100));
        let text = format!("{paragraph}\n\n{code}\n");
        let chunks = cut(&text, 50);
        for chunk in &chunks {
            assert!(
                estimate_tokens(&text[chunk.start..chunk.end]) <= 50,
                "{} tokens",
                estimate_tokens(&chunk.text)
            );
        }
        let code_lines: Vec<&Chunk> = chunks
            .iter()
            .filter(|c| c.text.contains("line of code"))
            .collect();
        assert!(code_lines.len() > 1);
        for chunk in code_lines {
            assert!(
                text[chunk.start..chunk.end].ends_with('\n')
                    || text[chunk.start..chunk.end].ends_with("```"),
                "cut at line ends"
            );
        }
    }

    #[test]
    fn table_rows_are_units_and_repeat_the_header() {
        let mut text = String::from("| Name | Price |\n|---|---|\n");
        for i in 0..60 {
            text.push_str(&format!("| item number {i} | {i}.00 |\n"));
        }
        let chunks = cut(&text, 60);
        assert!(chunks.len() > 2);
        for chunk in &chunks[1..] {
            assert!(chunk.text.starts_with("| Name | Price |"), "{}", chunk.text);
            let own = &text[chunk.start..chunk.end];
            assert!(own.starts_with("| item number"), "whole rows: {own}");
        }
    }

    #[test]
    fn list_items_are_units() {
        let text = (0..40)
            .map(|i| format!("- point {i} with some words to fill it"))
            .collect::<Vec<_>>()
            .join("\n");
        for chunk in cut(&text, 40) {
            let own = &text[chunk.start..chunk.end];
            assert!(own.starts_with("- point"), "{own}");
        }
    }

    #[test]
    fn the_next_passage_repeats_the_end_of_the_previous() {
        let text = (0..30)
            .map(|i| format!("Sentence number {i} says something."))
            .collect::<Vec<_>>()
            .join("\n\n");
        let chunks = chunk(&text, "f", "v1", &[], settings(60, 15));
        assert!(chunks.len() > 2);
        for pair in chunks.windows(2) {
            let previous = &text[pair[0].start..pair[0].end];
            let own = &text[pair[1].start..pair[1].end];
            let repeated = pair[1]
                .text
                .strip_suffix(own)
                .and_then(|t| t.strip_suffix("\n\n"))
                .unwrap();
            assert!(!repeated.is_empty());
            assert!(
                previous.ends_with(repeated),
                "{repeated:?} ends {previous:?}"
            );
        }
    }

    #[test]
    fn passages_know_their_page() {
        let text = "Page one text.\n\nMore on one.\n\nPage two text.\n";
        let two = text.find("Page two").unwrap() as u64;
        let chunks = chunk(text, "f", "v1", &[0, two], settings(5, 0));
        assert_eq!(chunks.first().unwrap().page, Some(1));
        assert_eq!(chunks.last().unwrap().page, Some(2));
    }

    #[test]
    fn every_word_is_in_some_passage_in_order_and_ids_are_stable() {
        let text = "# A\n\nalpha beta\n\n* one\n* two\n\n> quoted gamma\n\n---\n\n<div>html delta</div>\n\n## B\n\n```\ncode epsilon\n```\n\n| h |\n|---|\n| zeta |\n\ntrailing eta";
        let chunks = cut(text, 6);
        let joined: String = chunks
            .iter()
            .map(|c| &text[c.start..c.end])
            .collect::<Vec<_>>()
            .join(" ");
        let mut at = 0;
        for word in [
            "alpha", "one", "two", "gamma", "delta", "epsilon", "zeta", "eta",
        ] {
            let found = joined[at..]
                .find(word)
                .unwrap_or_else(|| panic!("{word} missing: {joined}"));
            at += found;
        }
        assert_eq!(cut(text, 6), chunks, "deterministic");
        let old: Vec<String> = chunks.iter().map(|c| c.id.clone()).collect();
        let fewer = cut("# A\n\nalpha", 6);
        assert_eq!(
            stale_ids(&old, &fewer),
            old[1..].iter().map(String::as_str).collect::<Vec<_>>()
        );
    }

    #[test]
    fn empty_and_plain_text_work() {
        assert!(cut("", 50).is_empty());
        assert!(cut("\n\n  \n", 50).is_empty());
        let plain = cut("just a line of text", 50);
        assert_eq!(plain.len(), 1);
        assert_eq!(plain[0].text, "just a line of text");
        // Multibyte text is cut on character boundaries.
        let cjk = "漢字".repeat(500);
        for chunk in cut(&cjk, 40) {
            assert!(cjk.is_char_boundary(chunk.start) && cjk.is_char_boundary(chunk.end));
        }
    }

    #[test]
    fn any_text_is_covered_in_bounds() {
        bolero::check!()
            .with_type::<String>()
            .for_each(|text: &String| {
                let chunks = chunk(text, "f", "v", &[0], settings(16, 4));
                let mut last_end = 0;
                for chunk in &chunks {
                    assert!(chunk.start < chunk.end && chunk.end <= text.len());
                    assert!(chunk.start >= last_end, "in order, no overlap of own text");
                    assert!(text.is_char_boundary(chunk.start) && text.is_char_boundary(chunk.end));
                    assert!(estimate_tokens(&text[chunk.start..chunk.end]) <= 16 * 2);
                    last_end = chunk.end;
                }
            });
    }
}
