//! `SealedJson<T>`: the body of a route that takes secrets, which must arrive as BYOK
//! envelopes. One extractor does what each such route needs, in order: read the JSON
//! body ([`ApiJson`]: 415/413/400), refuse a plaintext secret in the part that carries
//! credentials (`PLAINTEXT_SECRET_REFUSED` with the field's path), parse it into `T`,
//! and check `T`'s bounds (`BAD_REQUEST` with the field and the problem). Each body type
//! says which part is scanned and how its route words the refusals ([`SealedBody`]).

use axum::extract::{FromRequest, Request};
use hearth_core::api::mcp_oauth::{OauthRevokeRequest, OauthTokenRequest};
use hearth_core::api::relay_bounds::{BoundError, check_provider};
use hearth_core::api::web_search::WebSearchRequest;
use hearth_core::api::{
    ApiError, ErrorCode, ModelListRequest, PluginExecuteRequest, PluginInstallRequest,
    PluginRefreshRequest, RelayRequest, redact_parse_error,
};
use hearth_core::byok::find_plaintext_secret;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::error::ApiErrorResponse;
use super::json::ApiJson;

/// The part of a body scanned for plaintext secrets.
#[derive(Debug, Clone, Copy)]
pub enum Scan {
    /// Only this top-level field; a refusal names `<field>.<path>`.
    Field(&'static str),
    /// The whole body but this top-level field (a model's own arguments, say).
    AllBut(&'static str),
    /// The whole body.
    Whole,
}

/// How a body type is checked before its route runs.
pub struct Sealing {
    /// Where plaintext secrets are looked for.
    pub scan: Scan,
    /// The refusal's message.
    pub refusal: &'static str,
    /// The answer to a body that is JSON but not a `T`.
    pub malformed: fn(serde_json::Error) -> ApiError,
}

/// A body whose secrets travel sealed.
pub trait SealedBody: DeserializeOwned {
    /// How this body is checked.
    const SEALING: Sealing;

    /// Its bounds, checked once it is parsed.
    fn check_bounds(&self) -> Result<(), BoundError> {
        Ok(())
    }
}

/// A body that passed [`SealedBody`]'s checks.
#[derive(Debug)]
pub struct SealedJson<T>(pub T);

/// The answer of the relay and the model listing to a body that is not theirs.
fn invalid_body(error: serde_json::Error) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, "Invalid request body")
        .with_details(json!({ "error": redact_parse_error(&error.to_string()) }))
}

impl SealedBody for RelayRequest {
    const SEALING: Sealing = Sealing {
        scan: Scan::Field("provider"),
        refusal: "Secrets must be sent as BYOK envelopes, never in plaintext",
        malformed: invalid_body,
    };

    fn check_bounds(&self) -> Result<(), BoundError> {
        RelayRequest::check_bounds(self)
    }
}

impl SealedBody for WebSearchRequest {
    const SEALING: Sealing = Sealing {
        scan: Scan::Field("service"),
        refusal: "Search keys must be sent as BYOK envelopes, never in plaintext",
        malformed: invalid_body,
    };

    fn check_bounds(&self) -> Result<(), BoundError> {
        WebSearchRequest::check_bounds(self)
    }
}

impl SealedBody for hearth_core::voice::SpeechRequest {
    const SEALING: Sealing = Sealing {
        scan: Scan::Field("service"),
        refusal: "Voice keys must be sent as BYOK envelopes, never in plaintext",
        malformed: invalid_body,
    };

    fn check_bounds(&self) -> Result<(), BoundError> {
        hearth_core::voice::SpeechRequest::check_bounds(self)
    }
}

impl SealedBody for ModelListRequest {
    const SEALING: Sealing = RelayRequest::SEALING;

    fn check_bounds(&self) -> Result<(), BoundError> {
        check_provider(&self.provider)
    }
}

impl SealedBody for PluginExecuteRequest {
    // Credentials travel as envelopes only; the model's arguments are its own business.
    const SEALING: Sealing = Sealing {
        scan: Scan::AllBut("args"),
        refusal: "Credentials must be sent as an encrypted BYOK envelope",
        malformed: |error| {
            ApiError::new(
                ErrorCode::BadRequest,
                format!(
                    "The call is malformed: {}",
                    redact_parse_error(&error.to_string())
                ),
            )
        },
    };
}

impl SealedBody for PluginInstallRequest {
    // An MCP server's credential travels as an envelope only; a pasted description is
    // the API's own text (its examples may well show a `password`).
    const SEALING: Sealing = Sealing {
        scan: Scan::AllBut("spec"),
        refusal: "Credentials must be sent as an encrypted BYOK envelope",
        malformed: invalid_body,
    };
}

impl SealedBody for PluginRefreshRequest {
    const SEALING: Sealing = Sealing {
        scan: Scan::Whole,
        refusal: "Credentials must be sent as an encrypted BYOK envelope",
        malformed: invalid_body,
    };
}

impl SealedBody for OauthTokenRequest {
    // A refresh token and a client secret travel in the sealed `secrets` only.
    const SEALING: Sealing = Sealing {
        scan: Scan::Whole,
        refusal: "OAuth secrets must be sent as an encrypted BYOK envelope",
        malformed: invalid_body,
    };
}

