//! The plugin registry: the plugins each client installed, one JSON document per scope
//! (`local` in local mode; the client's signed identity when hosted, so one user cannot
//! list, call, replace or uninstall another's). Locally the documents live in this
//! process; when hosted they live in Redis, so every instance sees the same plugins and
//! a store that does not answer fails the request instead of forgetting plugins.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hearth_core::plugin::Plugin;

use crate::kv::{KvError, KvStore};

/// The most plugins one scope may hold.
pub const MAX_PLUGINS_PER_SCOPE: usize = 50;

/// Where the documents live.
#[derive(Clone)]
pub enum PluginRegistry {
    /// In this process (local mode).
    Memory(Arc<Mutex<HashMap<String, Vec<Plugin>>>>),
    /// In the shared store (hosted mode).
    Shared(KvStore),
}

impl std::fmt::Debug for PluginRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Memory(_) => "PluginRegistry::Memory",
            Self::Shared(_) => "PluginRegistry::Shared",
        })
    }
}

fn key(scope: &str) -> String {
    format!("plugins:{scope}")
}

impl PluginRegistry {
    /// The registry beside `kv`: shared when `kv` is Redis, in memory otherwise.
    pub fn beside(kv: &KvStore) -> Self {
        match kv {
            KvStore::Memory(_) => Self::Memory(Arc::default()),
            KvStore::Redis(_) | KvStore::Upstash(_) => Self::Shared(kv.clone()),
        }
    }

    /// The plugins of `scope`.
    pub async fn list(&self, scope: &str) -> Result<Vec<Plugin>, KvError> {
        match self {
            Self::Memory(map) => Ok(map
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
            Self::Memory(map) => {
                let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
                if plugins.is_empty() {
                    map.remove(scope);
                } else {
                    map.insert(scope.to_string(), plugins.to_vec());
                }
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
