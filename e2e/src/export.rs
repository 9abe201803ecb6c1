//! Reading an export file outside the app: its entries with another ZIP implementation
//! than the app's (the `zip` crate), and the SHA-256 of bytes, to compare what was
//! exported with what the browser stores (hashed in the page: [`stored_hashes`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use crate::AppSession;

/// Every file under the private file system's folders `dirs` (at any depth), by path
/// (`images/<name>`, `knowledge/<c>/<f>/source`), with the SHA-256 of its bytes, hashed
/// in the page. A folder that does not exist holds nothing.
pub async fn stored_hashes(session: &AppSession, dirs: &[&str]) -> BTreeMap<String, String> {
    let value = session
        .js_async(
            "const [dirs, done] = [arguments[0], arguments[arguments.length - 1]];
             (async () => {
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
