//! A 401's `WWW-Authenticate` header read for its Bearer challenge (RFC 6750 §3, with
//! RFC 9728's `resource_metadata`): several challenges may share one header, parameter
//! values are tokens or quoted strings with `\` escapes, and names are case-insensitive.
//! Anything malformed ends the reading; what was read stays.

use super::bounded;

/// The parameters of a Bearer challenge that sign-in uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// Where the protected-resource metadata is (RFC 9728 §5.1).
    pub resource_metadata: Option<String>,
    /// The scope the server asks for.
    pub scope: Option<String>,
    /// The error (`invalid_token`, `insufficient_scope`, …).
    pub error: Option<String>,
}

/// The Bearer challenge of `header`, if it has one.
pub fn read_challenge(header: &str) -> Option<Challenge> {
    let mut reader = Reader {
        rest: header.trim_start(),
    };
    let mut in_bearer = false;
    let mut found: Option<Challenge> = None;
    loop {
        reader.skip_separators();
        let Some(token) = reader.token() else {
            return found;
        };
        reader.skip_spaces();
        if reader.rest.starts_with('=') && !reader.rest.starts_with("==") {
            // A parameter of the current challenge.
            reader.rest = reader.rest[1..].trim_start();
            let Some(value) = reader.value() else {
                return found;
            };
            if in_bearer && let Some(challenge) = found.as_mut() {
                let value = Some(bounded(&value));
                match token.to_ascii_lowercase().as_str() {
                    "resource_metadata" => challenge.resource_metadata = value,
                    "scope" => challenge.scope = value,
                    "error" => challenge.error = value,
                    _ => {}
                }
            }
        } else {
            // A new challenge's scheme (a token68 after it is skipped).
            if found.is_some() && in_bearer {
                return found;
            }
            in_bearer = token.eq_ignore_ascii_case("bearer");
            if in_bearer {
                found = Some(Challenge::default());
            }
            reader.skip_token68();
        }
        if reader.rest.is_empty() {
            return found;
        }
    }
}

struct Reader<'a> {
    rest: &'a str,
}

impl Reader<'_> {
    fn skip_spaces(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t']);
    }

    fn skip_separators(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t', ',']);
    }

    /// An RFC 9110 token.
    fn token(&mut self) -> Option<String> {
        let end = self
            .rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return None;
        }
        let token = self.rest[..end].to_string();
        self.rest = &self.rest[end..];
        Some(token)
    }

    /// A token68 right after a scheme (`Basic dXNlcg==`), skipped; a parameter
    /// (`name=value`) is left for the caller.
    fn skip_token68(&mut self) {
        let probe = self.rest.trim_start_matches([' ', '\t']);
        let end = probe
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-._~+/".contains(c)))
            .unwrap_or(probe.len());
        if end == 0 {
            return;
        }
        let after = probe[end..]
            .trim_start_matches('=')
            .trim_start_matches([' ', '\t']);
        if after.is_empty() || after.starts_with(',') {
            self.rest = after;
        }
    }

    /// A token or a quoted string.
    fn value(&mut self) -> Option<String> {
        if let Some(quoted) = self.rest.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            while let Some((at, c)) = chars.next() {
                match c {
                    '\\' => value.push(chars.next()?.1),
                    '"' => {
                        self.rest = &quoted[at + 1..];
                        return Some(value);
                    }
                    _ => value.push(c),
                }
            }
            None
        } else {
            self.token()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_parameters_are_read_from_quoted_and_plain_values() {
        let challenge = read_challenge(
            r#"Bearer realm="mcp", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="files:read  mcp:tools", error=invalid_token"#,
        )
        .unwrap();
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("https://a.example/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(challenge.scope.as_deref(), Some("files:read  mcp:tools"));
        assert_eq!(challenge.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn a_bare_bearer_is_a_challenge_without_parameters() {
        assert_eq!(read_challenge("Bearer"), Some(Challenge::default()));
        assert_eq!(read_challenge("bearer "), Some(Challenge::default()));
    }

    #[test]
    fn the_bearer_challenge_is_found_among_others() {
        let header = r#"Basic realm="x", Bearer scope="a", DPoP algs="ES256""#;
        let challenge = read_challenge(header).unwrap();
        assert_eq!(challenge.scope.as_deref(), Some("a"));
        let header = r#"Basic dXNlcjpwYXNz, Bearer resource_metadata="https://r.example/m""#;
        assert_eq!(
            read_challenge(header).unwrap().resource_metadata.as_deref(),
            Some("https://r.example/m")
        );
        // Another scheme's parameters are not the Bearer's.
        let header = r#"Digest scope="nope", Bearer"#;
        assert_eq!(read_challenge(header).unwrap().scope, None);
    }

    #[test]
    fn names_are_case_insensitive_and_escapes_are_read() {
        let challenge = read_challenge(r#"BEARER Scope="a \"b\"""#).unwrap();
        assert_eq!(challenge.scope.as_deref(), Some(r#"a "b""#));
    }

    #[test]
    fn no_bearer_challenge_is_none() {
        assert_eq!(read_challenge(r#"Basic realm="x""#), None);
        assert_eq!(read_challenge(""), None);
        assert_eq!(read_challenge("   "), None);
    }

    #[test]
    fn a_malformed_header_keeps_what_was_read() {
        // An unterminated quote ends the reading: the challenge is there, that value
        // is not.
        assert_eq!(
            read_challenge(r#"Bearer scope="a"#),
            Some(Challenge::default())
        );
        let challenge = read_challenge(r#"Bearer scope="a", error="b"#).unwrap();
        assert_eq!(challenge.scope.as_deref(), Some("a"));
        assert_eq!(challenge.error, None);
        assert_eq!(
            read_challenge(r#"Bearer scope="a", @@@"#)
                .and_then(|c| c.scope)
                .as_deref(),
            Some("a")
        );
    }

    #[test]
    fn values_are_bounded() {
        let long = "x".repeat(10_000);
        let challenge = read_challenge(&format!("Bearer scope=\"{long}\"")).unwrap();
        assert_eq!(
            challenge.scope.unwrap().chars().count(),
            super::super::MAX_FIELD_CHARS
        );
    }
}
