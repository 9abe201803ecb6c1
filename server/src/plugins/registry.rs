//! The plugin registry: the plugins each client installed, one JSON document per scope
//! (`local` in local mode; the client's signed identity when hosted, so one user cannot
//! list, call, replace or uninstall another's). Locally the documents live in this
//! process and in `plugins.json` in the data directory (written whole, mode 0600, by
//! rename), so a restart keeps them; when hosted they live in Redis, so every instance
//! sees the same plugins and a store that does not answer fails the request instead of
//! forgetting plugins.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hearth_core::plugin::Plugin;

use crate::kv::{KvError, KvStore};

/// The most plugins one scope may hold.
pub const MAX_PLUGINS_PER_SCOPE: usize = 50;

/// Where the documents live.
#[derive(Clone)]
pub enum PluginRegistry {
    /// In this process (local mode), kept in a file when one is given.
    Memory(
        Arc<Mutex<HashMap<String, Vec<Plugin>>>>,
        Option<Arc<PathBuf>>,
    ),
    /// In the shared store (hosted mode).
    Shared(KvStore),
}

impl std::fmt::Debug for PluginRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Memory(..) => "PluginRegistry::Memory",
            Self::Shared(_) => "PluginRegistry::Shared",
        })
    }
}

fn key(scope: &str) -> String {
    format!("plugins:{scope}")
}

impl PluginRegistry {
    /// The registry beside `kv`: shared when `kv` is Redis, in memory otherwise (and in
    /// `file`, when given, read now).
    pub fn beside(kv: &KvStore, file: Option<PathBuf>) -> Self {
        match kv {
            KvStore::Memory(_) => {
                let map = file.as_deref().map(read_file).unwrap_or_default();
                Self::Memory(Arc::new(Mutex::new(map)), file.map(Arc::new))
            }
            KvStore::Redis(_) | KvStore::Upstash(_) => Self::Shared(kv.clone()),
        }
    }

    /// The plugins of `scope`.
    pub async fn list(&self, scope: &str) -> Result<Vec<Plugin>, KvError> {
        match self {
            Self::Memory(map, _) => Ok(map
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(scope)
                .cloned()
                .unwrap_or_default()),
            Self::Shared(kv) => match kv.get_text(&key(scope)).await? {
                Some(text) => serde_json::from_str(&text)
                    .map_err(|e| KvError(format!("a stored plugin list is unreadable: {e}"))),
                None => Ok(Vec::new()),
            },
        }
    }

    /// Replaces the plugins of `scope`.
    pub async fn save(&self, scope: &str, plugins: &[Plugin]) -> Result<(), KvError> {
        match self {
            Self::Memory(map, file) => {
                let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
                let mut next = map.clone();
                if plugins.is_empty() {
                    next.remove(scope);
                } else {
                    next.insert(scope.to_string(), plugins.to_vec());
                }
                // The file first: a write that fails changes nothing.
                if let Some(file) = file {
                    write_file(file, &next)
                        .map_err(|e| KvError(format!("cannot write {}: {e}", file.display())))?;
                }
                *map = next;
                Ok(())
            }
            Self::Shared(kv) => {
                let text = if plugins.is_empty() {
                    String::new()
                } else {
                    serde_json::to_string(plugins).map_err(|e| KvError(e.to_string()))?
                };
                kv.set_text(&key(scope), &text).await
            }
        }
    }
}

/// The documents kept in `path`; a file that cannot be read is moved aside (never
/// overwritten by the next install) and the registry starts empty.
fn read_file(path: &Path) -> HashMap<String, Vec<Plugin>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return HashMap::new(),
        Err(error) => {
            tracing::warn!("plugin registry {}: {error}", path.display());
            return HashMap::new();
        }
    };
    match serde_json::from_str(&text) {
        Ok(map) => map,
        Err(error) => {
            let aside = path.with_extension("json.unreadable");
            tracing::warn!(
                "plugin registry {} is unreadable ({error}); moved to {}",
                path.display(),
                aside.display()
            );
            let _ = std::fs::rename(path, aside);
            HashMap::new()
        }
    }
}

/// Writes `map` to `path` whole: a private temporary file, synced, renamed over it.
fn write_file(path: &Path, map: &HashMap<String, Vec<Plugin>>) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string(map).map_err(std::io::Error::other)?;
    let temporary = path.with_extension("json.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut out = options.open(&temporary)?;
    out.write_all(text.as_bytes())?;
    out.sync_all()?;
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hearth_core::plugin::builtin;

    #[tokio::test]
    async fn local_plugins_survive_a_restart_and_a_damaged_file_is_kept_aside() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plugins.json");
        let kv = KvStore::memory();
        let registry = PluginRegistry::beside(&kv, Some(file.clone()));
        let mut plugin = builtin::web_reader();
        plugin.id = "openapi-pets-0a1b".into();
        registry.save("local", &[plugin.clone()]).await.unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let restarted = PluginRegistry::beside(&kv, Some(file.clone()));
        assert_eq!(restarted.list("local").await.unwrap(), vec![plugin]);

        std::fs::write(&file, "{not json").unwrap();
        let damaged = PluginRegistry::beside(&kv, Some(file.clone()));
        assert!(damaged.list("local").await.unwrap().is_empty());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("plugins.json.unreadable")).unwrap(),
            "{not json"
        );
    }

    #[tokio::test]
    async fn a_write_that_fails_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the file should be: every write fails.
        let file = dir.path().join("plugins.json");
        std::fs::create_dir(&file).unwrap();
        let registry = PluginRegistry::beside(&KvStore::memory(), Some(file));
        let error = registry
            .save("local", &[builtin::web_reader()])
            .await
            .unwrap_err();
        assert!(error.0.contains("cannot write"), "{error}");
        assert!(registry.list("local").await.unwrap().is_empty());
    }
}
