//! How attached files enter a turn: each file's text cut into passages on its structure
//! (`crate::chunk`), named after the file, competing in the planner's attachments band;
//! a file whose text is gone stands in as one item saying so.

use crate::attachment::Attachment;
use crate::chat::request::ContextItem;
use crate::chunk::{ChunkSettings, chunk};

/// The passages of `attachment`'s `text` as context items, in document order, each
/// under the file's name (and its part, when there are several).
pub fn context_items(attachment: &Attachment, text: &str) -> Vec<ContextItem> {
    let chunks = chunk(text, &attachment.id, "1", &[], ChunkSettings::default());
    let count = chunks.len();
    chunks
        .into_iter()
        .map(|passage| {
            let mut source = attachment.name.clone();
            if count > 1 {
                source.push_str(&format!(" (part {} of {count})", passage.index + 1));
            }
            if !passage.headings.is_empty() {
                source.push_str(" — ");
                source.push_str(&passage.headings.join(" › "));
            }
            ContextItem {
                id: passage.id,
                source,
                origin: attachment.name.clone(),
                text: passage.text,
                missing: false,
                cite: None,
            }
        })
        .collect()
}

/// What stands in for `attachment` when its text is no longer stored in this browser:
/// the model is told, and the reply names the file ([`ContextItem::missing`]).
pub fn missing_item(attachment: &Attachment) -> ContextItem {
    ContextItem {
        id: format!("{}@missing", attachment.id),
        source: attachment.name.clone(),
        origin: attachment.name.clone(),
        text: "[This file's text is no longer stored in this browser.]".to_string(),
        missing: true,
        cite: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filetype::FileKind;

    #[test]
    fn a_documents_passages_are_named_after_the_file() {
        let attachment = Attachment {
            id: "a1".into(),
            name: "guide.md".into(),
            kind: FileKind::Markdown,
            size: 10,
            text_chars: 10,
            notes: Vec::new(),
            pixels: None,
        };
        let one = context_items(&attachment, "Just a line.");
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].source, "guide.md");
        assert_eq!(one[0].id, "a1@1#0");
        let text = format!("# Setup\n\n{}", "A sentence of the guide. ".repeat(400));
        let many = context_items(&attachment, &text);
        assert!(many.len() > 1);
        assert!(many[0].source.starts_with("guide.md (part 1 of"));
        assert!(many[0].source.ends_with("— Setup"));
        let record = serde_json::to_value(&attachment).unwrap();
        assert_eq!(record["kind"], "markdown");
        assert!(record.get("notes").is_none());
    }
}
