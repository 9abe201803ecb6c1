//! Hostile input: ZIP bombs (honest and lying sizes), traversal names, too many entries,
//! oversize input, PDFs that loop, password-protected entries, and every fixture
//! truncated and garbled. Each must end in a typed error (or a bounded result), never a
//! panic or a hang. `PARSE_TRACE=1` prints each garbled input's label before it is
//! parsed, to find the one that hangs.

mod support;

use std::panic::{AssertUnwindSafe, catch_unwind};

use hearth_parse::{Bomb, FileKind, Limits, Oversized, ParseError, ZipLimits, parse};
use support::office::{docx, epub, odt, pptx, w_p, w_table, xlsx};
use support::pdf::{damage_first_xref_entry, encrypted_pdf, looping_pdf, scanned_pdf, text_pdf};
use support::{lie_about_sizes, mark_encrypted, zeros_zip, zip_of};

const DOCX_HEAD: [(&str, &[u8]); 2] = [
    (
        "[Content_Types].xml",
        b"<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>",
    ),
    ("_rels/.rels", b"<Relationships/>"),
];

fn bomb_reason(result: Result<hearth_parse::Parsed, ParseError>) -> Bomb {
    match result {
        Err(ParseError::ZipBomb { reason }) => reason,
        other => panic!("expected a ZIP bomb, got {other:?}"),
    }
}

#[test]
fn zip_bomb_of_zeros_is_refused_by_its_ratio() {
    // 200 MB of zeros deflate to about 200 KB: a ratio near 1000.
    let bytes = zeros_zip(&DOCX_HEAD, "word/document.xml", 200 * 1024 * 1024);
    assert!(bytes.len() < 1024 * 1024, "{}", bytes.len());
    let err = parse(&bytes, None, &Limits::default()).unwrap_err();
    assert_eq!(err.code(), "parse_zip_bomb");
    assert!(
        matches!(
            err,
            ParseError::ZipBomb {
                reason: Bomb::Ratio { .. }
            }
        ),
        "{err:?}"
    );
}

#[test]
fn zip_bomb_past_the_entry_cap_without_a_ratio_check() {
    let bytes = zeros_zip(&DOCX_HEAD, "word/document.xml", 3 * 1024 * 1024);
    let limits = Limits {
        zip: ZipLimits {
            max_entry_inflated: 2 * 1024 * 1024,
            max_ratio: u64::MAX,
            ..ZipLimits::default()
        },
        ..Limits::default()
    };
    assert_eq!(
        bomb_reason(parse(&bytes, None, &limits)),
        Bomb::EntryTooLarge {
            entry: "word/document.xml".into(),
            limit: 2 * 1024 * 1024
        }
    );
}

#[test]
fn zip_entries_past_the_total_cap() {
    let bytes = zeros_zip(&DOCX_HEAD, "word/document.xml", 3 * 1024 * 1024);
    let limits = Limits {
        zip: ZipLimits {
            max_total_inflated: 2 * 1024 * 1024,
            max_ratio: u64::MAX,
            ..ZipLimits::default()
        },
        ..Limits::default()
    };
    assert_eq!(
        bomb_reason(parse(&bytes, None, &limits)),
        Bomb::TotalTooLarge {
            limit: 2 * 1024 * 1024
        }
    );
}

#[test]
fn zip_entry_whose_declared_size_lies_is_refused() {
    // The directory says 100 bytes; the stream inflates to 200 MB. Nothing past the
    // declared size is kept.
    let mut bytes = zeros_zip(&[], "word/document.xml", 200 * 1024 * 1024);
    lie_about_sizes(&mut bytes, 100);
    let limits = Limits {
        zip: ZipLimits {
            max_ratio: u64::MAX,
            ..ZipLimits::default()
        },
        ..Limits::default()
    };
    assert_eq!(
        bomb_reason(parse(&bytes, None, &limits)),
        Bomb::SizeMismatch {
            entry: "word/document.xml".into(),
            declared: 100
        }
    );
}

#[test]
fn too_many_entries_are_refused_before_reading() {
    let names: Vec<String> = (0..20).map(|i| format!("word/media/{i}.bin")).collect();
    let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    let bytes = zip_of(&entries);
    let limits = Limits {
        zip: ZipLimits {
            max_entries: 10,
            ..ZipLimits::default()
        },
        ..Limits::default()
    };
    assert!(matches!(
        bomb_reason(parse(&bytes, None, &limits)),
        Bomb::TooManyEntries { limit: 10, .. }
    ));
}

#[test]
fn traversal_names_are_refused() {
    for name in [
        "../evil.txt",
        "word/../../evil",
        "/etc/passwd",
        "C:/Windows/evil",
        "word\\evil",
    ] {
        let bytes = zip_of(&[
            ("[Content_Types].xml", b"x"),
            ("word/document.xml", b"<w:document/>"),
            (name, b"payload"),
        ]);
        let err = parse(&bytes, None, &Limits::default()).unwrap_err();
        assert_eq!(
            err,
            ParseError::PathTraversal {
                name: name.to_string()
            },
            "{name}"
        );
        assert_eq!(err.code(), "parse_path_traversal");
    }
}

#[test]
fn password_protected_entries_are_a_typed_error() {
    let mut bytes = docx(&w_p(None, "secret"));
    mark_encrypted(&mut bytes);
    assert_eq!(
        parse(&bytes, None, &Limits::default()).unwrap_err(),
        ParseError::Encrypted {
            kind: FileKind::Docx
        }
    );
}

