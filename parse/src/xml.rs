//! The XML reading every XML-based format shares: one event stream over UTF-8 text with
//! empty elements expanded, local names without their namespace prefix, attribute
//! values, and entity references resolved into text.
//!
//! Formats match elements by local name (`p`, `t`, `tbl`), so a document that binds the
//! usual prefixes to other letters still reads.

use std::borrow::Cow;

use hearth_core::filetype::FileKind;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesRef, BytesStart, Event};

use crate::error::ParseError;

/// A pull reader over one XML part.
pub(crate) struct Xml<'a> {
    reader: quick_xml::Reader<&'a [u8]>,
    kind: FileKind,
    /// Local names of elements whose whole subtree `next` passes over.
    skipped: &'static [&'static str],
}

/// One event, reduced to what the formats use.
#[derive(Debug)]
pub(crate) enum Tag<'a> {
    /// An element opened (also for `<x/>`, followed by its `End`).
    Start(BytesStart<'a>),
    /// An element closed; its local name.
    End(String),
    /// Character data, with references resolved.
    Text(Cow<'a, str>),
    /// The end of the part.
    Eof,
}

impl<'a> Xml<'a> {
    pub(crate) fn new(text: &'a str, kind: FileKind) -> Self {
        let mut reader = quick_xml::Reader::from_str(text);
        let config = reader.config_mut();
        config.expand_empty_elements = true;
        config.check_end_names = false;
        Xml {
            reader,
            kind,
            skipped: &[],
        }
    }

    /// Passes over the subtrees of elements with these local names (`mc:Fallback`, a
    /// second copy of content already read; ODF's footnotes).
    pub(crate) fn skipping(mut self, names: &'static [&'static str]) -> Self {
        self.skipped = names;
        self
    }

    /// The next event; a syntax error is `Malformed`.
    pub(crate) fn next(&mut self) -> Result<Tag<'a>, ParseError> {
        loop {
            let event = self
                .reader
                .read_event()
                .map_err(|e| ParseError::malformed(self.kind, format!("XML: {e}")))?;
            return Ok(match event {
                Event::Start(start) if self.skipped.contains(&local(&start)) => {
                    self.skip_subtree()?;
                    continue;
                }
                Event::Start(start) => Tag::Start(start),
                Event::End(end) => Tag::End(end.local_name().as_ref().to_string()),
                Event::Text(text) => Tag::Text(text.xml10_content()),
                Event::CData(data) => Tag::Text(data.xml10_content()),
                Event::GeneralRef(reference) => Tag::Text(resolve(&reference)),
                Event::Eof => Tag::Eof,
                Event::Empty(_)
                | Event::Comment(_)
                | Event::Decl(_)
                | Event::PI(_)
                | Event::DocType(_) => continue,
            });
        }
    }
}

impl Xml<'_> {
    /// Reads up to the end of the element just opened.
    fn skip_subtree(&mut self) -> Result<(), ParseError> {
        let mut depth = 1usize;
        while depth > 0 {
            match self
                .reader
                .read_event()
                .map_err(|e| ParseError::malformed(self.kind, format!("XML: {e}")))?
            {
                Event::Start(_) => depth += 1,
                Event::End(_) => depth -= 1,
                Event::Eof => break,
                _ => {}
            }
        }
        Ok(())
    }
}

/// The local name of an element (`w:p` → `p`).
pub(crate) fn local<'s>(start: &'s BytesStart<'_>) -> &'s str {
    let name: &str = start.name().0;
    name.rsplit_once(':').map_or(name, |(_, local)| local)
}

/// The value of the attribute whose local name is `name` (`w:val` matches `val`).
pub(crate) fn attr(start: &BytesStart<'_>, name: &str) -> Option<String> {
    start
        .attributes()
        .with_checks(false)
        .flatten()
        .find_map(|a| {
            let key = a.key.local_name();
            (key.as_ref() == name).then(|| {
                a.normalized_value(XmlVersion::Implicit1_0)
                    .map_or_else(|_| a.value.to_string(), Cow::into_owned)
            })
        })
}

