//! A body's parse error as the edge may answer it: serde's message says where and what
//! went wrong, but it quotes the offending input (`invalid type: string "sk-…", expected
//! struct Envelope`), and a body that put a key where an envelope belongs must not get
//! the key echoed back (into the answer, a proxy's log or a screenshot). The quoted
//! input goes; field names the schema expects and the position stay.

/// `message` with every quoted piece of the input replaced by `…`: double-quoted strings,
/// and the name an `unknown field`/`unknown variant` message quotes first.
pub fn redact_parse_error(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(['"', '`']) {
        let quote = rest[start..].chars().next().unwrap_or('"');
        let before = &rest[..start];
        out.push_str(before);
        let after = &rest[start + 1..];
        let Some(end) = find_closing(after, quote) else {
            // An unterminated quote: everything after it is input.
            out.push(quote);
            out.push('…');
            return out;
        };
        let echoes_input = quote == '"' || input_name_follows(&out);
        out.push(quote);
        if echoes_input {
            out.push('…');
        } else {
            out.push_str(&after[..end]);
        }
        out.push(quote);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Where `quote` closes in `text` (a backslash escapes it inside double quotes).
fn find_closing(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (index, c) in text.char_indices() {
        match c {
            '\\' if quote == '"' && !escaped => escaped = true,
            c if c == quote && !escaped => return Some(index),
            _ => escaped = false,
        }
    }
    None
}

/// Whether the backtick group about to start names something from the input.
fn input_name_follows(so_far: &str) -> bool {
    ["unknown field ", "unknown variant ", "duplicate field "]
        .iter()
        .any(|lead| so_far.ends_with(lead))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_input_is_redacted_and_the_position_kept() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Envelope {
            v: u8,
        }
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Body {
            auth: Option<Envelope>,
        }
        let error = serde_json::from_str::<Body>(r#"{"auth": "sk-live-secret"}"#).unwrap_err();
        let raw = error.to_string();
        assert!(
            raw.contains("sk-live-secret"),
            "serde quotes the input: {raw}"
        );
        let redacted = redact_parse_error(&raw);
        assert!(!redacted.contains("sk-live-secret"), "{redacted}");
        assert!(redacted.contains("line 1 column"), "{redacted}");
        assert!(redacted.contains("expected struct Envelope"), "{redacted}");

        let error = serde_json::from_str::<Body>(r#"{"sk-as-a-name": 1}"#).unwrap_err();
        let redacted = redact_parse_error(&error.to_string());
        assert!(!redacted.contains("sk-as-a-name"), "{redacted}");
        assert!(
            redacted.contains("expected `auth`"),
            "the schema's names stay: {redacted}"
        );
    }

    #[test]
    fn escapes_unterminated_quotes_and_plain_text() {
        assert_eq!(
            redact_parse_error(r#"invalid value: string "a\"b", expected x"#),
            r#"invalid value: string "…", expected x"#
        );
        assert_eq!(redact_parse_error(r#"bad "open"#), r#"bad "…"#);
        assert_eq!(redact_parse_error("EOF while parsing"), "EOF while parsing");
        assert_eq!(
            redact_parse_error("unknown variant `sk-1`, expected `a` or `b`"),
            "unknown variant `…`, expected `a` or `b`"
        );
    }
}
