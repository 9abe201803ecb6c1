//! Each format parsed from a real file the test builds: what reaches the Markdown, in
//! which order, and what is noted.

mod support;

use hearth_parse::{FileKind, Limits, Note, ParseError, parse};
use support::office::{
    docx, docx_numbered, epub, epub_with, odt, pptx, w_li, w_li_of, w_p, w_table, xlsx, xlsx_styled,
};
use support::pdf::{encrypted_pdf, pdf_pages, scanned_pdf, text_pdf};

fn md(bytes: &[u8], name: Option<&str>) -> String {
    parse(bytes, name, &Limits::default())
        .unwrap_or_else(|e| panic!("parse failed: {e} ({})", e.code()))
        .markdown
}

#[test]
fn pdf_text_is_read_page_by_page() {
    let bytes = text_pdf(&["First page text", "Second page here", "Third and last"]);
    let parsed = parse(&bytes, Some("report.txt"), &Limits::default()).unwrap();
    assert_eq!(parsed.kind, FileKind::Pdf);
    let texts: Vec<(u32, &str, bool)> = parsed
        .pages
        .iter()
        .map(|p| (p.number, p.text.as_str(), p.has_text_layer))
        .collect();
    assert_eq!(
        texts,
        vec![
            (1, "First page text", true),
            (2, "Second page here", true),
            (3, "Third and last", true)
        ]
    );
    assert_eq!(
        parsed.markdown,
        "First page text\n\nSecond page here\n\nThird and last"
    );
    assert!(parsed.notes.is_empty(), "{:?}", parsed.notes);
}

#[test]
fn pdf_pages_past_the_page_cap_are_noted() {
    let bytes = text_pdf(&["one", "two", "three"]);
    let limits = Limits {
        max_pages: 2,
        ..Limits::default()
    };
    let parsed = parse(&bytes, None, &limits).unwrap();
    assert_eq!(parsed.pages.len(), 2);
    assert_eq!(parsed.notes, vec![Note::PagesNotRead { read: 2, total: 3 }]);
}

#[test]
fn pdf_pages_without_text_are_flagged() {
    let bytes = pdf_pages(&[Some("Cover"), None, Some("Back"), None]);
    let parsed = parse(&bytes, None, &Limits::default()).unwrap();
    let layers: Vec<bool> = parsed.pages.iter().map(|p| p.has_text_layer).collect();
    assert_eq!(layers, vec![true, false, true, false]);
    assert_eq!(parsed.markdown, "Cover\n\nBack");
    assert_eq!(
        parsed.notes,
        vec![Note::PagesWithoutText { pages: vec![2, 4] }]
    );
    assert_eq!(
        parsed.notes[0].to_string(),
        "pages 2, 4 have no text layer (scanned)"
    );
}

#[test]
fn scanned_pdf_has_no_text_layer() {
    let err = parse(&scanned_pdf(2), None, &Limits::default()).unwrap_err();
    assert_eq!(err, ParseError::NoTextLayer { pages: 2 });
    assert_eq!(err.code(), "parse_no_text_layer");
}

#[test]
fn encrypted_pdf_is_a_typed_error() {
    let err = parse(&encrypted_pdf(), None, &Limits::default()).unwrap_err();
    assert_eq!(
        err,
        ParseError::Encrypted {
            kind: FileKind::Pdf
        }
    );
    assert_eq!(err.code(), "parse_encrypted");
}

#[test]
fn docx_headings_lists_and_paragraphs() {
    let body = [
        w_p(Some("Title"), "Quarterly report"),
        w_p(Some("Heading2"), "Summary"),
        w_p(None, "Sales grew &amp; costs fell."),
        w_li(0, "first point"),
        w_li(1, "nested point"),
        w_p(Some("heading 3"), "Details"),
        r#"<w:p><w:r><w:t>Deleted: </w:t></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del><w:r><w:instrText>PAGE</w:instrText></w:r></w:p>"#.to_string(),
    ]
    .concat();
    assert_eq!(
        md(&docx(&body), Some("r.docx")),
        "# Quarterly report\n\n## Summary\n\nSales grew & costs fell.\n\n- first point\n  - nested point\n\n### Details\n\nDeleted:"
    );
}

/// A decimal outline (`1.`, `a)`, `i.`), a bulleted list, and a list restarted at 5.
const NUMBERING: &str = r#"<w:abstractNum w:abstractNumId="10">
  <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
  <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%2)"/></w:lvl>
  <w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerRoman"/><w:lvlText w:val="%3."/></w:lvl>
</w:abstractNum>
<w:abstractNum w:abstractNumId="11">
  <w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl>
  <w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/><w:lvlText w:val="o"/></w:lvl>
