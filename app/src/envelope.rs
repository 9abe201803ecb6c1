//! Sealing a secret for the edge (BYOK envelopes, format in `hearth_core::byok`), with
//! WebCrypto: a fresh AES-256-GCM key per envelope encrypts the secret with its context as
//! AAD, and RSA-OAEP-256 with the edge's public key wraps that AES key. The edge key is
//! fetched from `GET /api/byok/public-key` and cached; when the edge answers `AUTH_ERROR`
//! (it rotated its key), the call is made once more with the secrets sealed again for
//! the new key: [`with_sealed`] does that for every call that carries an envelope.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hearth_core::api::{ApiError, ErrorCode, RelayProvider, ServerRefusal};
use hearth_core::byok::{ALGORITHM, Envelope, PublicKeyResponse, VERSION};
use js_sys::{Array, Object, Reflect, Uint8Array};
use leptos::prelude::window;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::edge::{self, EdgeError};
use crate::i18n::{Key, message};
use crate::providers::record::Provider;

thread_local! {
    static EDGE_KEY: RefCell<Option<(String, web_sys::CryptoKey)>> = const { RefCell::new(None) };
}

/// Why sealing failed. Its `Display` is in the user's language.
#[derive(Debug, Clone, PartialEq)]
pub enum SealError {
    /// The edge's key could not be fetched.
    Edge(EdgeError),
    /// WebCrypto refused.
    Crypto(String),
}

impl std::fmt::Display for SealError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Edge(error) => f.write_str(&message(
                Key::ErrorSealEdge,
                &[("reason", &error.to_string())],
            )),
            Self::Crypto(why) => f.write_str(&message(Key::ErrorSealCrypto, &[("reason", why)])),
        }
    }
}

fn crypto_error(error: JsValue) -> SealError {
    SealError::Crypto(
        Reflect::get(&error, &JsValue::from_str("message"))
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| format!("{error:?}")),
    )
}

fn set(object: &Object, name: &str, value: &JsValue) -> Result<(), SealError> {
    Reflect::set(object, &JsValue::from_str(name), value)
        .map(|_| ())
        .map_err(crypto_error)
}

async fn call(promise: Result<js_sys::Promise, JsValue>) -> Result<JsValue, SealError> {
    JsFuture::from(promise.map_err(crypto_error)?)
        .await
        .map_err(crypto_error)
}

/// Drops the cached edge key (after an `AUTH_ERROR`).
pub fn forget_edge_key() {
    EDGE_KEY.with(|key| key.borrow_mut().take());
}

async fn edge_key(
    subtle: &web_sys::SubtleCrypto,
) -> Result<(String, web_sys::CryptoKey), SealError> {
    if let Some(cached) = EDGE_KEY.with(|key| key.borrow().clone()) {
        return Ok(cached);
    }
    let response: PublicKeyResponse = edge::fetch_byok_public_key()
        .await
        .map_err(SealError::Edge)?;
    let jwk = serde_wasm_json(&response.public_key_jwk)?;
    let algorithm = Object::new();
    set(&algorithm, "name", &JsValue::from_str("RSA-OAEP"))?;
    set(&algorithm, "hash", &JsValue::from_str("SHA-256"))?;
    let key = call(subtle.import_key_with_object(
        "jwk",
        &jwk,
        &algorithm,
        false,
        &Array::of1(&JsValue::from_str("encrypt")),
    ))
    .await?
    .dyn_into::<web_sys::CryptoKey>()
    .map_err(crypto_error)?;
    let entry = (response.kid, key);
    EDGE_KEY.with(|cached| *cached.borrow_mut() = Some(entry.clone()));
    Ok(entry)
}

/// A serde value as a plain JS object (through JSON; the values are small).
fn serde_wasm_json<T: serde::Serialize>(value: &T) -> Result<Object, SealError> {
    let text = serde_json::to_string(value).map_err(|e| SealError::Crypto(e.to_string()))?;
    js_sys::JSON::parse(&text)
        .map_err(crypto_error)?
        .dyn_into::<Object>()
        .map_err(crypto_error)
}

