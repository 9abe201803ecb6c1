//! The IndexedDB schema in Chromium: a fresh profile gets version 4 with the conversation
//! and message stores (messages indexed by conversation), the backups store and the
//! search journal (indexed by write number); a version
//! 1 database from an earlier release is upgraded in place with everything it held kept; a
//! version 2 database has its crashed replies rewritten as interrupted, each original
//! backed up first; and an upgrade that fails on a full disk leaves version 2 usable and
//! runs again on the next start; a newer version opened in another tab is never blocked
//! by this one, which closes its connections and says why.

use hearth_e2e::chat::open_latest;
use hearth_e2e::disk::{FILL_THE_DISK, FREE_THE_DISK, SmallDisk};
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
    out.journalIndexes = out.stores.includes('searchJournal')
      ? [...tx.objectStore('searchJournal').indexNames] : [];
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
                   done(all.some((d) => d.name === 'hearth' && d.version === 4)));",
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
    assert_eq!(out["version"], json!(4), "{out}");
    assert_eq!(
        out["stores"],
        json!([
            "backups",
            "conversations",
            "keys",
            "messages",
            "searchJournal",
            "secrets",
            "settings"
        ])
    );
    assert_eq!(out["keyPaths"]["conversations"], json!("id"));
    assert_eq!(out["keyPaths"]["messages"], json!("id"));
    assert_eq!(out["keyPaths"]["settings"], Value::Null);
    assert_eq!(out["keyPaths"]["searchJournal"], json!("id"));
    assert_eq!(out["indexes"], json!(["conversationId"]));
    assert_eq!(out["journalIndexes"], json!(["seq"]));
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
    assert_eq!(after["version"], json!(4), "{after}");
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
    browser.assert_no_app_errors_beside_a_json_page().await;
    browser.close().await;
}

/// Creates a version 2 database holding conversation `c1` with a question `m1` (done) and
/// `count` replies left `streaming`, each with `size` characters of random text.
const SEED_V2: &str = r#"
const [count, size] = arguments;
const random = (n) => {
  const bytes = new Uint8Array(Math.ceil(n * 3 / 4));
  for (let j = 0; j < bytes.length; j += 65536) crypto.getRandomValues(bytes.subarray(j, j + 65536));
  return btoa(String.fromCharCode(...bytes)).slice(0, n);
};
const db = await new Promise((ok, no) => {
  const open = indexedDB.open('hearth', 2);
  open.onupgradeneeded = () => {
    const db = open.result;
    for (const name of ['settings', 'secrets', 'keys']) db.createObjectStore(name);
    db.createObjectStore('conversations', { keyPath: 'id' });
    db.createObjectStore('messages', { keyPath: 'id' })
      .createIndex('conversationId', 'conversationId');
  };
  open.onsuccess = () => ok(open.result);
  open.onerror = () => no(open.error);
});
await new Promise((ok, no) => {
  const tx = db.transaction(['conversations', 'messages'], 'readwrite');
  tx.objectStore('conversations').put({ id: 'c1', title: 'Kept through upgrades',
    activeRootId: 'm1', createdAt: 1, updatedAt: 1, rev: 1 });
  tx.objectStore('messages').put({ id: 'm1', conversationId: 'c1', role: 'user',
    content: 'Question', status: 'done', activeChildId: 'r0', createdAt: 1, updatedAt: 1, rev: 1 });
  for (let i = 0; i < count; i++) {
    tx.objectStore('messages').put({ id: 'r' + i, conversationId: 'c1', parentId: 'm1',
      role: 'assistant', content: i === 0 ? 'Partial answer' : random(size),
      status: 'streaming', createdAt: 2 + i, updatedAt: 2 + i, rev: 1 });
  }
  tx.oncomplete = ok;
  tx.onabort = () => no(tx.error);
});
db.close();
return true;
"#;

/// The database's version, and the `messages` and `backups` records by key (`backups`
/// absent before version 3).
const READ_BACK: &str = r#"
const db = await new Promise((ok, no) => {
  const open = indexedDB.open('hearth');
  open.onsuccess = () => ok(open.result);
  open.onerror = () => no(open.error);
});
const all = async (name) => {
  if (!db.objectStoreNames.contains(name)) return null;
  const store = db.transaction(name).objectStore(name);
  const [keys, values] = await Promise.all([store.getAllKeys(), store.getAll()].map((r) =>
    new Promise((ok) => { r.onsuccess = () => ok(r.result); })));
  return Object.fromEntries(keys.map((k, i) => [k, values[i]]));
};
const out = { version: db.version, messages: await all('messages'), backups: await all('backups') };
db.close();
return out;
"#;

