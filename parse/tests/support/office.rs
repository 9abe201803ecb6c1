//! DOCX, XLSX, PPTX, ODT and EPUB packages from hand-written XML.

use super::zip_of;

const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const REL: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
const OFFICE_DOC: &str =
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";

fn package_rels(target: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="{REL}"><Relationship Id="rId1" Type="{OFFICE_DOC}" Target="{target}"/></Relationships>"#
    )
}

fn content_types(overrides: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>{overrides}</Types>"#
    )
}

/// A DOCX whose body is `body` (WordprocessingML inside `<w:body>`).
pub fn docx(body: &str) -> Vec<u8> {
    docx_numbered(body, None)
}

/// A DOCX as [`docx`] makes, with `numbering` as its numbering part (related from the
/// document, at `word/numbering.xml`; the elements inside `w:numbering`).
pub fn docx_numbered(body: &str, numbering: Option<&str>) -> Vec<u8> {
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="{W}" xmlns:r="{R}"><w:body>{body}<w:sectPr/></w:body></w:document>"#
    );
    let ct = content_types("");
    let pr = package_rels("word/document.xml");
    let mut entries: Vec<(&str, Vec<u8>)> = vec![
        ("[Content_Types].xml", ct.into_bytes()),
        ("_rels/.rels", pr.into_bytes()),
        ("word/document.xml", document.into_bytes()),
    ];
    if let Some(numbering) = numbering {
        entries.push((
            "word/_rels/document.xml.rels",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{REL}"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/></Relationships>"#
            )
            .into_bytes(),
        ));
        entries.push((
            "word/numbering.xml",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="{W}">{numbering}</w:numbering>"#
            )
            .into_bytes(),
        ));
    }
    let entries: Vec<(&str, &[u8])> = entries.iter().map(|(n, d)| (*n, d.as_slice())).collect();
    zip_of(&entries)
}

/// A Word paragraph with `style` (a `w:pStyle` id) and `text`.
pub fn w_p(style: Option<&str>, text: &str) -> String {
    let ppr = style.map_or(String::new(), |s| {
        format!(r#"<w:pPr><w:pStyle w:val="{s}"/></w:pPr>"#)
    });
    format!(r#"<w:p>{ppr}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>"#)
}

/// A Word list item at `level` of list instance 1.
pub fn w_li(level: u32, text: &str) -> String {
    w_li_of(1, level, text)
}

/// A Word list item at `level` of list instance `num_id`.
pub fn w_li_of(num_id: u32, level: u32, text: &str) -> String {
    format!(
        r#"<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"#
    )
}

/// A Word table of `rows`.
pub fn w_table(rows: &[&[&str]]) -> String {
    let mut out = String::from(r#"<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr>"#);
    for row in rows {
        out.push_str("<w:tr>");
        for cell in *row {
            out.push_str(&format!(
                r#"<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p><w:r><w:t>{cell}</w:t></w:r></w:p></w:tc>"#
            ));
        }
        out.push_str("</w:tr>");
    }
    out.push_str("</w:tbl>");
    out
}

/// An XLSX with `sheets` as (name, sheet XML `<sheetData>` content), shared strings
/// `shared`.
pub fn xlsx(sheets: &[(&str, &str)], shared: &[&str]) -> Vec<u8> {
    xlsx_styled(sheets, shared, None, false)
}

/// An XLSX as [`xlsx`] makes, with `styles` as its `xl/styles.xml` (related from the
/// workbook) and counting dates from 1904 when `date1904`.
pub fn xlsx_styled(
    sheets: &[(&str, &str)],
    shared: &[&str],
    styles: Option<&str>,
    date1904: bool,
) -> Vec<u8> {
    let pr = if date1904 {
        r#"<workbookPr date1904="1"/>"#
    } else {
        ""
    };
    let mut workbook = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="{R}">{pr}<sheets>"#
    );
    let mut rels =
        format!(r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{REL}">"#);
    let mut parts: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, (name, data)) in sheets.iter().enumerate() {
        let n = i + 1;
        workbook.push_str(&format!(
            r#"<sheet name="{name}" sheetId="{n}" r:id="rId{n}"/>"#
        ));
        rels.push_str(&format!(
            r#"<Relationship Id="rId{n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{n}.xml"/>"#
        ));
        parts.push((
            format!("xl/worksheets/sheet{n}.xml"),
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{data}</sheetData></worksheet>"#
            )
            .into_bytes(),
        ));
    }
    workbook.push_str("</sheets></workbook>");
    if styles.is_some() {
        rels.push_str(
            r#"<Relationship Id="rIdT" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>"#,
        );
    }
    rels.push_str(
        r#"<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>"#,
    );
    let mut sst = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{0}" uniqueCount="{0}">"#,
        shared.len()
    );
    for s in shared {
        sst.push_str(&format!("<si><t>{s}</t></si>"));
    }
    sst.push_str("</sst>");
    let ct = content_types("");
    let pr = package_rels("xl/workbook.xml");
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("[Content_Types].xml", ct.as_bytes()),
        ("_rels/.rels", pr.as_bytes()),
        ("xl/workbook.xml", workbook.as_bytes()),
        ("xl/_rels/workbook.xml.rels", rels.as_bytes()),
        ("xl/sharedStrings.xml", sst.as_bytes()),
    ];
    if let Some(styles) = styles {
        entries.push(("xl/styles.xml", styles.as_bytes()));
    }
    for (name, data) in &parts {
        entries.push((name, data));
    }
    zip_of(&entries)
}

