//! Turning a request's `provider` into something to call: a user's provider (its URL
//! under the deployment's URL policy, its key opened from the envelope for
//! `provider:<protocol>`) or an operator's (URL and key from the edge's configuration).
//! Shared by the relay and the model listing, so both check the same way; and the
//! provider's own error message from an error answer, short and keyless.

use hearth_core::api::{ApiError, ErrorCode, RelayProvider};
use hearth_core::byok::context;
use hearth_core::provider::request::Endpoint;
use hearth_core::url_policy::Target;
use serde_json::{Value, json};

use super::configured::ConfiguredProvider;
use crate::byok::ByokKeys;

/// A provider ready to call.
pub struct Resolved {
    /// Where and how.
    pub endpoint: Endpoint,
    /// The key, in plaintext, for this request only.
    pub key: Option<String>,
    /// Who configured it: the user, or the operator (private targets allowed).
    pub target: Target,
}

fn bad_request(message: &str) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, message)
}

/// Resolves `provider` for one call, among the operator's `configured` providers and
/// with the edge's envelope key `byok`.
pub fn resolve(
    configured: &[ConfiguredProvider],
    byok: Option<&ByokKeys>,
    provider: &RelayProvider,
) -> Result<Resolved, ApiError> {
    if let Some(id) = &provider.server_provider_id {
        if provider.api_key.is_some() {
            return Err(bad_request(
                "A server provider takes no key from the browser",
            ));
        }
        let configured = &configured
            .iter()
            .find(|p| &p.id == id)
            .ok_or_else(|| bad_request("No server provider has this id"))?
            .settings;
        return Ok(Resolved {
            endpoint: Endpoint {
                protocol: configured.protocol,
                base_url: configured.base_url.clone(),
                compatible: configured.compatible,
            },
            key: configured.api_key.clone(),
            target: Target::OperatorConfigured,
        });
    }
    let key = match (&provider.api_key, byok) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(ApiError::new(
                ErrorCode::AuthError,
                "This edge has no BYOK key",
            ));
        }
        (Some(envelope), Some(keys)) => {
            let expected = context::provider(provider.protocol.as_str());
            Some(keys.open(envelope, &expected).map_err(|error| {
                ApiError::new(ErrorCode::AuthError, "The key envelope could not be opened")
                    .with_details(json!({ "reason": error.to_string() }))
            })?)
        }
    };
    Ok(Resolved {
        endpoint: Endpoint {
            protocol: provider.protocol,
            base_url: provider.base_url.clone(),
            compatible: provider.compatible,
        },
        key,
        target: Target::UserConfigured,
    })
}

/// The provider's own error message from an error body, short and with the key removed.
pub fn upstream_message(body: &[u8], key: Option<&str>) -> String {
    let text = String::from_utf8_lossy(body);
    let message = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| {
            v["error"]["message"]
                .as_str()
                .or_else(|| v["message"].as_str())
                .or_else(|| v["error"].as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| text.chars().take(300).collect());
    let mut message: String = message.chars().take(500).collect();
    if let Some(key) = key.filter(|k| k.len() >= 4) {
        message = message.replace(key, "[redacted]");
    }
    message
}

/// The 502 for an upstream error status.
pub fn upstream_error(status: u16, body: &[u8], key: Option<&str>) -> ApiError {
    ApiError::new(
        ErrorCode::UpstreamError,
        format!("The provider answered HTTP {status}"),
    )
    .with_details(json!({
        "upstreamStatus": status,
        "message": upstream_message(body, key),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_messages_are_short_and_keyless() {
        let body = br#"{"error":{"message":"Incorrect API key provided: sk-abcdef123. Find yours at ..."}}"#;
        let message = upstream_message(body, Some("sk-abcdef123"));
        assert!(message.contains("[redacted]"), "{message}");
        assert!(!message.contains("sk-abcdef123"));
        assert_eq!(upstream_message(b"plain text", None), "plain text");
    }
}