#[tokio::test]
async fn a_version_2_database_is_upgraded_with_a_backup_of_every_record_it_rewrites() {
    let stack = Stack::start();
    let browser = Browser::open(&stack, 1280, 800).await;
    browser.goto("/api/health").await;
    assert_eq!(
        browser.js(SEED_V2, vec![json!(1), json!(0)]).await,
        json!(true)
    );
    browser.open_app("/").await;
    browser
        .wait_until("document.querySelector('.conversation-item__title')?.textContent === 'Kept through upgrades'")
        .await;
    let after = browser.js(READ_BACK, vec![]).await;
    assert_eq!(after["version"], json!(4), "{after}");
    // The reply a crash left streaming is interrupted in the store itself now…
    assert_eq!(after["messages"]["r0"]["status"], json!("interrupted"));
    assert_eq!(after["messages"]["r0"]["content"], json!("Partial answer"));
    // …its original is in the backups, and nothing else was touched or copied.
    assert_eq!(
        after["backups"]["v3:messages:r0"]["status"],
        json!("streaming")
    );
    assert_eq!(after["backups"].as_object().unwrap().len(), 1, "{after}");
    assert_eq!(after["messages"]["m1"]["status"], json!("done"));
    assert_eq!(after["messages"]["m1"]["rev"], json!(1));
    // And the conversation opens with the reply offering Continue.
    open_latest(&browser).await;
    browser
        .wait_until(
            "document.querySelector('.message--assistant')?.dataset.status === 'interrupted'",
        )
        .await;
    browser.close().await;
}

#[tokio::test]
async fn a_failed_upgrade_leaves_the_old_data_usable_and_runs_again_later() {
    let disk = SmallDisk::mount(96);
    let stack = Stack::start_with_profiles_under(&disk.dir);
    let browser = Browser::open(&stack, 1280, 800).await;
    browser.goto("/api/health").await;
    // Forty replies left streaming, 40 KB each: backing them up needs room.
    assert_eq!(
        browser.js(SEED_V2, vec![json!(40), json!(40_000)]).await,
        json!(true)
    );
    let refused = browser.js(FILL_THE_DISK, vec![]).await;
    assert_eq!(
        refused.as_array().map(Vec::len),
        Some(5),
        "the disk filled up: {refused}"
    );

    browser.open_app("/").await;
    // The upgrade could not write its backups: the user is told, and the old data works.
    browser
        .wait_until(
            "document.querySelector('.storage-banner')?.textContent.includes('could not upgrade')",
        )
        .await;
    browser
        .wait_until("document.querySelector('.conversation-item__title')?.textContent === 'Kept through upgrades'")
        .await;
    let during = browser.js(READ_BACK, vec![]).await;
    assert_eq!(during["version"], json!(2), "the old version, untouched");
    assert_eq!(during["backups"], Value::Null);
    assert_eq!(during["messages"]["r0"]["status"], json!("streaming"));
    open_latest(&browser).await;
    browser
        .wait_until(
            "document.querySelector('.message--assistant')?.textContent.includes('Partial answer')",
        )
        .await;

    // With room again, the next start upgrades.
    browser.js(FREE_THE_DISK, vec![]).await;
    browser.reload_app().await;
    browser
        .wait_until("document.querySelector('.conversation-item__title')?.textContent === 'Kept through upgrades'")
        .await;
    let after = browser.js(READ_BACK, vec![]).await;
    assert_eq!(after["version"], json!(4), "{}", after["version"]);
    assert_eq!(after["backups"].as_object().unwrap().len(), 40);
    assert!(
        after["messages"]
            .as_object()
            .unwrap()
            .values()
            .all(|m| m["status"] != json!("streaming"))
    );
    // The refused writes are logged by the browser as errors; that is the point.
    browser.close().await;
    drop(disk);
}

/// Opens the `hearth` database at version `arguments[0]` the way a newer build would;
/// `upgraded`, or `blocked` when an open connection held the upgrade up for a second.
const OPEN_NEWER: &str = r#"
const [version, done] = [arguments[0], arguments[arguments.length - 1]];
const open = indexedDB.open('hearth', version);
const timer = setTimeout(() => done('blocked'), 1000);
open.onblocked = () => { clearTimeout(timer); done('blocked'); };
open.onsuccess = () => { clearTimeout(timer); open.result.close(); done('upgraded'); };
open.onerror = () => { clearTimeout(timer); done(String(open.error)); };
"#;

#[tokio::test]
async fn a_newer_version_in_another_tab_is_never_blocked_and_this_tab_says_why_it_let_go() {
    let session = AppSession::open(1280, 800).await;
    session.wait_for("#composer-input").await;
    // The app's connections are open (its settings and conversations are read).
    session.open_settings_tab("providers").await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    let (first, second) = session.open_tab().await;
    // Any same-origin page that is not the app: the API's JSON.
    session.goto("/api/health").await;
    let answer = session
        .client
        .execute_async(OPEN_NEWER, vec![json!(5)])
        .await
        .expect("open the newer version");
    assert_eq!(answer, json!("upgraded"), "the old tab let go at once");
    session.client.switch_to_window(first).await.expect("back");
    session.wait_for(".storage-banner").await;
    let banner = session.text_of(".storage-banner").await;
    assert!(
        banner.contains("A newer version of Hearth opened in another tab"),
        "{banner}"
    );
    assert!(banner.contains("Reload"), "{banner}");
    // What this tab tries next is refused with the same reason, not a raw browser error
    // (the Data tab's own connection is refused before it is made), and a still
    // newer version is not blocked either.
    session.open_settings_tab("data").await;
    session.click_by_script("#data-export").await;
    session
        .wait_until(
            "document.getElementById('data-error')?.textContent
               .includes('A newer version of Hearth opened in another tab')",
        )
        .await;
    session
        .client
        .switch_to_window(second)
        .await
        .expect("switch");
    let answer = session
        .client
        .execute_async(OPEN_NEWER, vec![json!(6)])
        .await
        .expect("open a still newer version");
    assert_eq!(answer, json!("upgraded"));
    session.assert_no_app_errors_beside_a_json_page().await;
    session.browser.close().await;
}
