//! The IndexedDB schema in Chromium: a fresh profile gets version 2 with the conversation
//! and message stores (messages indexed by conversation), and a version 1 database from
//! an earlier release is upgraded in place with everything it held kept.

use hearth_e2e::{AppSession, Browser, Stack};
use serde_json::{Value, json};

/// The `hearth` database's version, stores, key paths and `messages` indexes; with
/// `seed`, first creates a version 1 database holding a settings document.
const INSPECT: &str = r#"
const [seed, done] = [arguments[0], arguments[arguments.length - 1]];
const describe = () => {
  const open = indexedDB.open('hearth');
  open.onerror = () => done({ error: String(open.error) });
  open.onsuccess = () => {
    const db = open.result;
    const out = { version: db.version, stores: [...db.objectStoreNames].sort(), keyPaths: {} };
    const tx = db.transaction(out.stores, 'readonly');
    for (const name of out.stores) out.keyPaths[name] = tx.objectStore(name).keyPath;
    out.indexes = out.stores.includes('messages')
      ? [...tx.objectStore('messages').indexNames] : [];
    const get = tx.objectStore('settings').get('providers');
    get.onsuccess = () => { out.providers = get.result ?? null; db.close(); done(out); };
  };
};
if (!seed) return describe();
const open = indexedDB.open('hearth', 1);
open.onupgradeneeded = () => {
  const db = open.result;
  for (const name of ['settings', 'secrets', 'keys']) db.createObjectStore(name);
};
open.onsuccess = () => {
  const db = open.result;
  const tx = db.transaction(['settings'], 'readwrite');
  tx.objectStore('settings').put(seed, 'providers');
  tx.oncomplete = () => { db.close(); done({ seeded: true }); };
  tx.onerror = () => done({ error: String(tx.error) });
};
open.onerror = () => done({ error: String(open.error) });
"#;

async fn inspect(browser: &Browser, seed: Value) -> Value {
    let out = browser
        .client
        .execute_async(INSPECT, vec![seed])
        .await
        .expect("inspect IndexedDB");
    assert!(out.get("error").is_none(), "{out}");
    out
}

#[tokio::test]
async fn a_fresh_profile_gets_the_conversation_stores() {
    let session = AppSession::open(1280, 800).await;
    // The app opens the database on start. Opening it here first would create an empty
    // version 1, so wait until the browser lists the app's.
    for _ in 0..100 {
        let listed = session
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 indexedDB.databases().then((all) =>
                   done(all.some((d) => d.name === 'hearth' && d.version === 2)));",
                vec![],
            )
            .await
            .expect("list databases");
        if listed == json!(true) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let out = inspect(&session, Value::Null).await;
    assert_eq!(out["version"], json!(2), "{out}");
    assert_eq!(
        out["stores"],
        json!(["conversations", "keys", "messages", "secrets", "settings"])
    );
    assert_eq!(out["keyPaths"]["conversations"], json!("id"));
    assert_eq!(out["keyPaths"]["messages"], json!("id"));
    assert_eq!(out["keyPaths"]["settings"], Value::Null);
    assert_eq!(out["indexes"], json!(["conversationId"]));
    session.finish().await;
}

#[tokio::test]
async fn a_version_1_database_is_upgraded_with_its_data_kept() {
    let stack = Stack::start();
    let browser = Browser::open(&stack, 1280, 800).await;
    // Any same-origin page that is not the app: the API's JSON.
    browser.goto("/api/health").await;
    let providers = r#"[{"id":"p1","name":"Old","kind":"compatible","baseUrl":"http://127.0.0.1:11434/v1","enabled":true,"hasKey":false,"viaRelay":false}]"#;
    let seeded = inspect(&browser, json!(providers)).await;
    assert_eq!(seeded["seeded"], json!(true), "{seeded}");
    let before = inspect(&browser, Value::Null).await;
    assert_eq!(before["version"], json!(1), "{before}");

    browser.open_app("/").await;
    // The upgraded app still lists the provider stored by version 1.
    browser.open_settings_tab("providers").await;
    browser
        .wait_until("document.body.textContent.includes('Old')")
        .await;
    let after = inspect(&browser, Value::Null).await;
    assert_eq!(after["version"], json!(2), "{after}");
    assert_eq!(
        after["providers"],
        json!(providers),
        "the v1 document is unchanged"
    );
    assert!(
        after["stores"]
            .as_array()
            .is_some_and(|s| s.contains(&json!("messages")))
    );
    // Chromium asks for /favicon.ico on the JSON page used for seeding; the app itself
    // must log nothing.
    let errors: Vec<String> = browser
        .console_errors()
        .await
        .into_iter()
        .map(|entry| entry.message)
        .filter(|message| !message.contains("/favicon.ico"))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}
