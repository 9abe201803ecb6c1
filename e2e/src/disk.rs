//! A small disk for the browser profile, so tests can fill it for real: a tmpfs mounted
//! for the test (which needs root, as the CI machine has) and a script that fills it
//! from the page with incompressible data in a database of its own.

use std::path::PathBuf;

/// A tmpfs, unmounted and removed on drop.
pub struct SmallDisk {
    /// Where it is mounted.
    pub dir: PathBuf,
}

impl SmallDisk {
    /// Mounts a `megabytes` tmpfs in a fresh directory.
    pub fn mount(megabytes: u32) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "hearth-e2e-disk-{}-{}",
            std::process::id(),
            crate::process::free_port()
        ));
        std::fs::create_dir_all(&dir).expect("disk dir");
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(&dir)
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "mounting a tmpfs failed: this test needs root (as the CI machine has)"
        );
        Self { dir }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.dir)
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Fills the disk from the page with random bytes in a database named `filler`, in ever
/// smaller pieces, until the browser refuses even a small one. Returns the refusals
/// (`QuotaExceededError` once per size when the disk is full). Random, because IndexedDB
/// compresses what it can; new keys every call, so filling again never overwrites (an
/// overwritten value is space the database may give back later).
pub const FILL_THE_DISK: &str = "
  const db = await new Promise((ok, no) => {
    const r = indexedDB.open('filler', 1);
    r.onupgradeneeded = () => r.result.createObjectStore('s');
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
  const refused = [];
  let key = Date.now() * 1000;
  for (const size of [8000000, 1000000, 100000, 20000, 2000]) {
    for (let i = 0; i < 200; i++) {
      const bytes = new Uint8Array(size);
      for (let j = 0; j < size; j += 65536) crypto.getRandomValues(bytes.subarray(j, j + 65536));
      try {
        await new Promise((ok, no) => {
          const t = db.transaction('s', 'readwrite');
          t.objectStore('s').put(bytes, key++);
          t.oncomplete = ok;
          t.onabort = () => no(t.error);
        });
      } catch (e) { refused.push(e.name); break; }
    }
  }
  db.close();
  return refused;";

/// Deletes the `filler` database, making room again.
pub const FREE_THE_DISK: &str = "
  await new Promise((ok) => {
    const r = indexedDB.deleteDatabase('filler');
    r.onsuccess = ok;
    r.onerror = ok;
  });";