</w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="10"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="11"/></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="10"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num>"#;

#[test]
fn docx_numbered_lists_keep_their_numbers_and_nest_under_their_text() {
    let body = [
        w_li_of(1, 0, "Scope"),
        w_li_of(1, 1, "Goods"),
        w_li_of(1, 2, "Delivered"),
        w_li_of(1, 2, "Installed"),
        w_li_of(1, 1, "Services"),
        w_li_of(1, 0, "Price"),
        w_p(None, "Notes:"),
        w_li_of(2, 0, "one"),
        w_li_of(2, 1, "two"),
        w_p(None, "Continued:"),
        w_li_of(3, 0, "Term"),
        w_li_of(1, 0, "Law"),
    ]
    .concat();
    assert_eq!(
        md(&docx_numbered(&body, Some(NUMBERING)), None),
        "1. Scope\n   - a) Goods\n     - i. Delivered\n     - ii. Installed\n   - b) Services\n2. Price\n\n\
         Notes:\n\n- one\n  - two\n\nContinued:\n\n5. Term\n3. Law"
    );
    // Numbering that cannot be read leaves bullets, and says so.
    let bytes = docx_numbered(&body, Some("<w:abstractNum w:abstractNumId=\"10"));
    let parsed = parse(&bytes, None, &Limits::default()).expect("parsed");
    assert!(
        parsed
            .markdown
            .starts_with("- Scope\n  - Goods\n    - Delivered"),
        "{}",
        parsed.markdown
    );
    assert_eq!(
        parsed.notes,
        vec![Note::PartsSkipped {
            parts: vec!["word/numbering.xml".into()]
        }]
    );
}

#[test]
fn docx_text_box_is_read_once_not_with_its_fallback_copy() {
    let body = r#"<w:p><w:r><w:t>Intro</w:t></w:r><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps"><w:drawing><wps:txbx xmlns:wps="w"><w:txbxContent><w:p><w:r><w:t>Boxed</w:t></w:r></w:p></w:txbxContent></wps:txbx></w:drawing></mc:Choice><mc:Fallback><w:pict><v:textbox xmlns:v="v"><w:txbxContent><w:p><w:r><w:t>Boxed</w:t></w:r></w:p></w:txbxContent></v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>"#;
    assert_eq!(md(&docx(body), None), "Boxed\n\nIntro");
}

#[test]
fn docx_table_becomes_a_markdown_table() {
    let body = [
        w_p(None, "Before"),
        w_table(&[&["Name", "Qty"], &["Apples", "3"], &["Pears|green", "5"]]),
        w_p(None, "After"),
    ]
    .concat();
    assert_eq!(
        md(&docx(&body), None),
        "Before\n\n| Name | Qty |\n| --- | --- |\n| Apples | 3 |\n| Pears\\|green | 5 |\n\nAfter"
    );
}

#[test]
fn xlsx_sheets_become_tables() {
    let sheet1 = r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>
        <row r="2"><c r="A2" t="inlineStr"><is><t>Widget</t></is></c><c r="B2"><v>4.5</v></c><c r="D2" t="b"><v>1</v></c></row>
        <row r="4"><c r="A4" t="str"><f>A2&amp;"!"</f><v>Widget!</v></c><c r="B4" t="e"><v>#DIV/0!</v></c></row>"#;
    let sheet2 = r#"<row r="1"><c r="B1" t="s"><v>2</v></c></row>"#;
    let bytes = xlsx(
        &[("Stock", sheet1), ("Notes &amp; more", sheet2)],
        &["Item", "Price", "later"],
    );
    assert_eq!(
        md(&bytes, None),
        "## Stock\n\n| Item | Price |  |  |\n| --- | --- | --- | --- |\n| Widget | 4.5 |  | TRUE |\n| Widget! | #DIV/0! |  |  |\n\n## Notes & more\n\n|  | later |\n| --- | --- |"
    );
}

/// Styles as Excel writes them: cell style formats first (`cellStyleXfs`, which cells
/// never name), then the cell formats cells name by index: 0 General, 1 built-in 14
/// (a date), 2 a custom date, 3 a custom date and time, 4 built-in 21 (a time),
/// 5 a custom elapsed time, 6 a price, 7 a percentage.
const STYLES: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
  <numFmts count="4">
    <numFmt numFmtId="164" formatCode="yyyy&quot;年&quot;m&quot;月&quot;d&quot;日&quot;;@"/>
    <numFmt numFmtId="165" formatCode="dd/mm/yyyy\ hh:mm"/>
    <numFmt numFmtId="166" formatCode="[h]:mm:ss"/>
    <numFmt numFmtId="167" formatCode="&quot;$&quot;#,##0.00"/>
  </numFmts>
  <cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>
  <cellXfs count="8">
    <xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164"/>
    <xf numFmtId="165"/><xf numFmtId="21"/><xf numFmtId="166"/><xf numFmtId="167"/>
    <xf numFmtId="10"/>
  </cellXfs>