/// Seals `secret` for the edge, for `context` (e.g. `provider:openai-chat`).
pub async fn seal_for_edge(context: &str, secret: &str) -> Result<Envelope, SealError> {
    let crypto = window().crypto().map_err(crypto_error)?;
    let subtle = crypto.subtle();
    let (kid, rsa) = edge_key(&subtle).await?;

    let aes_algorithm = Object::new();
    set(&aes_algorithm, "name", &JsValue::from_str("AES-GCM"))?;
    set(&aes_algorithm, "length", &JsValue::from_f64(256.0))?;
    let aes = call(subtle.generate_key_with_object(
        &aes_algorithm,
        true,
        &Array::of1(&JsValue::from_str("encrypt")),
    ))
    .await?
    .dyn_into::<web_sys::CryptoKey>()
    .map_err(crypto_error)?;

    let mut iv = [0u8; 12];
    crypto
        .get_random_values_with_u8_array(&mut iv)
        .map_err(crypto_error)?;
    let params = Object::new();
    set(&params, "name", &JsValue::from_str("AES-GCM"))?;
    set(&params, "iv", &Uint8Array::from(&iv[..]).into())?;
    set(
        &params,
        "additionalData",
        &Uint8Array::from(context.as_bytes()).into(),
    )?;
    let ciphertext =
        call(subtle.encrypt_with_object_and_u8_array(&params, &aes, secret.as_bytes())).await?;

    let raw = call(subtle.export_key("raw", &aes)).await?;
    let raw = Uint8Array::new(&raw).to_vec();
    let oaep = Object::new();
    set(&oaep, "name", &JsValue::from_str("RSA-OAEP"))?;
    let wrapped = call(subtle.encrypt_with_object_and_u8_array(&oaep, &rsa, &raw)).await?;

    Ok(Envelope {
        v: VERSION,
        kid,
        alg: ALGORITHM.into(),
        iv: URL_SAFE_NO_PAD.encode(iv),
        wrapped_key: URL_SAFE_NO_PAD.encode(Uint8Array::new(&wrapped).to_vec()),
        ciphertext: URL_SAFE_NO_PAD.encode(Uint8Array::new(&ciphertext).to_vec()),
        context: context.into(),
    })
}

/// The relay's view of a provider: a server-configured one by its id alone, a user's by
/// its endpoint and, if it has one, its key sealed for `provider:<protocol>`. Used by
/// every relayed call (model lists, chat).
pub async fn relay_provider(
    provider: &Provider,
    key: Option<&str>,
) -> Result<RelayProvider, SealError> {
    let endpoint = provider.endpoint();
    if let Some(server) = &provider.server {
        return Ok(RelayProvider {
            server_provider_id: Some(server.id.clone()),
            protocol: endpoint.protocol,
            base_url: String::new(),
            compatible: endpoint.compatible,
            api_key: None,
        });
    }
    let api_key = match key {
        Some(key) => Some(
            seal_for_edge(
                &hearth_core::byok::context::provider(endpoint.protocol.as_str()),
                key,
            )
            .await?,
        ),
        None => None,
    };
    Ok(RelayProvider {
        server_provider_id: None,
        protocol: endpoint.protocol,
        base_url: endpoint.base_url,
        compatible: endpoint.compatible,
        api_key,
    })
}

/// Whether an error is the edge refusing an envelope because it no longer holds the key
/// it was sealed for (`AUTH_ERROR`: the edge rotated its key). An `AUTH_ERROR` that
/// passes on a remote server's refusal (`details.reason` `serverAuth` or
/// `insufficientScope`) is not: sealing again would only send the call twice.
pub trait EdgeKeyRefusal {
    /// Whether this is that refusal.
    fn edge_key_refused(&self) -> bool;
}

impl EdgeKeyRefusal for ApiError {
    fn edge_key_refused(&self) -> bool {
        self.code == ErrorCode::AuthError && ServerRefusal::of(self).is_none()
    }
}

impl EdgeKeyRefusal for EdgeError {
    fn edge_key_refused(&self) -> bool {
        matches!(self, Self::Api(error) if error.edge_key_refused())
    }
}

/// Seals secrets for one attempt of a call made through [`with_sealed`], noting whether
/// it sealed any (only then can the edge's key be why the call was refused).
#[derive(Clone, Default)]
pub struct Sealer {
    sealed: Rc<Cell<bool>>,
}

impl Sealer {
    /// [`seal_for_edge`], for this attempt.
    pub async fn seal(&self, context: &str, secret: &str) -> Result<Envelope, SealError> {
        self.sealed.set(true);
        seal_for_edge(context, secret).await
    }

