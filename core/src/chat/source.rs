//! The sources a reply cites: the web pages a provider's own search or grounding named
//! while the reply streamed (OpenAI's `url_citation` annotations, Perplexity's
//! `citations`, Anthropic's web search results and citations, Gemini's grounding chunks),
//! numbered in the order they first came, each page once; and the passages of the
//! user's knowledge collections its request carried ([`SourcePassage`], numbered first,
//! as the request numbered them for the model).
//!
//! A citation in the text is the source's number in brackets (`[2]`). It becomes a link to
//! the source only when this reply has a source of that number: the renderer is handed
//! [`reference_definitions`] before each block, so `[2]` resolves like a Markdown reference
//! link, through the same link policy as every other link, while `[7]` of a reply with
//! three sources, or `arr[2]` in code, stays text. The definitions go first, so a
//! definition the model wrote itself cannot take a citation's number over.

use serde::{Deserialize, Serialize};

use crate::safe_url::web_host;

/// The most sources one reply keeps; later ones are not numbered.
pub const MAX_SOURCES: usize = 64;
/// The longest source URL kept.
pub const MAX_URL_CHARS: usize = 2_048;
/// The most characters of a source's title kept (a longer one is cut).
pub const MAX_TITLE_CHARS: usize = 300;

/// One source of a reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Source {
    /// The page (an `http(s)` URL); empty for a passage of a collection.
    pub url: String,
    /// Its title as the provider gave it (may be empty); a passage's file and headings.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Where in a knowledge collection it is, for a passage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passage: Option<SourcePassage>,
}

/// Where a passage of a knowledge collection is: enough to open it again, and to know
/// when the file changed since.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SourcePassage {
    /// The collection's id.
    pub collection: String,
    /// Its name when the passage was found.
    pub collection_name: String,
    /// The file's id.
    pub file: String,
    /// The version of the file's text the range is in.
    pub version: u32,
    /// Where the passage's own text starts in that text, in bytes.
    pub start: u64,
    /// Where it ends.
    pub end: u64,
    /// The page it starts on, when the file has pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

impl Source {
    /// The site it is on (`example.com`), for the user to judge it before opening it;
    /// a passage's collection.
    pub fn site(&self) -> String {
        if let Some(passage) = &self.passage {
            return passage.collection_name.clone();
        }
        web_host(&self.url)
            .map(|host| {
                host.strip_prefix("www.")
                    .map(str::to_string)
                    .unwrap_or(host)
            })
            .unwrap_or_default()
    }

    /// What a list shows for it: its title, or its site when it has none.
    pub fn label(&self) -> String {
        if self.title.trim().is_empty() {
            self.site()
        } else {
            self.title.trim().to_string()
        }
    }
}

/// Adds the page `url` titled `title` to `sources` unless it is there already (a later
/// title fills an empty one), is not an `http(s)` address, is too long, or the list is
/// full. Its number (from 1), or `None` when it was not kept.
pub fn add(sources: &mut Vec<Source>, url: &str, title: &str) -> Option<usize> {
    let url = url.trim();
    if url.chars().count() > MAX_URL_CHARS || web_host(url).is_none() {
        return None;
    }
    let title: String = title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_TITLE_CHARS)
        .collect();
    if let Some(at) = sources.iter().position(|s| s.url == url) {
        if sources[at].title.is_empty() {
            sources[at].title = title;
        }
        return Some(at + 1);
    }
    if sources.len() >= MAX_SOURCES {
        return None;
    }
    sources.push(Source {
        url: url.to_string(),
        title,
        passage: None,
    });
    Some(sources.len())
}

/// Adds the passage `source` (a [`Source`] with a passage) unless the same passage is
/// there already or the list is full; its number (from 1), or `None` when not kept.
pub fn add_passage(sources: &mut Vec<Source>, source: Source) -> Option<usize> {
    let place = source.passage.as_ref()?;
    if let Some(at) = sources
        .iter()
        .position(|s| s.passage.as_ref() == Some(place))
    {
        return Some(at + 1);
    }
    if sources.len() >= MAX_SOURCES {
        return None;
    }
    let title = source.title.chars().take(MAX_TITLE_CHARS).collect();
    sources.push(Source {
        url: String::new(),
        title,
        passage: source.passage,
    });
    Some(sources.len())
}

