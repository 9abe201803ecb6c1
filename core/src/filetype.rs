//! What kind of file a byte buffer holds, decided from its bytes and not from its name.
//!
//! An upload's name and declared MIME type are whatever the sender says; a parser picked
//! from them reads a PDF parser's input as a ZIP, or a ZIP bomb as "text". [`sniff`] looks
//! at the content: magic numbers for PDF and the image formats, the entry names of a ZIP
//! container (read from its local file headers, bounded) for the Office, OpenDocument and
//! EPUB formats, and for everything else whether the bytes are UTF-8 text at all. Only
//! among the text kinds does the name hint help decide (Markdown, CSV, JSON, HTML, plain
//! text); a `.pdf` name on text bytes is text, a `.txt` name on PDF bytes is a PDF.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The kinds of file Hearth recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// A PDF document (`%PDF-`).
    Pdf,
    /// A Word document (OOXML, a ZIP with `word/` parts).
    Docx,
    /// An Excel workbook (OOXML, a ZIP with `xl/` parts).
    Xlsx,
    /// A PowerPoint deck (OOXML, a ZIP with `ppt/` parts).
    Pptx,
    /// An OpenDocument text (a ZIP whose `mimetype` entry says so).
    Odt,
    /// An EPUB book (a ZIP whose `mimetype` entry says so).
    Epub,
    /// An HTML page (text starting with `<!doctype html` or `<html`).
    Html,
    /// Markdown text.
    Markdown,
    /// Plain UTF-8 text.
    Text,
    /// Comma-separated values.
    Csv,
    /// A JSON document.
    Json,
    /// A PNG image.
    Png,
    /// A JPEG image.
    Jpeg,
    /// A GIF image.
    Gif,
    /// A WebP image.
    Webp,
}

impl FileKind {
    /// The MIME type of this kind.
    pub fn mime(self) -> &'static str {
        match self {
            FileKind::Pdf => "application/pdf",
            FileKind::Docx => {
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
            }
            FileKind::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            FileKind::Pptx => {
                "application/vnd.openxmlformats-officedocument.presentationml.presentation"
            }
            FileKind::Odt => ODT_MIMETYPE,
            FileKind::Epub => EPUB_MIMETYPE,
            FileKind::Html => "text/html",
            FileKind::Markdown => "text/markdown",
            FileKind::Text => "text/plain",
            FileKind::Csv => "text/csv",
            FileKind::Json => "application/json",
            FileKind::Png => "image/png",
            FileKind::Jpeg => "image/jpeg",
            FileKind::Gif => "image/gif",
            FileKind::Webp => "image/webp",
        }
    }

    /// The stable snake_case name of this kind, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Pdf => "pdf",
            FileKind::Docx => "docx",
            FileKind::Xlsx => "xlsx",
            FileKind::Pptx => "pptx",
            FileKind::Odt => "odt",
            FileKind::Epub => "epub",
            FileKind::Html => "html",
            FileKind::Markdown => "markdown",
            FileKind::Text => "text",
            FileKind::Csv => "csv",
            FileKind::Json => "json",
            FileKind::Png => "png",
            FileKind::Jpeg => "jpeg",
            FileKind::Gif => "gif",
            FileKind::Webp => "webp",
        }
    }

    /// Whether this kind is an image (shown or sent to a vision model, never parsed).
    pub fn is_image(self) -> bool {
        matches!(
            self,
            FileKind::Png | FileKind::Jpeg | FileKind::Gif | FileKind::Webp
        )
    }

    /// Whether this kind is a document whose text can be extracted.
    pub fn is_document(self) -> bool {
        !self.is_image()
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a buffer's type could not be recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum UnknownType {
    /// Binary bytes with no magic number Hearth knows, and not UTF-8 text.
    #[error(
        "this file's type is not one Hearth can read: it is neither a PDF, an Office, \
         OpenDocument text or EPUB document, an image, nor UTF-8 text"
    )]
    Binary,
    /// A ZIP archive that is none of the ZIP-based document formats.
    #[error(
        "this file is a ZIP archive but not a Word, Excel, PowerPoint, OpenDocument text \
         or EPUB document; unpack it and upload the documents inside"
    )]
    Archive,
}

impl UnknownType {
    /// The stable error code, the same for every reason.
    pub fn code(&self) -> &'static str {
        "file_type_unknown"
    }
}

/// The `mimetype` entry of an OpenDocument text.
const ODT_MIMETYPE: &str = "application/vnd.oasis.opendocument.text";
/// The `mimetype` entry of an EPUB.
const EPUB_MIMETYPE: &str = "application/epub+zip";

