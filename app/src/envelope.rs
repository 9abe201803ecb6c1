//! Sealing a secret for the edge (BYOK envelopes, format in `hearth_core::byok`), with
//! WebCrypto: a fresh AES-256-GCM key per envelope encrypts the secret with its context as
//! AAD, and RSA-OAEP-256 with the edge's public key wraps that AES key. The edge key is
//! fetched from `GET /api/byok/public-key` and cached; when the edge answers `AUTH_ERROR`
//! (it rotated its key), callers refetch once with [`forget_edge_key`] and retry.

use std::cell::RefCell;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hearth_core::byok::{ALGORITHM, Envelope, PublicKeyResponse, VERSION};
use js_sys::{Array, Object, Reflect, Uint8Array};
use leptos::prelude::window;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::edge::{self, EdgeError};

thread_local! {
    static EDGE_KEY: RefCell<Option<(String, web_sys::CryptoKey)>> = const { RefCell::new(None) };
}

/// Why sealing failed.
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
            Self::Edge(error) => write!(f, "the edge's key is unavailable ({error})"),
            Self::Crypto(why) => write!(f, "encryption failed: {why}"),
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
    provider: &crate::providers::Provider,
    key: Option<&str>,
) -> Result<hearth_core::api::RelayProvider, SealError> {
    let endpoint = provider.endpoint();
    if let Some(server) = &provider.server {
        return Ok(hearth_core::api::RelayProvider {
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
    Ok(hearth_core::api::RelayProvider {
        server_provider_id: None,
        protocol: endpoint.protocol,
        base_url: endpoint.base_url,
        compatible: endpoint.compatible,
        api_key,
    })
}