/// The relationship id of an element (`r:id`, whatever the prefix), as opposed to a
/// plain `id` attribute beside it.
pub(crate) fn rel_id(start: &BytesStart<'_>) -> Option<String> {
    start
        .attributes()
        .with_checks(false)
        .flatten()
        .find_map(|a| {
            let key: &str = a.key.0;
            let (prefix, local) = key.rsplit_once(':')?;
            (local == "id" && prefix != "xml").then(|| a.value.to_string())
        })
}

/// A character reference or one of XML's five predefined entities; anything else is
/// kept as written.
fn resolve(reference: &BytesRef<'_>) -> Cow<'static, str> {
    if let Ok(Some(c)) = reference.resolve_char_ref() {
        return Cow::Owned(c.to_string());
    }
    let name = reference.xml10_content();
    Cow::Borrowed(match name.as_ref() {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        _ => return Cow::Owned(format!("&{name};")),
    })
}

/// Relationship ids to targets, from an OOXML `.rels` part.
pub(crate) fn relationships(
    text: &str,
    kind: FileKind,
) -> Result<Vec<(String, String, String)>, ParseError> {
    let mut xml = Xml::new(text, kind);
    let mut out = Vec::new();
    loop {
        match xml.next()? {
            Tag::Start(start) if local(&start) == "Relationship" => {
                if let (Some(id), Some(target)) = (attr(&start, "Id"), attr(&start, "Target")) {
                    out.push((id, target, attr(&start, "Type").unwrap_or_default()));
                }
            }
            Tag::Eof => return Ok(out),
            _ => {}
        }
    }
}

/// Resolves a relationship target against the folder of the part that names it
/// (`xl/` + `worksheets/sheet1.xml`; `/xl/...` is from the root), with `.` and `..`
/// steps applied. A target that climbs above the root resolves to `None`.
pub(crate) fn resolve_target(base_dir: &str, target: &str) -> Option<String> {
    let decoded = percent_decode(target);
    let joined = match decoded.strip_prefix('/') {
        Some(absolute) => absolute.to_string(),
        None if base_dir.is_empty() => decoded,
        None => format!("{}/{decoded}", base_dir.trim_end_matches('/')),
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// The folder of a part (`xl/workbook.xml` → `xl`).
pub(crate) fn dir_of(part: &str) -> &str {
    part.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `%20`-style escapes in a URI reference, decoded where they form UTF-8.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_relative_to_their_part() {
        assert_eq!(
            resolve_target("xl", "worksheets/sheet1.xml").as_deref(),
            Some("xl/worksheets/sheet1.xml")
        );
        assert_eq!(
            resolve_target("xl", "/xl/worksheets/s.xml").as_deref(),
            Some("xl/worksheets/s.xml")
        );
        assert_eq!(
            resolve_target("OEBPS/Text", "../Text/ch%201.xhtml").as_deref(),
            Some("OEBPS/Text/ch 1.xhtml")
        );
        assert_eq!(resolve_target("", "a.xhtml").as_deref(), Some("a.xhtml"));
        assert_eq!(resolve_target("a", "../../etc/passwd"), None);
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("a%2"), "a%2");
    }

    #[test]
    fn references_and_prefixes() {
        let mut xml = Xml::new(
            r#"<w:p xmlns:w="x"><w:t w:val="a&amp;b">x &lt; y &#x263A; &nbsp;</w:t></w:p>"#,
            FileKind::Docx,
        );
        let mut text = String::new();
        let mut val = None;
        loop {
            match xml.next().unwrap() {
                Tag::Start(s) if local(&s) == "t" => val = attr(&s, "val"),
                Tag::Text(t) => text.push_str(&t),
                Tag::Eof => break,
                _ => {}
            }
        }
        assert_eq!(val.as_deref(), Some("a&b"));
        assert_eq!(text, "x < y \u{263A} &nbsp;");
    }
}