</styleSheet>"#;

#[test]
fn xlsx_dates_and_times_read_as_iso_whatever_the_locale_showed() {
    let sheet = r#"<row r="1"><c r="A1" s="1"><v>45292</v></c><c r="B1" s="2"><v>45351</v></c><c r="C1" s="3"><v>45292.75</v></c></row>
        <row r="2"><c r="A2" s="4"><v>0.5208333333333334</v></c><c r="B2" s="5"><v>1.5</v></c><c r="C2" s="6"><v>1234.5</v></c><c r="D2" s="7"><v>0.25</v></c></row>
        <row r="3"><c r="A3"><v>45292</v></c><c r="B3" s="0"><v>45292</v></c><c r="C3" s="1" t="s"><v>0</v></c><c r="D3" s="1"><v>-3</v></c><c r="E3" s="99"><v>45292</v></c></row>"#;
    let bytes = xlsx_styled(&[("Dates", sheet)], &["45292"], Some(STYLES), false);
    assert_eq!(
        md(&bytes, None),
        "## Dates\n\n| 2024-01-01 | 2024-02-29 | 2024-01-01 18:00 |  |  |\n| --- | --- | --- | --- | --- |\n\
         | 12:30:00 | 36:00:00 | 1234.5 | 0.25 |  |\n\
         | 45292 | 45292 | 45292 | -3 | 45292 |"
    );
    // The same serials in a workbook counting from 1904 are four years and a day later.
    let bytes = xlsx_styled(&[("Dates", sheet)], &["45292"], Some(STYLES), true);
    assert!(md(&bytes, None).contains("| 2028-01-02 | 2028-03-01 | 2028-01-02 18:00 |"));
    // Without styles, or with styles that cannot be read, numbers stay as stored; styles
    // that cannot be read are noted as skipped.
    for styles in [None, Some("<styleSheet><cellXfs><xf numFmtId=\"14")] {
        let bytes = xlsx_styled(&[("Dates", sheet)], &["45292"], styles, false);
        let parsed = parse(&bytes, None, &Limits::default()).expect("parsed");
        assert!(
            parsed
                .markdown
                .starts_with("## Dates\n\n| 45292 | 45351 | 45292.75 |"),
            "{styles:?}"
        );
        let skipped = parsed.notes.contains(&Note::PartsSkipped {
            parts: vec!["xl/styles.xml".into()],
        });
        assert_eq!(skipped, styles.is_some(), "{:?}", parsed.notes);
    }
}

#[test]
fn pptx_slides_in_presentation_order() {
    let bytes = pptx(&[&["Welcome", "to the deck"], &["Second slide"], &["The end"]]);
    assert_eq!(
        md(&bytes, None),
        "## Slide 1\n\nWelcome\n\nto the deck\n\n## Slide 2\n\nSecond slide\n\n## Slide 3\n\nThe end"
    );
}

#[test]
fn odt_headings_paragraphs_lists_and_tables() {
    let body = r#"<text:h text:outline-level="1">Plan</text:h>
      <text:p>Some   words<text:s text:c="2"/>spaced<text:line-break/>next line</text:p>
      <text:list><text:list-item><text:p>item one</text:p>
        <text:list><text:list-item><text:p>item two</text:p></text:list-item></text:list>
      </text:list-item></text:list>
      <text:p>With a note<text:note><text:note-body><text:p>footnote</text:p></text:note-body></text:note>.</text:p>
      <table:table><table:table-row><table:table-cell><text:p>A</text:p></table:table-cell><table:table-cell table:number-columns-repeated="2"><text:p>B</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1000"/></table:table-row>
      <table:table-row><table:table-cell><text:p>1</text:p></table:table-cell><table:covered-table-cell/><table:table-cell><text:p>3</text:p></table:table-cell></table:table-row></table:table>"#;
    assert_eq!(
        md(&odt(body), None),
        "# Plan\n\nSome words  spaced\nnext line\n\n- item one\n  - item two\n\nWith a note.\n\n| A | B | B |\n| --- | --- | --- |\n| 1 |  | 3 |"
    );
}

#[test]
fn epub_chapters_in_spine_order_without_scripts() {
    let bytes = epub(&[
        (
            "one.xhtml",
            "<h1>Chapter One</h1><p>It begins.</p><script>alert(1)</script>",
        ),
        ("two.xhtml", "<h1>Chapter Two</h1><p>It ends.</p>"),
    ]);
    let text = md(&bytes, None);
    let one = text.find("Chapter One").expect(&text);
    let two = text.find("Chapter Two").expect(&text);
    assert!(one < two, "{text}");
    assert!(
        text.contains("It begins.") && text.contains("It ends."),
        "{text}"
    );
    assert!(!text.contains("alert"), "{text}");
}