/// How many bytes of a ZIP are scanned for local file headers.
const ZIP_SCAN_BYTES: usize = 8 * 1024 * 1024;
/// How many local file headers are looked at before giving up.
const ZIP_SCAN_HEADERS: usize = 10_000;
/// The local file header signature, `PK\x03\x04`.
const LOCAL_HEADER: [u8; 4] = *b"PK\x03\x04";
/// The fixed part of a local file header.
const LOCAL_HEADER_LEN: usize = 30;

/// Decides a buffer's kind from its bytes; `name_hint` (a file name) only tells the text
/// kinds apart.
pub fn sniff(bytes: &[u8], name_hint: Option<&str>) -> Result<FileKind, UnknownType> {
    if let Some(kind) = magic(bytes) {
        return Ok(kind);
    }
    if bytes.starts_with(&LOCAL_HEADER) {
        return zip_kind(bytes).ok_or(UnknownType::Archive);
    }
    if bytes.starts_with(b"PK\x05\x06") {
        // An empty ZIP archive (only its end record).
        return Err(UnknownType::Archive);
    }
    text_kind(bytes, name_hint).ok_or(UnknownType::Binary)
}

/// Magic numbers of the formats that have one at offset 0.
fn magic(bytes: &[u8]) -> Option<FileKind> {
    if bytes.starts_with(b"%PDF-") {
        Some(FileKind::Pdf)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(FileKind::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(FileKind::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(FileKind::Gif)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(FileKind::Webp)
    } else {
        None
    }
}

/// One local file header as far as sniffing needs it.
struct LocalEntry<'a> {
    name: &'a [u8],
    /// The entry's data when it is stored and fits in the buffer.
    stored_data: Option<&'a [u8]>,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *b.get(at)?,
        *b.get(at + 1)?,
        *b.get(at + 2)?,
        *b.get(at + 3)?,
    ]))
}

/// Reads the local file header at `at`, if a whole one is there.
fn local_entry(b: &[u8], at: usize) -> Option<LocalEntry<'_>> {
    let method = u16_at(b, at + 8)?;
    let compressed = u32_at(b, at + 18)? as usize;
    let name_len = u16_at(b, at + 26)? as usize;
    let extra_len = u16_at(b, at + 28)? as usize;
    let name_start = at + LOCAL_HEADER_LEN;
    let name = b.get(name_start..name_start + name_len)?;
    let data_start = name_start + name_len + extra_len;
    let stored_data = if method == 0 {
        b.get(data_start..data_start.checked_add(compressed)?)
    } else {
        None
    };
    Some(LocalEntry { name, stored_data })
}

/// Tells the ZIP-based formats apart by the entries their local file headers name.
///
/// Signatures are searched for across the (bounded) buffer rather than followed by their
/// sizes, because an entry written with a data descriptor declares its size as zero.
fn zip_kind(bytes: &[u8]) -> Option<FileKind> {
    let scan = &bytes[..bytes.len().min(ZIP_SCAN_BYTES)];
    let mut at = 0;
    let mut seen = 0;
    let mut container = false;
    while seen < ZIP_SCAN_HEADERS && at + LOCAL_HEADER.len() <= scan.len() {
        let Some(offset) = find(&scan[at..], &LOCAL_HEADER) else {
            break;
        };
        let here = at + offset;
        at = here + LOCAL_HEADER.len();
        let Some(entry) = local_entry(scan, here) else {
            continue;
        };
        seen += 1;
        if seen == 1 && entry.name == b"mimetype" {
            match entry.stored_data.map(<[u8]>::trim_ascii) {
                Some(m) if m == ODT_MIMETYPE.as_bytes() => return Some(FileKind::Odt),
                Some(m) if m == EPUB_MIMETYPE.as_bytes() => return Some(FileKind::Epub),
                // Another OpenDocument kind (spreadsheet, presentation) or a compressed
                // mimetype entry: keep looking at the parts.
                _ => {}
            }
        }
        if entry.name.starts_with(b"word/") {
            return Some(FileKind::Docx);
        }
        if entry.name.starts_with(b"xl/") {
            return Some(FileKind::Xlsx);
        }
        if entry.name.starts_with(b"ppt/") {
            return Some(FileKind::Pptx);
        }
        if entry.name == b"META-INF/container.xml" {
            container = true;
        }
    }
    // An EPUB whose mimetype entry was compressed still has its container file.
    container.then_some(FileKind::Epub)
}

