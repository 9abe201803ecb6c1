//! Citations in rendered Markdown: `[2]`, resolved by the reply's source definitions
//! (`crate::chat::source::reference_definitions`), is written as a numbered link with the
//! source's title; `[1][2]`, which CommonMark reads as one link to source 2 with the text
//! `1`, is split back into the two citations a model means by it.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;

use pulldown_cmark::{CowStr, Event, LinkType, RefDefs, Tag, TagEnd};
use pulldown_cmark_escape::{escape_href, escape_html};

/// The longest citation number (three digits: a reply keeps at most 64 sources).
const MAX_DIGITS: usize = 3;

fn is_number(label: &str) -> bool {
    !label.is_empty() && label.len() <= MAX_DIGITS && label.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a link is a citation: `[2]` or `[2][]` whose label is a number.
pub(super) fn is_citation(link_type: LinkType, label: &str) -> bool {
    matches!(link_type, LinkType::Shortcut | LinkType::Collapsed) && is_number(label)
}

/// The opening tag of a citation's link, with its source's title to hover.
pub(super) fn citation_open(href: &str, title: &str) -> String {
    let mut out = String::from("<a class=\"citation\" href=\"");
    let _ = escape_href(&mut out, href);
    out.push_str("\" title=\"");
    let _ = escape_html(&mut out, title);
    if href.starts_with('#') {
        // A passage of the user's collections: the app opens it in place.
        out.push_str("\">");
    } else {
        out.push_str("\" target=\"_blank\" rel=\"noopener noreferrer nofollow\">");
    }
    out
}

type Item<'a> = (Event<'a>, Range<usize>);

/// The definitions whose label is a number: destination and title, by label.
pub(super) fn numbered(definitions: &RefDefs<'_>) -> HashMap<String, (String, String)> {
    definitions
        .iter()
        .filter(|(label, _)| is_number(label))
        .map(|(label, definition)| {
            let title = definition.title.as_deref().unwrap_or_default().to_string();
            (label.to_string(), (definition.dest.to_string(), title))
        })
        .collect()
}

/// The events of `inner` with every `[a][b]` of two defined numbers as two citations.
pub(super) struct Pairs<'a, I> {
    inner: I,
    /// The numbered definitions: destination and title.
    defined: HashMap<String, (String, String)>,
    queue: VecDeque<Item<'a>>,
}

impl<'a, I: Iterator<Item = Item<'a>>> Pairs<'a, I> {
    /// `defined`: the document's reference definitions whose label is a number.
    pub(super) fn new(inner: I, defined: HashMap<String, (String, String)>) -> Self {
        Self {
            inner,
            defined,
            queue: VecDeque::new(),
        }
    }

    fn citation(&self, number: &str, range: &Range<usize>) -> [Item<'a>; 3] {
        let (url, title) = self.defined.get(number).cloned().unwrap_or_default();
        [
            (
                Event::Start(Tag::Link {
                    link_type: LinkType::Shortcut,
                    dest_url: CowStr::from(url),
                    title: CowStr::from(title),
                    id: CowStr::from(number.to_string()),
                }),
                range.clone(),
            ),
            (Event::Text(CowStr::from(number.to_string())), range.clone()),
            (Event::End(TagEnd::Link), range.clone()),
        ]
    }
}

impl<'a, I: Iterator<Item = Item<'a>>> Iterator for Pairs<'a, I> {
    type Item = Item<'a>;

    fn next(&mut self) -> Option<Item<'a>> {
        if let Some(item) = self.queue.pop_front() {
            return Some(item);
        }
        let first = self.inner.next()?;
        let second_label = match &first.0 {
            Event::Start(Tag::Link {
                link_type: LinkType::Reference,
                id,
                ..
            }) if is_number(id) && self.defined.contains_key(id.as_ref()) => id.to_string(),
            _ => return Some(first),
        };
        let second = self.inner.next();
        let third = self.inner.next();
        let pair = match (&second, &third) {
            (Some((Event::Text(text), _)), Some((Event::End(TagEnd::Link), _)))
                if is_number(text) && self.defined.contains_key(text.as_ref()) =>
            {
                Some(text.to_string())
            }
            _ => None,
        };
        match pair {
            Some(first_label) => {
                let range = first.1;
                self.queue.extend(self.citation(&first_label, &range));
                self.queue.extend(self.citation(&second_label, &range));
            }
            None => {
                self.queue.push_back(first);
                self.queue.extend(second);
                self.queue.extend(third);
            }
        }
        self.queue.pop_front()
    }
}
