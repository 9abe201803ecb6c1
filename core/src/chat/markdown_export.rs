//! A conversation's active path, or one message, as a Markdown document: what was said
//! and the images the model sent, in the order they came; nothing else (no reasoning,
//! tool arguments or results, usage or settings). The app supplies the words (in the
//! user's language) and each stored image's bytes as a `data:` URL, so the document
//! stands alone.

use super::output_image::{Block, KeptImage, OutputImage, blocks};
use super::{MessageRecord, MessageTree};

/// The words of an exported document, in the user's language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    /// The heading of the user's messages.
    pub you: String,
    /// The heading of the model's replies.
    pub assistant: String,
    /// An image's text alternative; `{number}` is its number in the reply.
    pub image: String,
    /// Said where an image could not be included; `{number}` as above.
    pub image_missing: String,
    /// Before the names of a message's attached files.
    pub attached: String,
    /// Before the numbered list of the pages a reply draws on.
    pub sources: String,
}

impl Labels {
    fn numbered(template: &str, number: usize) -> String {
        template.replace("{number}", &number.to_string())
    }
}

/// Message `message` as Markdown: its text, and for a reply the text of every round with
/// the images in their places. `image_url` gives a stored image's `data:` URL (`None`
/// when its file is gone).
pub fn message_markdown(
    message: &MessageRecord,
    labels: &Labels,
    image_url: &dyn Fn(&OutputImage) -> Option<String>,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    if message.is_user() {
        push_text(&mut parts, &message.content);
        if !message.attachments.is_empty() {
            let names: Vec<String> = message
                .attachments
                .iter()
                .map(|a| format!("`{}`", a.name.replace('`', "'")))
                .collect();
            parts.push(format!("*{} {}*", labels.attached, names.join(", ")));
        }
        return parts.join("\n\n");
    }
    let finals = std::iter::once(message.content.as_str());
    let texts = message
        .tool_rounds
        .iter()
        .map(|r| r.text.as_str())
        .chain(finals);
    for (round, text) in texts.enumerate() {
        let round = u32::try_from(round).unwrap_or(u32::MAX);
        for block in blocks(text, &message.images, round) {
            match block {
                Block::Text(range) => push_text(&mut parts, &text[range]),
                Block::Image(index) => {
                    parts.push(image_markdown(
                        &message.images[index],
                        index + 1,
                        labels,
                        image_url,
                    ));
                }
            }
        }
    }
    if let Some(list) = sources_markdown(&message.sources(), &labels.sources) {
        parts.push(list);
    }
    parts.join("\n\n")
}

/// A reply's sources under `heading` as a numbered list of links, numbered as its
/// citations `[n]` count them (a list, not reference definitions: a conversation's
/// replies each number from 1); `None` without sources. A source that is not a web
/// address is left out of the links, its number kept. Also what Copy adds to a reply's
/// text.
pub fn sources_markdown(sources: &[super::source::Source], heading: &str) -> Option<String> {
    if sources.is_empty() {
        return None;
    }
    let mut out = format!("**{}**\n", one_line(heading));
    for (index, source) in sources.iter().enumerate() {
        let name = one_line(&source.label()).replace(['[', ']'], "");
        let line = if crate::safe_url::web_host(&source.url).is_some() {
            format!(
                "[{name}](<{}>)",
                super::source::escape_destination(&source.url)
            )
        } else {
            name
        };
        out.push_str(&format!("\n{}. {line}", index + 1));
    }
    Some(out)
}

/// The messages of the active path through `records` (in any order), root first;
/// `active_root` is the root it starts from. Siblings keep the order they were written
/// in, as on screen.
pub fn active_path<'a>(
    records: &'a [MessageRecord],
    active_root: Option<&str>,
) -> Vec<&'a MessageRecord> {
    let mut sorted: Vec<&MessageRecord> = records.iter().collect();
    sorted.sort_by(|a, b| a.created_at.total_cmp(&b.created_at));
    let nodes: Vec<_> = sorted.iter().map(|m| m.node()).collect();
    let tree = MessageTree::from_records(&nodes, active_root);
    tree.active_path()
        .iter()
        .filter_map(|id| sorted.iter().find(|m| &m.id == id).copied())
        .collect()
}