/// The first position of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The text kinds: UTF-8 (a BOM allowed) without NUL bytes.
fn text_kind(bytes: &[u8], name_hint: Option<&str>) -> Option<FileKind> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if body.contains(&0) {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    let lead = text.trim_start();
    if starts_with_ignore_case(lead, "<!doctype html") || starts_with_ignore_case(lead, "<html") {
        return Some(FileKind::Html);
    }
    let extension = name_hint
        .and_then(|n| n.rsplit_once('.'))
        .map(|(_, ext)| ext.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown" | "mdx") => return Some(FileKind::Markdown),
        Some("csv") => return Some(FileKind::Csv),
        Some("json") => {
            return Some(if is_json(lead) {
                FileKind::Json
            } else {
                FileKind::Text
            });
        }
        Some("html" | "htm" | "xhtml") => {
            return Some(if lead.starts_with('<') {
                FileKind::Html
            } else {
                FileKind::Text
            });
        }
        Some("txt" | "text") => return Some(FileKind::Text),
        _ => {}
    }
    if is_json(lead) {
        Some(FileKind::Json)
    } else if looks_like_markdown(text) {
        Some(FileKind::Markdown)
    } else if looks_like_csv(text) {
        Some(FileKind::Csv)
    } else {
        Some(FileKind::Text)
    }
}

fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// A JSON object or array (a bare string or number is text).
fn is_json(lead: &str) -> bool {
    (lead.starts_with('{') || lead.starts_with('['))
        && serde_json::from_str::<serde::de::IgnoredAny>(lead).is_ok()
}

/// How many leading lines the content heuristics look at.
const HEURISTIC_LINES: usize = 50;

/// An ATX heading or a code fence among the first lines.
fn looks_like_markdown(text: &str) -> bool {
    text.lines().take(HEURISTIC_LINES).any(|line| {
        let hashes = line.bytes().take_while(|&b| b == b'#').count();
        ((1..=6).contains(&hashes) && line[hashes..].starts_with(' ')) || line.starts_with("```")
    })
}

