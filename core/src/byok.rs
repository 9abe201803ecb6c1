//! BYOK envelopes: how a user's secret travels from the browser to the edge for the one
//! request that needs it.
//!
//! The browser fetches the edge's RSA public key (`GET /api/byok/public-key`), makes a
//! fresh AES-256-GCM key per request, encrypts the secret with it — the envelope's
//! *context* (`provider:openai`, `plugin:<id>:auth`, …) as additional authenticated data
//! — and wraps the AES key with RSA-OAEP-256. The edge's route, not the client, decides
//! which context it expects, so an envelope made for one purpose cannot be replayed for
//! another. This module holds the wire format, its bounds and the plaintext-secret check;
//! the cryptography lives on each side (WebCrypto in the app, aws-lc in the edge).

use serde::{Deserialize, Serialize};

/// The only algorithm identifier accepted.
pub const ALGORITHM: &str = "RSA-OAEP-256+A256GCM";
/// Envelope format version.
pub const VERSION: u8 = 1;

/// Bounds on each field (characters).
pub const MAX_KID: usize = 128;
/// Bound on the base64url IV.
pub const MAX_IV: usize = 1024;
/// Bound on the base64url wrapped key.
pub const MAX_WRAPPED_KEY: usize = 16_384;
/// Bound on the base64url ciphertext.
pub const MAX_CIPHERTEXT: usize = 65_536;
/// Bound on the context.
pub const MAX_CONTEXT: usize = 200;

/// An encrypted secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Envelope {
    /// Format version (1).
    pub v: u8,
    /// The id of the edge key it was made for.
    pub kid: String,
    /// [`ALGORITHM`].
    pub alg: String,
    /// AES-GCM nonce, base64url.
    pub iv: String,
    /// The AES key wrapped with RSA-OAEP-256, base64url.
    pub wrapped_key: String,
    /// The secret encrypted with AES-256-GCM (tag appended), base64url.
    pub ciphertext: String,
    /// What the secret is for; authenticated as AAD.
    pub context: String,
}

/// Why an envelope is refused. The edge answers every case with 401 `AUTH_ERROR`, so
/// the client refetches the key and retries once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// Wrong version or algorithm, or a field too long or not base64url.
    #[error("the envelope is malformed: {0}")]
    Malformed(&'static str),
    /// Made for another key (the edge rotated it).
    #[error("the envelope was made for another key")]
    UnknownKey,
    /// Made for another purpose than this route's.
    #[error("the envelope was made for another purpose")]
    WrongContext,
    /// Decryption failed: tampered, truncated or not for this key.
    #[error("the envelope could not be opened")]
    Undecryptable,
}

impl EnvelopeError {
    /// The API error code for every envelope failure.
    pub const CODE: &'static str = "AUTH_ERROR";
}

fn base64url(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Envelope {
    /// Checks version, algorithm, bounds and alphabets (before any cryptography).
    pub fn validate(&self) -> Result<(), EnvelopeError> {
        if self.v != VERSION {
            return Err(EnvelopeError::Malformed("unsupported version"));
        }
        if self.alg != ALGORITHM {
            return Err(EnvelopeError::Malformed("unsupported algorithm"));
        }
        let fields = [
            (&self.kid, MAX_KID, "kid"),
            (&self.iv, MAX_IV, "iv"),
            (&self.wrapped_key, MAX_WRAPPED_KEY, "wrappedKey"),
            (&self.ciphertext, MAX_CIPHERTEXT, "ciphertext"),
            (&self.context, MAX_CONTEXT, "context"),
        ];
        for (value, max, name) in fields {
            if value.is_empty() || value.len() > max {
                return Err(EnvelopeError::Malformed(name));
            }
        }
        for (value, name) in [
            (&self.iv, "iv"),
            (&self.wrapped_key, "wrappedKey"),
            (&self.ciphertext, "ciphertext"),
        ] {
            if !base64url(value) {
                return Err(EnvelopeError::Malformed(name));
            }
        }
        Ok(())
    }
}

/// Contexts, built in one place so both sides spell them the same way.
pub mod context {
    /// A provider's API key: `provider:<type>`.
    pub fn provider(provider_type: &str) -> String {
        format!("provider:{provider_type}")
    }

    /// A plugin's credentials: `plugin:<id>:auth`.
    pub fn plugin_auth(plugin_id: &str) -> String {
        format!("plugin:{plugin_id}:auth")
    }

    /// An MCP server's token at install, before the plugin has an id: `mcp:install:auth`.
    pub fn mcp_install() -> String {
        "mcp:install:auth".into()
    }

    /// An MCP server's OAuth secrets (refresh token, client secret) for a token request:
    /// `mcp:oauth`.
    pub fn mcp_oauth() -> String {
        "mcp:oauth".into()
    }

    /// A MinerU API token for a document-parse job: `docs:mineru`.
    pub fn docs_mineru() -> String {
        "docs:mineru".into()
    }

    /// A LlamaParse (LlamaCloud) API key for a document-parse job: `docs:llama-parse`.
    pub fn docs_llama_parse() -> String {
        "docs:llama-parse".into()
    }

    /// A web search service's key: `search:<kind>` (`search:brave`).
    pub fn search(kind: &str) -> String {
        format!("search:{kind}")
    }
}

/// An RSA public key as a JWK (for WebCrypto `importKey("jwk", …)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicJwk {
    /// `RSA`.
    pub kty: String,
    /// Modulus, base64url.
    pub n: String,
    /// Exponent, base64url.
    pub e: String,
    /// `RSA-OAEP-256`.
    pub alg: String,
    /// `enc`.
    #[serde(rename = "use")]
    pub use_: String,
    /// The key id.
    pub kid: String,
}