/// A PPTX whose slides hold `slides` (each a list of paragraphs), listed in the
/// presentation in the order given but stored in reverse part numbering.
pub fn pptx(slides: &[&[&str]]) -> Vec<u8> {
    let p = "http://schemas.openxmlformats.org/presentationml/2006/main";
    let a = "http://schemas.openxmlformats.org/drawingml/2006/main";
    let mut presentation = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><p:presentation xmlns:p="{p}" xmlns:r="{R}"><p:sldIdLst>"#
    );
    let mut rels =
        format!(r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{REL}">"#);
    let mut parts: Vec<(String, Vec<u8>)> = Vec::new();
    let count = slides.len();
    for (i, paragraphs) in slides.iter().enumerate() {
        // Slide 1 of the deck is stored as the last part, so order must come from the
        // presentation, not from the part names.
        let part = count - i;
        presentation.push_str(&format!(
            r#"<p:sldId id="{}" r:id="rId{}"/>"#,
            256 + i,
            i + 10
        ));
        rels.push_str(&format!(
            r#"<Relationship Id="rId{}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide{part}.xml"/>"#,
            i + 10
        ));
        let mut body = String::new();
        for text in *paragraphs {
            body.push_str(&format!(
                r#"<a:p><a:r><a:rPr lang="en-US"/><a:t>{text}</a:t></a:r></a:p>"#
            ));
        }
        parts.push((
            format!("ppt/slides/slide{part}.xml"),
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:p="{p}" xmlns:a="{a}" xmlns:r="{R}"><p:cSld><p:spTree><p:sp><p:txBody><a:bodyPr/>{body}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>"#
            )
            .into_bytes(),
        ));
    }
    presentation.push_str("</p:sldIdLst></p:presentation>");
    rels.push_str("</Relationships>");
    let ct = content_types("");
    let pr = package_rels("ppt/presentation.xml");
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("[Content_Types].xml", ct.as_bytes()),
        ("_rels/.rels", pr.as_bytes()),
        ("ppt/presentation.xml", presentation.as_bytes()),
        ("ppt/_rels/presentation.xml.rels", rels.as_bytes()),
    ];
    for (name, data) in &parts {
        entries.push((name, data));
    }
    zip_of(&entries)
}

/// An ODT whose `office:text` holds `body`.
pub fn odt(body: &str) -> Vec<u8> {
    let content = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.3">
  <office:body>
    <office:text>
      {body}
    </office:text>
  </office:body>
</office:document-content>"#
    );
    zip_of(&[
        ("mimetype", b"application/vnd.oasis.opendocument.text"),
        ("content.xml", content.as_bytes()),
        (
            "META-INF/manifest.xml",
            br#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>"#,
        ),
    ])
}

/// An EPUB with chapters `(file name, XHTML body)` in spine order; the manifest lists
/// them in reverse, so order must come from the spine.
pub fn epub(chapters: &[(&str, &str)]) -> Vec<u8> {
    epub_with(chapters, &[])
}

/// [`epub`] with `extra` entries added at the end.
pub fn epub_with(chapters: &[(&str, &str)], extra: &[(&str, &[u8])]) -> Vec<u8> {
    let mut manifest = String::new();
    let mut spine = String::new();
    for (i, (file, _)) in chapters.iter().enumerate().rev() {
        manifest.push_str(&format!(
            r#"<item id="c{i}" href="Text/{file}" media-type="application/xhtml+xml"/>"#
        ));
    }
    for (i, _) in chapters.iter().enumerate() {
        spine.push_str(&format!(r#"<itemref idref="c{i}"/>"#));
    }
    let opf = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Book</dc:title></metadata><manifest>{manifest}</manifest><spine>{spine}</spine></package>"#
    );
    let container = br#"<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;
    let pages: Vec<(String, String)> = chapters
        .iter()
        .map(|(file, body)| {
            (
                format!("OEBPS/Text/{file}"),
                format!(
                    r#"<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>{body}</body></html>"#
                ),
            )
        })
        .collect();
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("mimetype", b"application/epub+zip"),
        ("META-INF/container.xml", container),
        ("OEBPS/content.opf", opf.as_bytes()),
    ];
    for (name, data) in &pages {
        entries.push((name, data.as_bytes()));
    }
    entries.extend_from_slice(extra);
    zip_of(&entries)
}
