//! The headers a remote MCP server may be given, and the rules they follow on both
//! sides: the app checks what the user typed before sending it, the edge checks the
//! install request again.
//!
//! - Plain headers ([`check_headers`]) are stored with the plugin, so they are never
//!   credentials (a name that looks like one is refused: a key typed into the wrong
//!   field must not end up stored in plaintext) and never headers the transport owns.
//! - The credential's header ([`check_credential_header`]) names where the sealed secret
//!   goes (`X-Api-Key`); no name means `Authorization: Bearer`.
//! - [`parse_header_lines`] reads the settings form's text, one `Name: value` per line,
//!   and applies the same rules, naming the line at fault.

use std::collections::BTreeMap;

/// The most plain headers one server is given.
pub const MAX_MCP_HEADERS: usize = 16;
/// The longest header name.
pub const MAX_HEADER_NAME_CHARS: usize = 64;
/// The longest plain header value.
pub const MAX_HEADER_VALUE_CHARS: usize = 1024;

/// Headers the transport or the browser's edge owns: never set by a user.
const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "accept-encoding",
    "connection",
    "content-encoding",
    "content-length",
    "content-type",
    "cookie",
    "expect",
    "forwarded",
    "host",
    "keep-alive",
    "last-event-id",
    "mcp-protocol-version",
    "mcp-session-id",
    "origin",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "referer",
    "set-cookie",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "user-agent",
    "via",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-real-ip",
];

/// Why a header cannot be given to a server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// More than [`MAX_MCP_HEADERS`].
    #[error("at most {MAX_MCP_HEADERS} headers")]
    TooMany,
    /// Not an HTTP header name.
    #[error("`{0}` is not a header name")]
    BadName(String),
    /// Owned by the transport or the edge.
    #[error("`{0}` is set by Hearth itself")]
    Reserved(String),
    /// A credential: it must be the plugin's sealed credential, not a stored header.
    #[error("`{0}` looks like a credential: give it as the server's token instead")]
    Credential(String),
    /// Not a plain, visible-ASCII value within [`MAX_HEADER_VALUE_CHARS`].
    #[error(
        "the value of `{0}` must be visible text of at most {MAX_HEADER_VALUE_CHARS} characters"
    )]
    BadValue(String),
}

fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_HEADER_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn looks_like_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "auth",
        "key",
        "token",
        "secret",
        "password",
        "session",
        "signature",
        "credential",
    ]
    .iter()
    .any(|part| name.contains(part))
}

/// A value within the length limit, of visible ASCII and spaces (no line breaks).
fn plain_value(value: &str) -> bool {
    !value.is_empty()
        && value.chars().count() <= MAX_HEADER_VALUE_CHARS
        && value.chars().all(|c| c == ' ' || c.is_ascii_graphic())
}

fn check_name(name: &str) -> Result<String, HeaderError> {
    if !is_token(name) {
        return Err(HeaderError::BadName(name.chars().take(80).collect()));
    }
    let lower = name.to_ascii_lowercase();
    if RESERVED_HEADERS.contains(&lower.as_str()) || lower.starts_with("sec-") {
        return Err(HeaderError::Reserved(name.to_string()));
    }
    Ok(lower)
}

/// Checks the plain headers a server is given; names come back lower-cased (HTTP names
/// are case-insensitive, and two spellings of one name are one header).
pub fn check_headers(
    headers: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, HeaderError> {
    if headers.len() > MAX_MCP_HEADERS {
        return Err(HeaderError::TooMany);
    }
    let mut out = BTreeMap::new();
    for (name, value) in headers {
        let lower = check_name(name)?;
        if looks_like_credential(&lower) {
            return Err(HeaderError::Credential(name.clone()));
        }
        if !plain_value(value) {
            return Err(HeaderError::BadValue(name.clone()));
        }
        out.insert(lower, value.trim().to_string());
    }
    Ok(out)
}

/// Checks the name of the header that carries a server's credential (`X-Api-Key`, …);
/// `authorization` is the bearer scheme and is given as no name at all.
pub fn check_credential_header(name: &str) -> Result<String, HeaderError> {
    let lower = check_name(name.trim())?;
    if lower == "authorization" {
        return Err(HeaderError::Reserved(name.to_string()));
    }
    Ok(lower)
}

/// Why the text of the headers field was refused. Lines are counted from 1, blank lines
/// included, as the user sees them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderLineError {
    /// A line without a `:` or without a name before it.
    #[error("line {line} is not `Name: value`")]
    NotAHeader {
        /// The line's number.
        line: usize,
        /// The line as typed (trimmed, at most 80 characters).
        text: String,
    },
    /// A name with nothing after its `:`.
    #[error("line {line}: `{name}` has no value")]
    MissingValue {
        /// The line's number.
        line: usize,
        /// The header's name.
        name: String,
    },
    /// A name given twice (header names are case-insensitive).
    #[error("line {line}: `{name}` is given twice")]
    Duplicate {
        /// The line of the second one.
        line: usize,
        /// The header's name.
        name: String,
    },
    /// A header the rules of [`check_headers`] refuse.
    #[error("line {line}: {error}")]
    Refused {
        /// The line's number.
        line: usize,
        /// Which rule.
        error: HeaderError,
    },
    /// More than [`MAX_MCP_HEADERS`] lines.
    #[error("at most {MAX_MCP_HEADERS} headers")]
    TooMany,
}

