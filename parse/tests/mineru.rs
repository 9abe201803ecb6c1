//! MinerU result archives: `full.md` found at the root or in a folder, and refused when
//! missing, oversize, a bomb or badly named.

mod support;

use hearth_parse::{Bomb, Limits, Oversized, ParseError, mineru_result};
use support::{zeros_zip, zip_of};

#[test]
fn full_md_in_a_folder_is_the_markdown() {
    let bytes = zip_of(&[
        ("job-42/images/fig1.jpg", b"\xFF\xD8\xFF"),
        (
            "job-42/full.md",
            "# Paper\n\nText with ![fig](images/fig1.jpg) é\n".as_bytes(),
        ),
        ("job-42/layout.json", b"{}"),
    ]);
    assert_eq!(
        mineru_result(&bytes, &Limits::default()).unwrap(),
        "# Paper\n\nText with ![fig](images/fig1.jpg) é\n"
    );
}

#[test]
fn the_shallowest_full_md_wins() {
    let bytes = zip_of(&[("a/b/full.md", b"deep"), ("full.md", b"root")]);
    assert_eq!(mineru_result(&bytes, &Limits::default()).unwrap(), "root");
}

#[test]
fn missing_full_md_is_a_typed_error() {
    let bytes = zip_of(&[("job/content_list.json", b"[]"), ("job/notfull.md", b"x")]);
    let err = mineru_result(&bytes, &Limits::default()).unwrap_err();
    assert_eq!(err, ParseError::MineruMissingMarkdown);
    assert_eq!(err.code(), "parse_mineru_missing_markdown");
}

#[test]
fn oversize_full_md_is_refused() {
    let bytes = zip_of(&[("full.md", "x".repeat(2000).as_bytes())]);
    let limits = Limits {
        max_output_bytes: 1000,
        ..Limits::default()
    };
    assert_eq!(
        mineru_result(&bytes, &limits).unwrap_err(),
        ParseError::TooLarge {
            what: Oversized::MineruMarkdown,
            limit: 1000
        }
    );
}

#[test]
fn bombs_and_traversal_are_refused_as_everywhere() {
    let bomb = zeros_zip(&[], "out/full.md", 100 * 1024 * 1024);
    assert!(matches!(
        mineru_result(&bomb, &Limits::default()),
        Err(ParseError::ZipBomb {
            reason: Bomb::Ratio { .. }
        })
    ));
    let evil = zip_of(&[("full.md", b"ok"), ("../../etc/cron.d/x", b"evil")]);
    assert!(matches!(
        mineru_result(&evil, &Limits::default()),
        Err(ParseError::PathTraversal { .. })
    ));
    assert!(matches!(
        mineru_result(b"not a zip", &Limits::default()),
        Err(ParseError::Malformed { .. })
    ));
}