/// An `encryption.xml` listing `uri` as encrypted.
fn encryption_xml(uri: &str) -> String {
    format!(
        r#"<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/><enc:CipherData><enc:CipherReference URI="{uri}"/></enc:CipherData></enc:EncryptedData></encryption>"#
    )
}

#[test]
fn epub_with_obfuscated_fonts_reads_but_drm_chapters_are_encrypted() {
    let chapters = [("one.xhtml", "<p>Readable.</p>")];
    let fonts = encryption_xml("OEBPS/Fonts/serif.otf");
    let bytes = epub_with(
        &chapters,
        &[
            ("META-INF/encryption.xml", fonts.as_bytes()),
            ("OEBPS/Fonts/serif.otf", b"\x00\x01obfuscated"),
        ],
    );
    assert!(md(&bytes, None).contains("Readable."));
    let drm = encryption_xml("OEBPS/Text/one.xhtml");
    let bytes = epub_with(&chapters, &[("META-INF/encryption.xml", drm.as_bytes())]);
    assert_eq!(
        parse(&bytes, None, &Limits::default()).unwrap_err(),
        ParseError::Encrypted {
            kind: FileKind::Epub
        }
    );
}

#[test]
fn epub_missing_chapters_are_noted() {
    let mut bytes = epub(&[("one.xhtml", "<p>Here.</p>"), ("two.xhtml", "<p>Gone.</p>")]);
    // Rename the second chapter's entry in both headers so the spine points at nothing.
    for at in support::find_all(&bytes, b"OEBPS/Text/two.xhtml") {
        bytes[at + 11] = b'X';
    }
    let parsed = parse(&bytes, None, &Limits::default()).unwrap();
    assert!(parsed.markdown.contains("Here.") && !parsed.markdown.contains("Gone."));
    assert_eq!(
        parsed.notes,
        vec![Note::PartsSkipped {
            parts: vec!["OEBPS/Text/two.xhtml".into()]
        }]
    );
}

#[test]
fn html_scripts_and_styles_never_reach_the_output() {
    let html = b"<!DOCTYPE html><html><head><style>body { color: red }</style></head>\
        <body><h2>Hello</h2><p>Visible <a href=\"https://example.org/\">link</a></p>\
        <script>alert(1)</script><noscript>Enable JavaScript</noscript></body></html>";
    let text = md(html, Some("page.pdf"));
    assert!(text.contains("Hello") && text.contains("Visible"), "{text}");
    for hidden in ["alert", "color", "Enable JavaScript"] {
        assert!(!text.contains(hidden), "{hidden} in {text}");
    }
}

#[test]
fn text_kinds_pass_through() {
    for (bytes, name, kind) in [
        (&b"# Title\n\nbody\n"[..], Some("a.md"), FileKind::Markdown),
        (b"plain words\n", None, FileKind::Text),
        (b"a,b\n1,2\n", Some("t.csv"), FileKind::Csv),
        (b"\xEF\xBB\xBF{\"a\": 1}", None, FileKind::Json),
    ] {
        let parsed = parse(bytes, name, &Limits::default()).unwrap();
        assert_eq!(parsed.kind, kind);
        let expected = std::str::from_utf8(bytes)
            .unwrap()
            .trim_start_matches('\u{feff}');
        assert_eq!(parsed.markdown, expected);
    }
}

#[test]
fn images_are_not_documents() {
    let err = parse(
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
        Some("a.pdf"),
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        ParseError::Unsupported {
            kind: FileKind::Png
        }
    );
    assert_eq!(err.code(), "parse_unsupported");
}

#[test]
fn output_is_cut_with_a_note() {
    let limits = Limits {
        max_output_bytes: 40,
        ..Limits::default()
    };
    let body: String = (0..50)
        .map(|i| w_p(None, &format!("paragraph number {i}")))
        .collect();
    let parsed = parse(&docx(&body), None, &limits).unwrap();
    assert!(parsed.markdown.len() <= 40);
    assert_eq!(
        parsed.notes,
        vec![Note::OutputTruncated {
            at_bytes: parsed.markdown.len()
        }]
    );
    let text = "é".repeat(30);
    let parsed = parse(text.as_bytes(), None, &limits).unwrap();
    assert_eq!(parsed.markdown, "é".repeat(20));
    assert_eq!(parsed.notes, vec![Note::OutputTruncated { at_bytes: 40 }]);
}