    /// [`relay_provider`], for this attempt.
    pub async fn relay_provider(
        &self,
        provider: &Provider,
        key: Option<&str>,
    ) -> Result<RelayProvider, SealError> {
        if key.is_some() && provider.server.is_none() {
            self.sealed.set(true);
        }
        relay_provider(provider, key).await
    }

    fn sealed(&self) -> bool {
        self.sealed.get()
    }
}

/// Makes a call that carries secrets sealed for the edge: `attempt` seals what it sends
/// with the [`Sealer`] it is given, then calls. When the call fails because the edge no
/// longer holds the key those envelopes were sealed for ([`EdgeKeyRefusal`]), the cached
/// edge key is forgotten and `attempt` runs once more, sealing again for the edge's new
/// key; any other outcome, or a second refusal, is returned as it is.
///
/// ```ignore
/// let answer = envelope::with_sealed(async |sealer| {
///     let auth = sealer.seal(&context, secret).await.map_err(MyError::Seal)?;
///     edge::call(&Request { auth, .. }).await.map_err(MyError::Edge)
/// })
/// .await?;
/// ```
pub async fn with_sealed<T, E: EdgeKeyRefusal>(
    mut attempt: impl AsyncFnMut(Sealer) -> Result<T, E>,
) -> Result<T, E> {
    let sealer = Sealer::default();
    match attempt(sealer.clone()).await {
        Err(error) if sealer.sealed() && error.edge_key_refused() => {
            forget_edge_key();
            attempt(Sealer::default()).await
        }
        outcome => outcome,
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use super::*;

    /// Runs a future that never waits (these attempts answer at once).
    fn run<T>(future: impl Future<Output = T>) -> T {
        let mut future = pin!(future);
        match future
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(value) => value,
            Poll::Pending => panic!("the attempt waited"),
        }
    }

    fn refused() -> EdgeError {
        EdgeError::Api(ApiError::new(ErrorCode::AuthError, "key rotated"))
    }

    /// An attempt that seals (or not) and answers the next of `answers`.
    fn attempts(
        seals: bool,
        answers: Vec<Result<u8, EdgeError>>,
    ) -> (Result<u8, EdgeError>, usize) {
        let count = Cell::new(0);
        let outcome = run(with_sealed(async |sealer: Sealer| {
            if seals {
                sealer.sealed.set(true);
            }
            let answer = answers[count.get()].clone();
            count.set(count.get() + 1);
            answer
        }));
        (outcome, count.get())
    }

    #[test]
    fn a_refused_envelope_is_sealed_again_once() {
        assert_eq!(attempts(true, vec![Err(refused()), Ok(7)]), (Ok(7), 2));
        assert_eq!(
            attempts(true, vec![Err(refused()), Err(refused())]),
            (Err(refused()), 2),
            "a second refusal is the answer"
        );
    }

    #[test]
    fn other_outcomes_and_calls_without_envelopes_are_not_retried() {
        assert_eq!(attempts(true, vec![Ok(1)]), (Ok(1), 1));
        assert_eq!(
            attempts(true, vec![Err(EdgeError::Unreachable)]),
            (Err(EdgeError::Unreachable), 1)
        );
        assert_eq!(
            attempts(false, vec![Err(refused())]),
            (Err(refused()), 1),
            "nothing was sealed, so the edge's key is not why"
        );
    }

    #[test]
    fn a_remote_servers_refusal_passed_on_is_not_the_edges_key() {
        for reason in ["serverAuth", "insufficientScope"] {
            let server = EdgeError::Api(
                ApiError::new(ErrorCode::AuthError, "the MCP server refused")
                    .with_details(serde_json::json!({ "reason": reason })),
            );
            assert_eq!(
                attempts(true, vec![Err(server.clone()), Ok(7)]),
                (Err(server), 1),
                "{reason}: sent once"
            );
        }
        let envelope = EdgeError::Api(
            ApiError::new(
                ErrorCode::AuthError,
                "The credential envelope could not be opened",
            )
            .with_details(serde_json::json!({ "reason": "decryption failed" })),
        );
        assert_eq!(attempts(true, vec![Err(envelope), Ok(7)]), (Ok(7), 2));
    }

    #[test]
    fn errors_read_in_the_users_language() {
        // Before the app's I18n exists (and in native tests) that is English.
        assert_eq!(
            SealError::Crypto("no subtle".into()).to_string(),
            "encryption failed: no subtle"
        );
    }
}