/// The conversation `title` as Markdown: a title, then each message of `path` (its
/// active path, [`active_path`]) under its author's heading.
pub fn conversation_markdown(
    title: &str,
    path: &[&MessageRecord],
    labels: &Labels,
    image_url: &dyn Fn(&OutputImage) -> Option<String>,
) -> String {
    let mut out = format!("# {}\n", one_line(title));
    for message in path {
        let heading = if message.is_user() {
            &labels.you
        } else {
            &labels.assistant
        };
        let model = message
            .model
            .as_deref()
            .filter(|_| !message.is_user())
            .map(|m| format!(" ({})", one_line(m)))
            .unwrap_or_default();
        let body = message_markdown(message, labels, image_url);
        out.push_str(&format!("\n## {heading}{model}\n\n"));
        if !body.is_empty() {
            out.push_str(&body);
            out.push('\n');
        }
    }
    out
}

/// A file name for a document about `title`: its letters, digits and a few safe marks,
/// at most 60 characters, `fallback` when nothing is left, with `extension`.
pub fn file_name(title: &str, fallback: &str, extension: &str) -> String {
    let cleaned: String = title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                ' '
            }
        })
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let mut stem: String = words.join(" ").chars().take(60).collect();
    stem = stem.trim_matches(['.', ' ']).to_string();
    if stem.is_empty() {
        stem = fallback.to_string();
    }
    format!("{stem}.{extension}")
}

fn push_text(parts: &mut Vec<String>, text: &str) {
    let text = text.trim();
    if !text.is_empty() {
        parts.push(text.to_string());
    }
}

