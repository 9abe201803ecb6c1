//! Reading an export file outside the app: its entries with another ZIP implementation
//! than the app's (the `zip` crate), and the SHA-256 of bytes, to compare what was
//! exported with what the browser stores (hashed in the page: [`stored_hashes`]);
//! exporting and importing from Settings › Data; a settings document read or written
//! straight in IndexedDB.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::AppSession;

/// Every file under the private file system's folders `dirs` (at any depth), by path
/// (`images/<name>`, `knowledge/<c>/<f>/source`), with the SHA-256 of its bytes, hashed
/// in the page. A folder that does not exist holds nothing. A file or folder that goes
/// while it is walked (the app replacing or cleaning up a file at that moment) means the
/// store was changing: the walk starts again, up to 20 times 100 ms apart, so what is
/// returned is one whole state, never half of two.
pub async fn stored_hashes(session: &AppSession, dirs: &[&str]) -> BTreeMap<String, String> {
    let value = session
        .js_async(
            "const [dirs, done] = [arguments[0], arguments[arguments.length - 1]];
             const once = async () => {
               const root = await navigator.storage.getDirectory();
               const out = {};
               const walk = async (dir, path) => {
                 for await (const [name, handle] of dir.entries()) {
                   if (handle.kind === 'directory') { await walk(handle, path + '/' + name); continue; }
                   const bytes = await (await handle.getFile()).arrayBuffer();
                   const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
                   out[path + '/' + name] =
                     [...hash].map((b) => b.toString(16).padStart(2, '0')).join('');
                 }
               };
               for (const name of dirs) {
                 let dir;
                 try { dir = await root.getDirectoryHandle(name); } catch (e) { continue; }
                 await walk(dir, name);
               }
               return out;
             };
             (async () => {
               for (let attempt = 0; ; attempt++) {
                 try { return await once(); } catch (e) {
                   if (e.name !== 'NotFoundError' || attempt === 19) throw e;
                   await new Promise((wake) => setTimeout(wake, 100));
                 }
               }
             })().then(done, (e) => done(String(e)));",
            vec![json!(dirs)],
        )
        .await;
    serde_json::from_value(value.clone()).unwrap_or_else(|_| panic!("stored: {value}"))
}

/// Every entry of the ZIP at `path`, by name.
pub fn zip_entries(path: &Path) -> BTreeMap<String, Vec<u8>> {
    let file = std::fs::File::open(path).expect("open the export");
    let mut archive = zip::ZipArchive::new(file).expect("the export is a ZIP");
    (0..archive.len())
        .map(|i| {
            let mut entry = archive.by_index(i).expect("an entry");
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut bytes).expect("read an entry");
            (entry.name().expect("a UTF-8 name").to_string(), bytes)
        })
        .collect()
}

/// The files an export's `entries` carry (under `files/`), by their path in the private
/// file system, each with its SHA-256.
pub fn carried_hashes(entries: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, String> {
    entries
        .iter()
        .filter_map(|(name, bytes)| {
            name.strip_prefix("files/")
                .map(|path| (path.to_string(), sha256_hex(bytes)))
        })
        .collect()
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Exports everything from Settings › Data into the scratch folder `name`; the folder
/// (to remove when done) and the downloaded file.
pub async fn export_all(session: &AppSession, name: &str) -> (PathBuf, PathBuf) {
    let downloads = crate::paths::scratch_dir(name);
    session.allow_downloads(&downloads).await;
    session.open_settings_tab("data").await;
    session.wait_for("#data-export").await;
    session.click_by_script("#data-export").await;
    let file = crate::paths::downloaded(&downloads).await;
    (downloads, file)
}

/// The records (`hearth-export.json`) of the export at `path`.
pub fn records(path: &Path) -> Value {
    serde_json::from_slice(&zip_entries(path)["hearth-export.json"]).expect("the records")
}

/// Imports the export at `path` from Settings › Data and waits until it is in: the
/// summary goes as the import starts, the file input is enabled again once it ended.
pub async fn import_all(session: &AppSession, path: &Path) {
    session.open_settings_tab("data").await;
    session.choose_files("#data-import-file", &[path]).await;
    session.wait_for("#data-import-summary").await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until(
            "!document.getElementById('data-import-summary') && \
             document.getElementById('data-import-file')?.disabled === false",
        )
        .await;
}

/// Writes `text` as the settings document `key` (a record another version, or a damaged
/// disk, left), straight into IndexedDB.
pub async fn put_settings_record(session: &AppSession, key: &str, text: &str) {
    let put = session
        .js_async(
            "const [text, key, done] = arguments;
             const open = indexedDB.open('hearth');
             open.onsuccess = () => {
               const tx = open.result.transaction('settings', 'readwrite');
               tx.objectStore('settings').put(text, key);
               tx.oncomplete = () => { open.result.close(); done(true); };
               tx.onerror = () => done(false);
             };
             open.onerror = () => done(false);",
            vec![json!(text), json!(key)],
        )
        .await;
    assert_eq!(
        put,
        json!(true),
        "the settings record {key} was not written"
    );
}

/// Deletes every conversation from the open Settings › Data tab (Delete all, then its
/// confirmation) and waits until the counts say none is left.
pub async fn delete_all_conversations(session: &AppSession) {
    session.click_by_script("#data-delete").await;
    session.click_by_script("#data-delete-confirm").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 0 · Messages: 0')")
        .await;
}

/// The settings document `key` as stored in IndexedDB.
pub async fn settings_record(session: &AppSession, key: &str) -> Value {
    session
        .js_async(
            "const [key, done] = arguments;
             const open = indexedDB.open('hearth');
             open.onsuccess = () => {
               const get = open.result.transaction('settings').objectStore('settings').get(key);
               get.onsuccess = () => { open.result.close(); done(get.result ?? null); };
             };",
            vec![json!(key)],
        )
        .await
}
