//! Settings › Providers in Chromium: adding a provider with a key, the key shown masked,
//! surviving a reload, and stored nowhere in plaintext (IndexedDB, localStorage).

use fantoccini::key::Key;
use hearth_e2e::AppSession;
use serde_json::{Value, json};

const KEY: &str = "sk-proj-e2e-0123456789abcdefWXYZ";

/// Every value in every IndexedDB store of the `hearth` database, as text, plus whether
/// the vault key is extractable.
const DUMP_IDB: &str = r#"
const done = arguments[arguments.length - 1];
const open = indexedDB.open('hearth');
open.onerror = () => done({ error: String(open.error) });
open.onsuccess = () => {
  const db = open.result;
  const names = [...db.objectStoreNames];
  const tx = db.transaction(names, 'readonly');
  const out = { texts: [], extractable: [] };
  let pending = names.length;
  for (const name of names) {
    const request = tx.objectStore(name).getAll();
    request.onsuccess = () => {
      for (const value of request.result) {
        if (value instanceof CryptoKey) {
          out.extractable.push(value.extractable);
        } else {
          out.texts.push(typeof value === 'string' ? value : JSON.stringify(value));
        }
      }
      if (--pending === 0) done(out);
    };
  }
};
"#;

/// Opens Settings › Providers (a reload keeps the `#settings/providers` deep link).
async fn open_providers_tab(session: &AppSession) {
    session.open_settings_tab("providers").await;
    session.wait_for("#provider-add").await;
}

#[tokio::test]
async fn a_provider_key_is_saved_encrypted_shown_masked_and_survives_a_reload() {
    let session = AppSession::open(1440, 900).await;
    open_providers_tab(&session).await;
    assert!(
        session
            .text_of("#providers-empty")
            .await
            .contains("No providers yet")
    );

    session.click("#provider-add").await;
    session.wait_for("#provider-name").await;
    // Saving an empty form names each problem inline.
    session.click("#provider-save").await;
    session
        .wait_until("document.getElementById('provider-name-error').textContent.length > 0")
        .await;
    assert!(
        session
            .text_of("#provider-api-key-error")
            .await
            .contains("needs an API key")
    );
    assert_eq!(
        session.focused().await,
        "provider-name",
        "focus goes to the first problem"
    );
    session.screenshot("settings-providers-errors").await;

    session
        .wait_for("#provider-name")
        .await
        .send_keys("Work OpenAI")
        .await
        .expect("name");
    session
        .wait_for("#provider-api-key")
        .await
        .send_keys(KEY)
        .await
        .expect("key");
    session.press(&[Key::Enter]).await;
    session
        .wait_until(
            "document.querySelector('[data-testid=provider-key]')?.textContent === 'sk-…WXYZ'",
        )
        .await;
    assert_eq!(session.text_of(".provider-row__name").await, "Work OpenAI");
    session.screenshot("settings-providers").await;
    // The toast raised inside the modal dialog lives inside it, so it can be dismissed.
    session
        .wait_until(
            "document.querySelector('dialog .toast')?.textContent.includes('Provider saved')",
        )
        .await;
    session.click("dialog .toast .icon-button").await;
    session
        .wait_until("document.querySelectorAll('.toast').length === 0")
        .await;

    session.reload_app().await;
    assert_eq!(
        session.js("return location.hash", vec![]).await,
        json!("#settings/providers"),
        "the reload keeps the deep link"
    );
    open_providers_tab(&session).await;
    session
        .wait_until(
            "document.querySelector('[data-testid=provider-key]')?.textContent === 'sk-…WXYZ'",
        )
        .await;

    let dump = session
        .client
        .execute_async(DUMP_IDB, vec![])
        .await
        .expect("read IndexedDB");
    assert!(dump.get("error").is_none(), "{dump}");
    let texts: Vec<String> = serde_json::from_value(dump["texts"].clone()).unwrap();
    assert!(
        texts.iter().any(|t| t.contains("Work OpenAI")),
        "the provider is stored: {texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains("local:provider:") && t.contains("ciphertext")),
        "the key is stored sealed: {texts:?}"
    );
    for text in &texts {
        assert!(!text.contains(KEY), "plaintext key in IndexedDB: {text}");
        assert!(
            !text.contains("0123456789abcdef"),
            "part of the key in IndexedDB: {text}"
        );
    }
    assert_eq!(
        dump["extractable"],
        json!([false]),
        "the vault key cannot be exported"
    );
    let storage: Value = session
        .js(
            "return JSON.stringify(Object.assign({}, localStorage))",
            vec![],
        )
        .await;
    assert!(!storage.as_str().unwrap_or_default().contains(KEY));
    session.finish().await;
}