/// At least two of the first lines, all with the same non-zero number of commas.
fn looks_like_csv(text: &str) -> bool {
    let mut counts = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(HEURISTIC_LINES)
        .map(|l| l.bytes().filter(|&b| b == b',').count());
    let Some(first) = counts.next() else {
        return false;
    };
    let mut rows = 1;
    for count in counts {
        if count != first {
            return false;
        }
        rows += 1;
    }
    first > 0 && rows >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal stored ZIP local file header followed by its data.
    fn local(name: &str, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&LOCAL_HEADER);
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0]); // version, flags, method 0
        out.extend_from_slice(&[0; 8]); // time, date, crc
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        out
    }

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        entries.iter().flat_map(|(n, d)| local(n, d)).collect()
    }

    #[test]
    fn magic_numbers_decide_binary_kinds() {
        assert_eq!(sniff(b"%PDF-1.7\n...", None), Ok(FileKind::Pdf));
        assert_eq!(
            sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", None),
            Ok(FileKind::Png)
        );
        assert_eq!(
            sniff(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], None),
            Ok(FileKind::Jpeg)
        );
        assert_eq!(sniff(b"GIF89a\x01\x00", None), Ok(FileKind::Gif));
        assert_eq!(sniff(b"GIF87a\x01\x00", None), Ok(FileKind::Gif));
        assert_eq!(sniff(b"RIFF\x24\0\0\0WEBPVP8 ", None), Ok(FileKind::Webp));
        // RIFF that is not WebP (a WAV file) is binary and unknown.
        assert_eq!(
            sniff(b"RIFF\x24\0\0\0WAVEfmt \x00\xff", None),
            Err(UnknownType::Binary)
        );
    }

    #[test]
    fn bytes_win_over_the_name() {
        assert_eq!(sniff(b"%PDF-1.4\n", Some("notes.txt")), Ok(FileKind::Pdf));
        assert_eq!(
            sniff(b"just some words\n", Some("report.pdf")),
            Ok(FileKind::Text)
        );
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n", Some("a.md")), Ok(FileKind::Png));
    }

    #[test]
    fn ooxml_parts_name_the_format() {
        let docx = zip_of(&[
            ("[Content_Types].xml", b"<Types/>"),
            ("_rels/.rels", b"<Relationships/>"),
            ("word/document.xml", b"<w:document/>"),
        ]);
        assert_eq!(sniff(&docx, None), Ok(FileKind::Docx));
        let xlsx = zip_of(&[("[Content_Types].xml", b"x"), ("xl/workbook.xml", b"x")]);
        assert_eq!(sniff(&xlsx, Some("a.docx")), Ok(FileKind::Xlsx));
        let pptx = zip_of(&[
            ("[Content_Types].xml", b"x"),
            ("ppt/presentation.xml", b"x"),
        ]);
        assert_eq!(sniff(&pptx, None), Ok(FileKind::Pptx));
    }

    #[test]
    fn mimetype_entry_names_odt_and_epub() {
        let odt = zip_of(&[("mimetype", ODT_MIMETYPE.as_bytes()), ("content.xml", b"x")]);
        assert_eq!(sniff(&odt, None), Ok(FileKind::Odt));
        let epub = zip_of(&[("mimetype", EPUB_MIMETYPE.as_bytes()), ("OEBPS/a", b"x")]);
        assert_eq!(sniff(&epub, None), Ok(FileKind::Epub));
        // A spreadsheet is OpenDocument but not text.
        let ods = zip_of(&[
            (
                "mimetype",
                b"application/vnd.oasis.opendocument.spreadsheet",
            ),
            ("content.xml", b"x"),
        ]);
        assert_eq!(sniff(&ods, Some("a.odt")), Err(UnknownType::Archive));
    }

    #[test]
    fn other_zips_and_binaries_are_unknown() {
        let plain = zip_of(&[("photos/a.jpg", b"x"), ("readme.txt", b"hi")]);
        assert_eq!(sniff(&plain, Some("a.docx")), Err(UnknownType::Archive));
        assert_eq!(
            sniff(b"PK\x05\x06\0\0\0\0", None),
            Err(UnknownType::Archive)
        );
        assert_eq!(sniff(b"PK\x03\x04\x14", None), Err(UnknownType::Archive));
        assert_eq!(
            sniff(b"\x7fELF\x02\x01\x01\0\0\0", None),
            Err(UnknownType::Binary)
        );
        assert_eq!(sniff(b"text\0with nul", None), Err(UnknownType::Binary));
        assert_eq!(sniff(&[0xC3, 0x28, b'a'], None), Err(UnknownType::Binary));
        assert_eq!(UnknownType::Binary.code(), "file_type_unknown");
        assert_eq!(UnknownType::Archive.code(), "file_type_unknown");
    }

    #[test]
    fn html_by_its_start_ignoring_case_and_space() {
        assert_eq!(sniff(b"  \n<!DOCTYPE HTML><p>x", None), Ok(FileKind::Html));
        assert_eq!(sniff(b"<Html lang=en>", Some("x.txt")), Ok(FileKind::Html));
        assert_eq!(
            sniff(b"<div>hi</div>", Some("page.htm")),
            Ok(FileKind::Html)
        );
        assert_eq!(sniff(b"<div>hi</div>", None), Ok(FileKind::Text));
        assert_eq!(sniff(b"no markup", Some("a.html")), Ok(FileKind::Text));
    }

    #[test]
    fn json_only_when_it_parses() {
        assert_eq!(sniff(br#"{"a": [1, 2]}"#, None), Ok(FileKind::Json));
        assert_eq!(sniff(b"\xEF\xBB\xBF[1, 2]\n", None), Ok(FileKind::Json));
        assert_eq!(sniff(br#"{"a": "#, Some("x.json")), Ok(FileKind::Text));
        assert_eq!(sniff(b"42", None), Ok(FileKind::Text));
    }

    #[test]
    fn markdown_csv_and_text() {
        assert_eq!(
            sniff(b"plain words", Some("README.md")),
            Ok(FileKind::Markdown)
        );
        assert_eq!(
            sniff(b"intro\n\n## Usage\nrun it", None),
            Ok(FileKind::Markdown)
        );
        assert_eq!(
            sniff(b"```rust\nfn x() {}\n```", None),
            Ok(FileKind::Markdown)
        );
        assert_eq!(sniff(b"#hashtag only", None), Ok(FileKind::Text));
        assert_eq!(sniff(b"a;b\n1;2\n", Some("t.csv")), Ok(FileKind::Csv));
        assert_eq!(sniff(b"name,age\nann,3\nbo,4\n", None), Ok(FileKind::Csv));
        assert_eq!(
            sniff(b"Hello, world.\nNo commas here\n", None),
            Ok(FileKind::Text)
        );
        assert_eq!(
            sniff("日本語のテキスト".as_bytes(), None),
            Ok(FileKind::Text)
        );
        assert_eq!(sniff(b"", None), Ok(FileKind::Text));
    }

    #[test]
    fn kinds_have_mimes_and_classes() {
        assert_eq!(FileKind::Pdf.mime(), "application/pdf");
        assert_eq!(FileKind::Epub.mime(), "application/epub+zip");
        assert!(FileKind::Webp.is_image() && !FileKind::Webp.is_document());
        assert!(FileKind::Docx.is_document() && !FileKind::Docx.is_image());
        assert_eq!(
            serde_json::to_string(&FileKind::Markdown).unwrap(),
            "\"markdown\""
        );
        assert_eq!(FileKind::Xlsx.to_string(), "xlsx");
    }
}