#[test]
fn oversize_input_is_refused_before_parsing() {
    let limits = Limits {
        max_input_bytes: 10,
        ..Limits::default()
    };
    let err = parse(b"eleven byte", None, &limits).unwrap_err();
    assert_eq!(
        err,
        ParseError::TooLarge {
            what: Oversized::Input,
            limit: 10
        }
    );
    assert_eq!(err.code(), "parse_too_large");
    assert!(parse(b"ten bytes!", None, &limits).is_ok());
}

#[test]
fn unknown_zips_and_binaries_are_unknown() {
    let bytes = zip_of(&[("photo.jpg", b"x")]);
    assert_eq!(
        parse(&bytes, Some("a.docx"), &Limits::default())
            .unwrap_err()
            .code(),
        "file_type_unknown"
    );
    assert_eq!(
        parse(b"\x7fELF\x02\x01\x01\0", None, &Limits::default())
            .unwrap_err()
            .code(),
        "file_type_unknown"
    );
}

#[test]
fn looping_pdf_returns() {
    // The page tree holds itself and the xref's /Prev points at itself: the parse must
    // come back (an error or a bounded result), whatever it decides.
    let result = parse(&looping_pdf(), None, &Limits::default());
    if let Ok(parsed) = &result {
        assert!(parsed.pages.len() <= Limits::default().max_pages as usize);
    }
}

#[test]
fn looping_pdf_with_a_damaged_xref_returns() {
    // With the xref unusable, pdf_oxide's page_count falls back to a recursive count
    // with no visited set: 2^50 calls on this tree. `pdf::declared_pages` refuses the
    // file before that.
    let result = parse(
        &damage_first_xref_entry(looping_pdf()),
        None,
        &Limits::default(),
    );
    assert!(result.is_err(), "{result:?}");
}

/// Every fixture the tests build, with its name.
fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    let table = w_table(&[&["a", "b"], &["1", "2"]]);
    vec![
        ("pdf", text_pdf(&["one", "two", "three"])),
        ("scanned", scanned_pdf(1)),
        ("encrypted", encrypted_pdf()),
        ("looping", looping_pdf()),
        (
            "docx",
            docx(&[w_p(Some("Heading1"), "Title"), table].concat()),
        ),
        (
            "xlsx",
            xlsx(
                &[(
                    "S",
                    r#"<row><c r="A1" t="s"><v>0</v></c><c r="B1"><v>2</v></c></row>"#,
                )],
                &["x"],
            ),
        ),
        ("pptx", pptx(&[&["one"], &["two"]])),
        ("odt", odt("<text:h>H</text:h><text:p>p</text:p>")),
        (
            "epub",
            epub(&[("a.xhtml", "<p>a</p>"), ("b.xhtml", "<p>b</p>")]),
        ),
        (
            "html",
            b"<!doctype html><html><body><p>x</p><table><tr><td>1</td></tr></table></body></html>"
                .to_vec(),
        ),
        ("json", br#"{"a": [1, 2, {"b": null}]}"#.to_vec()),
    ]
}

/// Runs `parse` on `bytes`, failing the test with `label` if it panics.
fn survives(label: &str, bytes: &[u8], panics: &mut Vec<String>) {
    let limits = Limits::default();
    if std::env::var_os("PARSE_TRACE").is_some() {
        eprintln!("{label}");
    }
    if catch_unwind(AssertUnwindSafe(|| parse(bytes, None, &limits))).is_err() {
        panics.push(label.to_string());
    }
}

#[test]
fn truncated_and_garbled_fixtures_never_panic() {
    let mut panics = Vec::new();
    let mut runs = 0;
    for (name, bytes) in fixtures() {
        let len = bytes.len();
        let step = (len / 64).max(1);
        for cut in (0..len).step_by(step) {
            survives(&format!("{name} cut at {cut}"), &bytes[..cut], &mut panics);
            runs += 1;
        }
        // Flip bytes at spread-out positions (a deterministic walk, no randomness).
        let mut at = 7usize;
        for round in 0..64 {
            at = (at * 31 + 17 + round) % len;
            let mut garbled = bytes.clone();
            garbled[at] ^= 0xA5;
            survives(&format!("{name} byte {at} flipped"), &garbled, &mut panics);
            runs += 1;
        }
    }
    assert!(runs > 1000, "{runs}");
    assert!(panics.is_empty(), "panicked on: {panics:?}");
}

#[test]
fn truncated_archives_are_errors() {
    for (name, bytes) in fixtures() {
        if !bytes.starts_with(b"PK") {
            continue;
        }
        let cut = &bytes[..bytes.len() - 30];
        let result = parse(cut, None, &Limits::default());
        assert!(result.is_err(), "{name}: {result:?}");
    }
}

#[test]
fn a_panic_inside_the_pdf_reader_is_a_malformed_error() {
    // pdf_oxide 0.3.78 slices a string off a char boundary (a panic) when an object
    // header's generation number is not ASCII; `pdf::guarded` turns that into an error.
    let mut bytes = text_pdf(&["one"]);
    let at = support::find_all(&bytes, b"3 0 obj")[0] + 2;
    bytes[at] ^= 0xA5;
    let err = parse(&bytes, None, &Limits::default()).unwrap_err();
    assert_eq!(err.code(), "parse_malformed", "{err:?}");
}