/// The body of `GET /api/byok/public-key`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicKeyResponse {
    /// The key id envelopes must name.
    pub kid: String,
    /// [`ALGORITHM`].
    pub alg: String,
    /// The key.
    pub public_key_jwk: PublicJwk,
}

/// Field names that carry a secret in plaintext. Routes that take secrets accept only
/// envelopes; a request with one of these holding a string is refused outright.
const SECRET_FIELDS: [&str; 12] = [
    "apiKey",
    "refreshToken",
    "refresh_token",
    "clientSecret",
    "client_secret",
    "api_key",
    "apiToken",
    "token",
    "accessToken",
    "secret",
    "password",
    "authorization",
];

/// The JSON path of the first plaintext secret in `value`, if any (depth-bounded).
pub fn find_plaintext_secret(value: &serde_json::Value) -> Option<String> {
    fn walk(value: &serde_json::Value, path: &mut Vec<String>, depth: usize) -> Option<String> {
        if depth > 32 {
            return None;
        }
        match value {
            serde_json::Value::Object(map) => {
                for (key, child) in map {
                    path.push(key.clone());
                    let is_secret = SECRET_FIELDS.iter().any(|f| f.eq_ignore_ascii_case(key))
                        && child.as_str().is_some_and(|s| !s.is_empty());
                    if is_secret {
                        return Some(path.join("."));
                    }
                    if let Some(found) = walk(child, path, depth + 1) {
                        return Some(found);
                    }
                    path.pop();
                }
                None
            }
            serde_json::Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    path.push(index.to_string());
                    if let Some(found) = walk(child, path, depth + 1) {
                        return Some(found);
                    }
                    path.pop();
                }
                None
            }
            _ => None,
        }
    }
    walk(value, &mut Vec::new(), 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn envelope() -> Envelope {
        Envelope {
            v: 1,
            kid: "k1".into(),
            alg: ALGORITHM.into(),
            iv: "AAAAAAAAAAAAAAAA".into(),
            wrapped_key: "d3JhcHBlZA".into(),
            ciphertext: "Y2lwaGVy".into(),
            context: context::provider("openai"),
        }
    }

    #[test]
    fn a_well_formed_envelope_validates_and_uses_camel_case() {
        assert_eq!(envelope().validate(), Ok(()));
        let value = serde_json::to_value(envelope()).unwrap();
        assert!(value.get("wrappedKey").is_some());
        let unknown = json!({"v":1,"kid":"k","alg":ALGORITHM,"iv":"a","wrappedKey":"b","ciphertext":"c","context":"d","extra":1});
        assert!(serde_json::from_value::<Envelope>(unknown).is_err());
    }

    #[test]
    fn malformed_envelopes_are_refused_before_any_cryptography() {
        type Change = fn(&mut Envelope);
        let cases: [(Change, &str); 6] = [
            (|e| e.v = 2, "unsupported version"),
            (|e| e.alg = "RSA1_5".into(), "unsupported algorithm"),
            (|e| e.kid = "k".repeat(MAX_KID + 1), "kid"),
            (
                |e| e.ciphertext = "a".repeat(MAX_CIPHERTEXT + 1),
                "ciphertext",
            ),
            (|e| e.iv = "not base64!".into(), "iv"),
            (|e| e.context = String::new(), "context"),
        ];
        for (change, what) in cases {
            let mut bad = envelope();
            change(&mut bad);
            assert_eq!(bad.validate(), Err(EnvelopeError::Malformed(what)));
        }
    }

    #[test]
    fn plaintext_secrets_are_found_anywhere() {
        assert_eq!(
            find_plaintext_secret(&json!({"provider": {"type": "openai", "apiKey": "sk-1"}})),
            Some("provider.apiKey".into())
        );
        assert_eq!(
            find_plaintext_secret(&json!({"headers": [{"Authorization": "Bearer x"}]})),
            Some("headers.0.Authorization".into())
        );
        assert_eq!(
            find_plaintext_secret(&json!({"provider": {"apiKeySecret": {"v": 1}}, "token": ""})),
            None,
            "envelopes and empty fields are fine"
        );
    }
}