impl SealedBody for OauthRevokeRequest {
    const SEALING: Sealing = OauthTokenRequest::SEALING;
}

/// The path of a plaintext secret in `raw`, as the refusal names it.
fn plaintext_secret(raw: &Value, scan: Scan) -> Option<String> {
    match scan {
        Scan::Field(name) => find_plaintext_secret(&raw[name]).map(|path| format!("{name}.{path}")),
        Scan::AllBut(name) => {
            let mut outer = raw.clone();
            if let Some(map) = outer.as_object_mut() {
                map.remove(name);
            }
            find_plaintext_secret(&outer)
        }
        Scan::Whole => find_plaintext_secret(raw),
    }
}

/// Checks and parses a body already read as JSON.
fn unseal<T: SealedBody>(raw: Value) -> Result<T, ApiError> {
    let sealing = T::SEALING;
    if let Some(field) = plaintext_secret(&raw, sealing.scan) {
        return Err(
            ApiError::new(ErrorCode::PlaintextSecretRefused, sealing.refusal)
                .with_details(json!({ "field": field })),
        );
    }
    let body: T = serde_json::from_value(raw).map_err(sealing.malformed)?;
    body.check_bounds().map_err(|error| {
        ApiError::new(
            ErrorCode::BadRequest,
            format!("Invalid request body: {error}"),
        )
        .with_details(json!({ "field": error.field, "problem": error.problem }))
    })?;
    Ok(body)
}

impl<S, T> FromRequest<S> for SealedJson<T>
where
    S: Send + Sync,
    T: SealedBody,
{
    type Rejection = ApiErrorResponse;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let ApiJson(raw) = ApiJson::<Value>::from_request(request, state).await?;
        Ok(Self(unseal(raw)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relay_body(provider: Value) -> Value {
        json!({
            "provider": provider,
            "request": { "model": "m", "messages": [] },
        })
    }

    #[test]
    fn a_plaintext_secret_is_refused_with_its_path_before_parsing() {
        let error = unseal::<RelayRequest>(relay_body(json!({ "apiKey": "sk-1" }))).unwrap_err();
        assert_eq!(error.code, ErrorCode::PlaintextSecretRefused);
        assert_eq!(error.details, Some(json!({ "field": "provider.apiKey" })));
        let error =
            unseal::<ModelListRequest>(json!({ "provider": { "token": "t" } })).unwrap_err();
        assert_eq!(error.details, Some(json!({ "field": "provider.token" })));
    }

    #[test]
    fn a_call_s_arguments_are_not_scanned_but_the_rest_is() {
        let call = json!({
            "pluginId": "p", "function": "f", "fingerprint": "x",
            "args": { "apiKey": "the model's own business" },
        });
        assert!(unseal::<PluginExecuteRequest>(call.clone()).is_ok());
        let mut plaintext = call;
        plaintext["apiKey"] = json!("sk-1");
        let error = unseal::<PluginExecuteRequest>(plaintext).unwrap_err();
        assert_eq!(error.details, Some(json!({ "field": "apiKey" })));
        let error = unseal::<PluginExecuteRequest>(json!({ "pluginId": 1 })).unwrap_err();
        assert_eq!(error.code, ErrorCode::BadRequest);
        assert!(
            error.error.starts_with("The call is malformed: "),
            "{error:?}"
        );
    }

    #[test]
    fn an_install_refuses_plaintext_credentials_but_not_a_descriptions_examples() {
        let error = unseal::<PluginInstallRequest>(json!({
            "mcpUrl": "https://mcp.example/mcp", "token": "sk-plain",
        }))
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::PlaintextSecretRefused);
        assert_eq!(error.details, Some(json!({ "field": "token" })));
        let spec = r#"{"openapi": "3.0.0", "example": {"password": "hunter2"}}"#;
        let pasted = json!({ "spec": spec });
        assert!(unseal::<PluginInstallRequest>(pasted).is_ok());
        let error = unseal::<PluginInstallRequest>(json!({
            "mcpUrl": "https://mcp.example/mcp", "mcpHeaders": { "Authorization": "Bearer sk-2" },
        }))
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::PlaintextSecretRefused);
    }

    #[test]
    fn a_secret_where_an_envelope_belongs_is_not_echoed() {
        let body = json!({ "mcpUrl": "https://mcp.example/mcp", "auth": "sk-live-echo" });
        let error = unseal::<PluginInstallRequest>(body).unwrap_err();
        assert_eq!(error.code, ErrorCode::BadRequest);
        let answer = serde_json::to_string(&error).unwrap();
        assert!(!answer.contains("sk-live-echo"), "{answer}");
        // A value serde names in its message (an unknown variant) is not echoed either.
        let relay = relay_body(json!({ "protocol": "sk-live-echo", "baseUrl": "https://x" }));
        let answer = serde_json::to_string(&unseal::<RelayRequest>(relay).unwrap_err()).unwrap();
        assert!(!answer.contains("sk-live-echo"), "{answer}");
    }

    #[test]
    fn bounds_are_checked_after_parsing() {
        let long = "x".repeat(3_000);
        let error = unseal::<ModelListRequest>(json!({
            "provider": { "protocol": "openai-chat", "baseUrl": long },
        }))
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::BadRequest);
        assert_eq!(error.details.unwrap()["field"], "provider.baseUrl");
    }
}