/// Where a citation of source `number` leads: the page, or, for a passage, the reply's
/// own list of sources (`#source-<n>`), where the app opens the passage.
pub fn citation_target(source: &Source, number: usize) -> String {
    if source.passage.is_some() {
        format!("#{PASSAGE_ANCHOR}{number}")
    } else {
        source.url.clone()
    }
}

/// What a passage's citation link points at, before its number.
pub const PASSAGE_ANCHOR: &str = "source-";

/// `sources` as a record keeps them (JSON text); `None` when there are none.
pub fn encode(sources: &[Source]) -> Option<String> {
    if sources.is_empty() {
        None
    } else {
        serde_json::to_string(sources).ok()
    }
}

/// The sources a record keeps as `text` ([`encode`]); none when it holds no readable
/// list (a record from elsewhere is shown without them rather than failing).
pub fn decode(text: Option<&str>) -> Vec<Source> {
    text.and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_default()
}

/// The Markdown reference definitions of `sources` (`[1]: <url> "title"`), to go before a
/// block of the reply's text so that its citations resolve; empty without sources.
pub fn reference_definitions(sources: &[Source]) -> String {
    let mut out = String::new();
    for (index, source) in sources.iter().enumerate() {
        out.push_str(&format!(
            "[{}]: <{}> \"{}\"\n",
            index + 1,
            escape_destination(&citation_target(source, index + 1)),
            escape_title(&source.label()),
        ));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// A URL as a `<…>` link destination: no line break, `<` or `>` (percent-encoded).
pub(crate) fn escape_destination(url: &str) -> String {
    url.chars()
        .filter(|c| !c.is_control())
        .map(|c| match c {
            '<' => "%3C".to_string(),
            '>' => "%3E".to_string(),
            ' ' => "%20".to_string(),
            other => other.to_string(),
        })
        .collect()
}

/// A title inside `"…"`: no line break, quotes and backslashes escaped.
fn escape_title(title: &str) -> String {
    title
        .chars()
        .filter(|c| !c.is_control())
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            other => vec![other],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_numbered_once_in_the_order_it_first_came() {
        let mut sources = Vec::new();
        assert_eq!(add(&mut sources, "https://a.example/x", ""), Some(1));
        assert_eq!(
            add(&mut sources, "https://b.example/y", "B  page\n"),
            Some(2)
        );
        // Again: the same number, and a title where it had none.
        assert_eq!(
            add(&mut sources, " https://a.example/x ", "A page"),
            Some(1)
        );
        assert_eq!(add(&mut sources, "https://b.example/y", "Other"), Some(2));
        assert_eq!(
            sources,
            vec![
                Source {
                    url: "https://a.example/x".into(),
                    title: "A page".into(),
                    passage: None,
                },
                Source {
                    url: "https://b.example/y".into(),
                    title: "B page".into(),
                    passage: None,
                },
            ]
        );
    }

    #[test]
    fn only_bounded_web_addresses_are_kept_and_the_list_is_bounded() {
        let mut sources = Vec::new();
        for unsafe_url in [
            "javascript:alert(1)",
            "data:text/html,x",
            "/relative",
            "mailto:a@b.example",
            "",
        ] {
            assert_eq!(add(&mut sources, unsafe_url, "t"), None, "{unsafe_url}");
        }
        let long = format!("https://a.example/{}", "x".repeat(MAX_URL_CHARS));
        assert_eq!(add(&mut sources, &long, ""), None);
        for i in 0..MAX_SOURCES {
            assert_eq!(
                add(&mut sources, &format!("https://s{i}.example/"), ""),
                Some(i + 1)
            );
        }
        assert_eq!(add(&mut sources, "https://one-more.example/", ""), None);
        // One already there keeps its number even when the list is full.
        assert_eq!(add(&mut sources, "https://s3.example/", ""), Some(4));
        let title = "t".repeat(MAX_TITLE_CHARS + 10);
        let mut one = Vec::new();
        add(&mut one, "https://a.example/", &title);
        assert_eq!(one[0].title.chars().count(), MAX_TITLE_CHARS);
    }

    #[test]
    fn a_list_is_kept_as_json_text_and_unreadable_text_reads_as_none() {
        let mut sources = Vec::new();
        add(&mut sources, "https://a.example/", "A");
        add(&mut sources, "https://b.example/", "");
        let kept = encode(&sources).unwrap();
        assert_eq!(
            kept,
            r#"[{"url":"https://a.example/","title":"A"},{"url":"https://b.example/"}]"#
        );
        assert_eq!(decode(Some(&kept)), sources);
        assert_eq!(encode(&[]), None);
        assert_eq!(decode(None), Vec::new());
        assert_eq!(decode(Some("{not json")), Vec::new());
        assert_eq!(decode(Some(r#"{"url":"https://a.example/"}"#)), Vec::new());
    }

    #[test]
    fn a_source_shows_its_title_or_its_site() {
        let mut sources = Vec::new();
        add(&mut sources, "https://www.Example.com:8443/a?b", "");
        add(&mut sources, "http://user@docs.example/", "Docs");
        assert_eq!(sources[0].site(), "example.com:8443");
        assert_eq!(sources[0].label(), "example.com:8443");
        assert_eq!(sources[1].site(), "docs.example");
        assert_eq!(sources[1].label(), "Docs");
    }

    #[test]
    fn definitions_keep_every_url_and_title_inside_their_delimiters() {
        let sources = vec![
            Source {
                url: "https://a.example/p q<r>".into(),
                title: "Say \"hi\" \\ bye".into(),
                passage: None,
            },
            Source {
                url: "https://b.example/".into(),
                title: String::new(),
                passage: None,
            },
        ];
        assert_eq!(
            reference_definitions(&sources),
            "[1]: <https://a.example/p%20q%3Cr%3E> \"Say \\\"hi\\\" \\\\ bye\"\n\
             [2]: <https://b.example/> \"b.example\"\n\n"
        );
        assert_eq!(reference_definitions(&[]), "");
    }

    #[test]
    fn a_passage_is_kept_once_and_its_citation_opens_it_in_the_reply() {
        let passage = |file: &str| Source {
            url: String::new(),
            title: format!("{file}.md — Setup"),
            passage: Some(SourcePassage {
                collection: "c".into(),
                collection_name: "Manuals".into(),
                file: file.into(),
                version: 1,
                start: 0,
                end: 10,
                page: Some(2),
            }),
        };
        let mut sources = Vec::new();
        assert_eq!(add_passage(&mut sources, passage("a")), Some(1));
        assert_eq!(add_passage(&mut sources, passage("b")), Some(2));
        assert_eq!(add_passage(&mut sources, passage("a")), Some(1));
        // A source without a passage is not one.
        assert_eq!(add_passage(&mut sources, Source::default()), None);
        assert_eq!(add(&mut sources, "https://w.example/", "Web"), Some(3));
        assert_eq!(sources[0].site(), "Manuals");
        let definitions = reference_definitions(&sources);
        assert!(definitions.starts_with("[1]: <#source-1> \"a.md — Setup\"\n[2]: <#source-2>"));
        assert!(definitions.contains("[3]: <https://w.example/> \"Web\""));
        let back = decode(encode(&sources).as_deref());
        assert_eq!(back, sources);
        let html = crate::markdown::render(
            &format!("{definitions}See [1] and [3]."),
            &Default::default(),
        );
        assert!(
            html.contains("<a class=\"citation\" href=\"#source-1\" title=\"a.md — Setup\">"),
            "{html}"
        );
        assert!(
            html.contains("href=\"https://w.example/\" title=\"Web\" target=\"_blank\""),
            "{html}"
        );
    }
}
