//! The text kinds (Markdown, plain text, CSV, JSON): their UTF-8 as it is (a BOM
//! dropped), cut at the output cap.

use crate::output::Output;

pub(crate) fn parse(bytes: &[u8], out: &mut Output) {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // `sniff` only names a text kind for valid UTF-8; the lossy decode never replaces.
    out.push(&String::from_utf8_lossy(body));
}