/// A title as one line (a heading ends at a line break).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn image_markdown(
    image: &OutputImage,
    number: usize,
    labels: &Labels,
    image_url: &dyn Fn(&OutputImage) -> Option<String>,
) -> String {
    let alt = Labels::numbered(&labels.image, number).replace([']', '['], "");
    let missing = || format!("*{}*", Labels::numbered(&labels.image_missing, number));
    match &image.kept {
        KeptImage::Stored { .. } => image_url(image)
            .map(|url| format!("![{alt}]({url})"))
            .unwrap_or_else(missing),
        KeptImage::Inline { mime_type, data } => {
            format!("![{alt}](data:{mime_type};base64,{data})")
        }
        // A link stays a link: a viewer must not load it unasked.
        KeptImage::Remote { url } if crate::safe_url::web_host(url).is_some() => {
            format!("[{alt}](<{}>)", url.replace(['<', '>', ' '], ""))
        }
        KeptImage::Remote { .. } | KeptImage::Lost { .. } => missing(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachment::Attachment;
    use crate::chat::output_image::LostReason;
    use crate::chat::record::Role;
    use crate::chat::tools::ToolRound;
    use crate::filetype::FileKind;

    fn labels() -> Labels {
        Labels {
            you: "You".into(),
            assistant: "Assistant".into(),
            image: "Image {number}".into(),
            image_missing: "Image {number} is not included".into(),
            attached: "Attached:".into(),
            sources: "Sources".into(),
        }
    }

    fn message(id: &str, parent: Option<&str>, role: Role, text: &str, at: f64) -> MessageRecord {
        MessageRecord {
            id: id.into(),
            parent_id: parent.map(Into::into),
            role: Some(role),
            content: text.into(),
            created_at: at,
            ..Default::default()
        }
    }

    fn stored(round: u32, at: u32, file: &str) -> OutputImage {
        OutputImage {
            round,
            at,
            kept: KeptImage::Stored {
                file: file.into(),
                mime_type: "image/png".into(),
            },
            signature: String::new(),
        }
    }

    fn url_of(image: &OutputImage) -> Option<String> {
        match &image.kept {
            KeptImage::Stored { file, .. } if file != "gone.png" => {
                Some(format!("data:image/png;base64,{file}"))
            }
            _ => None,
        }
    }

    #[test]
    fn a_reply_keeps_its_rounds_text_and_images_in_order_and_nothing_else() {
        let mut reply = message("r", None, Role::Assistant, "Final words.", 0.0);
        reply.reasoning = "secret thoughts".into();
        reply.tool_rounds = vec![ToolRound {
            text: "Let me look. Found it.".into(),
            reasoning: "more thoughts".into(),
            calls: Vec::new(),
        }];
        reply.images = vec![
            stored(0, 12, "AAA"),
            stored(1, 0, "gone.png"),
            OutputImage {
                round: 1,
                at: 12,
                kept: KeptImage::Remote {
                    url: "https://img.example/a b.png".into(),
                },
                signature: String::new(),
            },
            OutputImage {
                round: 1,
                at: 12,
                kept: KeptImage::Lost {
                    reason: LostReason::NotAnImage,
                },
                signature: String::new(),
            },
        ];
        let markdown = message_markdown(&reply, &labels(), &url_of);
        assert_eq!(
            markdown,
            "Let me look.\n\n![Image 1](data:image/png;base64,AAA)\n\nFound it.\n\n\
             *Image 2 is not included*\n\nFinal words.\n\n\
             [Image 3](<https://img.example/ab.png>)\n\n*Image 4 is not included*"
        );
        assert!(!markdown.contains("thoughts"));
    }

    #[test]
    fn a_replys_sources_follow_it_as_numbered_links() {
        let mut reply = MessageRecord {
            role: Some(Role::Assistant),
            content: "Cats sleep [1][2].".into(),
            ..Default::default()
        };
        let mut sources = Vec::new();
        crate::chat::source::add(&mut sources, "https://a.example/p q", "A [page]");
        crate::chat::source::add(&mut sources, "https://www.b.example/", "");
        sources.push(crate::chat::source::Source {
            url: "javascript:alert(1)".into(),
            title: "Imported".into(),
            passage: None,
        });
        reply.sources = crate::chat::source::encode(&sources);
        assert_eq!(
            message_markdown(&reply, &labels(), &|_| None),
            "Cats sleep [1][2].\n\n**Sources**\n\
             \n1. [A page](<https://a.example/p%20q>)\
             \n2. [b.example](<https://www.b.example/>)\
             \n3. Imported"
        );
    }

    #[test]
    fn a_question_names_its_files() {
        let mut question = message("q", None, Role::User, "  Read these  ", 0.0);
        question.attachments = vec![Attachment {
            id: "a".into(),
            name: "re`port.pdf".into(),
            kind: FileKind::Pdf,
            size: 1,
            text_chars: 0,
            notes: Vec::new(),
            pixels: None,
        }];
        assert_eq!(
            message_markdown(&question, &labels(), &url_of),
            "Read these\n\n*Attached: `re'port.pdf`*"
        );
    }

    #[test]
    fn a_conversation_follows_its_active_path_only() {
        let q = message("q", None, Role::User, "Question?", 1.0);
        let mut old = message("old", Some("q"), Role::Assistant, "Old answer", 2.0);
        old.model = Some("m-1".into());
        let mut new = message("new", Some("q"), Role::Assistant, "New answer", 3.0);
        new.model = Some("m-2".into());
        let mut q = q;
        q.active_child_id = Some("new".into());
        let records = vec![new, q, old];
        let path = active_path(&records, Some("q"));
        let ids: Vec<&str> = path.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["q", "new"]);
        let markdown = conversation_markdown("A\ntitle", &path, &labels(), &url_of);
        assert_eq!(
            markdown,
            "# A title\n\n## You\n\nQuestion?\n\n## Assistant (m-2)\n\nNew answer\n"
        );
    }

    #[test]
    fn file_names_keep_words_and_drop_paths_and_marks() {
        assert_eq!(
            file_name("Trip: Paris/Rome?", "chat", "md"),
            "Trip Paris Rome.md"
        );
        assert_eq!(file_name("../../etc/passwd", "chat", "md"), "etc passwd.md");
        assert_eq!(file_name("東京の天気", "chat", "md"), "東京の天気.md");
        assert_eq!(file_name("  ***  ", "chat", "md"), "chat.md");
        assert_eq!(file_name(&"x".repeat(100), "chat", "md").len(), 63);
    }
}
