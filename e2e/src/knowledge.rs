//! Driving knowledge collections in tests: making one in Settings › Knowledge, using one
//! with `@`, waiting for a file's stage, reading what is stored under `knowledge/` in the private file
//! system (paths, or paths with their SHA-256 hashed in the page), and seeding a library
//! record and files directly, as a closed page or another browser would have left them.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::AppSession;

/// Makes collection `name` in Settings › Knowledge (open); its id.
pub async fn create(session: &AppSession, name: &str, description: &str) -> String {
    session.fill("#knowledge-name", name).await;
    session.fill("#knowledge-description", description).await;
    session.click_by_script("#knowledge-create").await;
    let found = format!(
        "return [...document.querySelectorAll('[data-collection]')]
           .find((c) => c.querySelector('.knowledge-card__name')?.textContent === {name:?})
           ?.dataset.collection ?? null"
    );
    session
        .wait_until(&format!("(() => {{ {found} }})() !== null"))
        .await;
    session
        .js(&found, vec![])
        .await
        .as_str()
        .expect("the collection's id")
        .to_string()
}

/// In the composer: types `typed` (`@` and the start of a name), waits for the `@`
/// menu's entry `slug`, and takes it (Enter): the conversation then answers from
/// collection `name`, as the toast says.
pub async fn use_collection(session: &AppSession, typed: &str, slug: &str, name: &str) {
    crate::chat::type_in_composer(session, typed).await;
    session
        .wait_until(&format!(
            "document.querySelector('#slash-menu [data-slash-command=\"{slug}\"]') !== null"
        ))
        .await;
    session.press(&[fantoccini::key::Key::Enter]).await;
    session
        .wait_for_toast(&format!("This conversation now answers from {name}."))
        .await;
}

/// Where file `name` is on its way in (`upload`, `parse`, `index`, `ready`, `failed`).
pub async fn stage_of(session: &AppSession, name: &str) -> Value {
    session
        .js(
            "return document.querySelector(`[data-knowledge-file=\"${arguments[0]}\"]`)?.dataset.stage ?? null",
            vec![json!(name)],
        )
        .await
}

/// Waits until file `name` is at `stage`.
pub async fn wait_stage(session: &AppSession, name: &str, stage: &str) {
    session
        .wait_until(&format!(
            "document.querySelector('[data-knowledge-file=\"{name}\"]')?.dataset.stage === '{stage}'"
        ))
        .await;
}

/// The text shown for file `name`'s state.
pub async fn state_text(session: &AppSession, name: &str) -> String {
    session
        .js(
            "return document.querySelector(`[data-knowledge-file=\"${arguments[0]}\"] .knowledge-file__state`)?.textContent ?? ''",
            vec![json!(name)],
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Every file stored under `knowledge/`, by path, with the SHA-256 of its bytes (hex).
pub async fn stored_hashes(session: &AppSession) -> BTreeMap<String, String> {
    crate::export::stored_hashes(session, &["knowledge"]).await
}

/// Every file stored under `knowledge/`, as sorted paths.
pub async fn stored(session: &AppSession) -> Vec<String> {
    stored_hashes(session).await.into_keys().collect()
}

/// Stores `files` (`[path, text]` pairs) in the private file system and `library` as the
/// knowledge record, behind the app's back; the page must be reloaded to see them.
pub async fn seed(session: &AppSession, library: Value, files: Value) {
    assert_eq!(
        session.js_async(SEED, vec![library, files]).await,
        json!(true)
    );
}

const SEED: &str = r#"
const [library, files, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
(async () => {
  const root = await navigator.storage.getDirectory();
  for (const [path, text] of files) {
    let dir = root;
    const parts = path.split('/');
    const name = parts.pop();
    for (const part of parts) dir = await dir.getDirectoryHandle(part, { create: true });
    const handle = await dir.getFileHandle(name, { create: true });
    const writable = await handle.createWritable();
    await writable.write(text);
    await writable.close();
  }
  await new Promise((ok, fail) => {
    const open = indexedDB.open('hearth');
    open.onsuccess = () => {
      const tx = open.result.transaction(['settings'], 'readwrite');
      tx.objectStore('settings').put(JSON.stringify(library), 'knowledge');
      tx.oncomplete = ok;
      tx.onerror = () => fail(tx.error);
    };
    open.onerror = () => fail(open.error);
  });
  return true;
})().then(done, (e) => done(String(e)));
"#;
