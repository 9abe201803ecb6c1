//! Reading an export file outside the app: its entries with another ZIP implementation
//! than the app's (the `zip` crate), and the SHA-256 of bytes, to compare what was
//! exported with what the browser stores.

use std::collections::BTreeMap;
use std::path::Path;

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

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