/// Reads `Name: value` lines (blank lines skipped, spaces around name and value
/// trimmed, the first `:` separating them so a value may hold more) and checks each
/// header as [`check_headers`] does. Names keep the user's spelling; the edge
/// lower-cases them.
pub fn parse_header_lines(text: &str) -> Result<BTreeMap<String, String>, HeaderLineError> {
    let mut out = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        let not_a_header = || HeaderLineError::NotAHeader {
            line,
            text: trimmed.chars().take(80).collect(),
        };
        let (name, value) = trimmed.split_once(':').ok_or_else(not_a_header)?;
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() {
            return Err(not_a_header());
        }
        if value.is_empty() {
            return Err(HeaderLineError::MissingValue {
                line,
                name: name.chars().take(80).collect(),
            });
        }
        let refused = |error| HeaderLineError::Refused { line, error };
        let lower = check_name(name).map_err(refused)?;
        if looks_like_credential(&lower) {
            return Err(refused(HeaderError::Credential(name.to_string())));
        }
        if !plain_value(value) {
            return Err(refused(HeaderError::BadValue(name.to_string())));
        }
        if !seen.insert(lower) {
            return Err(HeaderLineError::Duplicate {
                line,
                name: name.to_string(),
            });
        }
        if out.len() == MAX_MCP_HEADERS {
            return Err(HeaderLineError::TooMany);
        }
        out.insert(name.to_string(), value.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_headers_are_checked_and_credentials_refused() {
        let ok: BTreeMap<String, String> = [
            ("X-Workspace".to_string(), "team-a".to_string()),
            ("Accept-Language".to_string(), "en".to_string()),
        ]
        .into();
        let checked = check_headers(&ok).unwrap();
        assert_eq!(checked["x-workspace"], "team-a");
        for (name, value, expected) in [
            (
                "X-Api-Key",
                "k",
                HeaderError::Credential("X-Api-Key".into()),
            ),
            (
                "Authorization",
                "Bearer x",
                HeaderError::Credential("Authorization".into()),
            ),
            ("Cookie", "a=b", HeaderError::Reserved("Cookie".into())),
            ("Host", "evil", HeaderError::Reserved("Host".into())),
            (
                "Mcp-Session-Id",
                "1",
                HeaderError::Reserved("Mcp-Session-Id".into()),
            ),
            (
                "Sec-Fetch-Site",
                "none",
                HeaderError::Reserved("Sec-Fetch-Site".into()),
            ),
            (
                "Transfer-Encoding",
                "chunked",
                HeaderError::Reserved("Transfer-Encoding".into()),
            ),
            ("Bad Name", "v", HeaderError::BadName("Bad Name".into())),
            (
                "X-Line",
                "a\r\nInjected: 1",
                HeaderError::BadValue("X-Line".into()),
            ),
            ("X-Empty", "", HeaderError::BadValue("X-Empty".into())),
        ] {
            let one: BTreeMap<String, String> = [(name.to_string(), value.to_string())].into();
            assert_eq!(check_headers(&one), Err(expected), "{name}");
        }
        let many: BTreeMap<String, String> = (0..17)
            .map(|i| (format!("x-h{i}"), "v".to_string()))
            .collect();
        assert_eq!(check_headers(&many), Err(HeaderError::TooMany));
    }

    #[test]
    fn the_credential_header_is_a_plain_name_other_than_authorization() {
        assert_eq!(check_credential_header(" X-Api-Key ").unwrap(), "x-api-key");
        assert!(matches!(
            check_credential_header("Authorization"),
            Err(HeaderError::Reserved(_))
        ));
        assert!(matches!(
            check_credential_header("Cookie"),
            Err(HeaderError::Reserved(_))
        ));
        assert!(matches!(
            check_credential_header("x-api-key: evil"),
            Err(HeaderError::BadName(_))
        ));
    }

    fn lines(text: &str) -> Result<Vec<(String, String)>, HeaderLineError> {
        parse_header_lines(text).map(|map| map.into_iter().collect())
    }

    #[test]
    fn lines_become_headers_with_blank_lines_and_spaces_ignored() {
        assert_eq!(lines(""), Ok(vec![]));
        assert_eq!(lines("\n  \n"), Ok(vec![]));
        assert_eq!(
            lines("  X-Workspace :  team-a \n\nAccept-Language: en\n"),
            Ok(vec![
                ("Accept-Language".into(), "en".into()),
                ("X-Workspace".into(), "team-a".into()),
            ])
        );
        // Only the first colon separates: a value may hold more.
        assert_eq!(
            lines("X-Region: eu:west"),
            Ok(vec![("X-Region".into(), "eu:west".into())])
        );
        // CRLF line ends (pasted text) are lines too.
        assert_eq!(lines("A-One: 1\r\nB-Two: 2\r\n").unwrap().len(), 2);
    }

    #[test]
    fn a_line_that_is_not_name_colon_value_is_named_by_number() {
        assert_eq!(
            lines("X-Ok: 1\n\njust text"),
            Err(HeaderLineError::NotAHeader {
                line: 3,
                text: "just text".into()
            })
        );
        assert_eq!(
            lines(": value"),
            Err(HeaderLineError::NotAHeader {
                line: 1,
                text: ": value".into()
            })
        );
        let long = "x".repeat(200);
        match lines(&long) {
            Err(HeaderLineError::NotAHeader { text, .. }) => assert_eq!(text.len(), 80),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_name_without_a_value_is_refused() {
        // The registry browser fills `Name: ` for required headers; sending it empty
        // would fail on the server instead.
        assert_eq!(
            lines("X-Workspace: "),
            Err(HeaderLineError::MissingValue {
                line: 1,
                name: "X-Workspace".into()
            })
        );
    }

    #[test]
    fn bad_reserved_and_credential_names_and_bad_values_are_refused_per_line() {
        for (text, expected) in [
            ("Bad Name: v", HeaderError::BadName("Bad Name".into())),
            ("Host: evil", HeaderError::Reserved("Host".into())),
            ("Cookie: a=b", HeaderError::Reserved("Cookie".into())),
            (
                "Sec-Fetch-Site: none",
                HeaderError::Reserved("Sec-Fetch-Site".into()),
            ),
            (
                "Mcp-Session-Id: 1",
                HeaderError::Reserved("Mcp-Session-Id".into()),
            ),
            ("X-Api-Key: k", HeaderError::Credential("X-Api-Key".into())),
            (
                "Authorization: Bearer x",
                HeaderError::Credential("Authorization".into()),
            ),
            ("X-Session: s", HeaderError::Credential("X-Session".into())),
            ("X-Note: caf\u{e9}", HeaderError::BadValue("X-Note".into())),
        ] {
            assert_eq!(
                lines(&format!("X-Ok: 1\n{text}")),
                Err(HeaderLineError::Refused {
                    line: 2,
                    error: expected
                }),
                "{text}"
            );
        }
        let long_value = format!("X-Long: {}", "v".repeat(MAX_HEADER_VALUE_CHARS + 1));
        assert!(matches!(
            lines(&long_value),
            Err(HeaderLineError::Refused {
                error: HeaderError::BadValue(_),
                ..
            })
        ));
        let long_name = format!("X-{}: v", "n".repeat(MAX_HEADER_NAME_CHARS));
        assert!(matches!(
            lines(&long_name),
            Err(HeaderLineError::Refused {
                error: HeaderError::BadName(_),
                ..
            })
        ));
    }

    #[test]
    fn a_name_twice_in_any_spelling_is_refused() {
        assert_eq!(
            lines("X-Team: a\nx-team: b"),
            Err(HeaderLineError::Duplicate {
                line: 2,
                name: "x-team".into()
            })
        );
    }

    #[test]
    fn at_most_the_limit_of_headers() {
        let at_limit: String = (0..MAX_MCP_HEADERS)
            .map(|i| format!("X-H{i}: v\n"))
            .collect();
        assert_eq!(lines(&at_limit).unwrap().len(), MAX_MCP_HEADERS);
        let past = format!("{at_limit}X-One-More: v");
        assert_eq!(lines(&past), Err(HeaderLineError::TooMany));
    }

    #[test]
    fn what_the_lines_accept_the_edge_accepts() {
        let parsed = parse_header_lines("X-Workspace: team-a\nAccept-Language: en").unwrap();
        assert_eq!(check_headers(&parsed).unwrap().len(), 2);
    }
}