mod fixture {
    //! A provider's model listing on 127.0.0.1: one path without CORS headers (the
    //! browser may not call it), one with them. It records the key it was called with.

    use std::sync::{Arc, Mutex};

    use axum::Router;
    use axum::extract::{Request, State};
    use axum::http::{Method, StatusCode};
    use axum::response::{IntoResponse, Response};
    use axum::routing::any;
    use serde_json::json;

    /// A call: the path and the Authorization header.
    pub type Call = (String, Option<String>);

    #[derive(Clone, Default)]
    pub struct Seen {
        pub calls: Arc<Mutex<Vec<Call>>>,
    }

    async fn answer(State(seen): State<Seen>, request: Request) -> Response {
        let path = request.uri().path().to_string();
        let cors = path.starts_with("/cors");
        let cors_headers = [
            ("access-control-allow-origin", "*"),
            (
                "access-control-allow-headers",
                "authorization, content-type",
            ),
            ("access-control-allow-methods", "GET, POST, OPTIONS"),
        ];
        if request.method() == Method::OPTIONS {
            return if cors {
                (StatusCode::NO_CONTENT, cors_headers).into_response()
            } else {
                StatusCode::NO_CONTENT.into_response()
            };
        }
        let auth = request
            .headers()
            .get("authorization")
            .map(|v| v.to_str().unwrap_or_default().to_string());
        seen.calls
            .lock()
            .unwrap()
            .push((path.clone(), auth.clone()));
        if auth.as_deref() != Some(&format!("Bearer {}", super::RELAY_KEY)) {
            return (
                StatusCode::UNAUTHORIZED,
                axum::Json(json!({"error": {"message": "bad key"}})),
            )
                .into_response();
        }
        let body = axum::Json(json!({"data": [{"id": "model-alpha"}, {"id": "model-beta"}]}));
        if cors {
            (cors_headers, body).into_response()
        } else {
            body.into_response()
        }
    }

    pub async fn start() -> (String, Seen) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Seen::default();
        let app = Router::new().fallback(any(answer)).with_state(seen.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        (base, seen)
    }
}

const RELAY_KEY: &str = "sk-local-relay-test-9876";

async fn add_compatible_provider(session: &AppSession, name: &str, base_url: &str) {
    hearth_e2e::chat::add_compatible_provider(session, name, base_url, Some(RELAY_KEY)).await;
}

async fn fetch_models_of(session: &AppSession, name: &str) {
    session
        .js(
            "const row = [...document.querySelectorAll('.provider-row')]
               .find(r => r.querySelector('.provider-row__name').textContent === arguments[0]);
             row.querySelector('[data-models]').click();",
            vec![json!(name)],
        )
        .await;
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('.provider-row')]
               .find(r => r.querySelector('.provider-row__name').textContent === '{name}')
               ?.querySelector('[data-testid=model-count]')?.textContent === 'Models: 2'"
        ))
        .await;
}

#[tokio::test]
async fn model_lists_come_directly_or_through_the_relay_when_cors_blocks() {
    let (base, seen) = fixture::start().await;
    let session = AppSession::open(1440, 900).await;
    open_providers_tab(&session).await;

    add_compatible_provider(&session, "Open CORS", &format!("{base}/cors/v1")).await;
    fetch_models_of(&session, "Open CORS").await;
    add_compatible_provider(&session, "No CORS", &format!("{base}/v1")).await;
    fetch_models_of(&session, "No CORS").await;
    session.wait_for("[data-testid=via-relay]").await;
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('[data-testid=via-relay]').length",
                vec![]
            )
            .await,
        json!(1),
        "only the provider that blocks CORS is marked as relayed"
    );
    session.screenshot("settings-providers-models").await;

    let calls = seen.calls.lock().unwrap().clone();
    let expected = Some(format!("Bearer {RELAY_KEY}"));
    assert!(
        calls
            .iter()
            .any(|(path, auth)| path == "/cors/v1/models" && *auth == expected),
        "the CORS-friendly provider was called directly: {calls:?}"
    );
    assert!(
        calls
            .iter()
            .any(|(path, auth)| path == "/v1/models" && *auth == expected),
        "the edge called the blocked provider with the key the browser sealed: {calls:?}"
    );
    // The browser's own attempt at the blocked provider fails on CORS; nothing else may.
    session
        .assert_no_console_errors_but(|m| {
            m.contains("CORS") || m.contains("Failed to fetch") || m.contains("net::ERR_FAILED")
        })
        .await;
    session.browser.close().await;
}
