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

async fn open_providers_tab(session: &AppSession) {
    session
        .wait_for(".sidebar__footer .sidebar__item")
        .await
        .click()
        .await
        .expect("open settings");
    session
        .wait_for("#settings-tab-providers")
        .await
        .click()
        .await
        .expect("providers tab");
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

    session
        .wait_for("#provider-add")
        .await
        .click()
        .await
        .expect("add");
    session.wait_for("#provider-name").await;
    // Saving an empty form names each problem inline.
    session
        .wait_for("#provider-save")
        .await
        .click()
        .await
        .expect("save");
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

    session.reload_app().await;
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
