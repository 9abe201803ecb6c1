//! Voice in the app: the user's voice settings (one settings document, `voice`, read the
//! first time something needs it), the ElevenLabs key (sealed in the vault under
//! `local:voice:elevenlabs:api-key`), and reading a reply aloud ([`player`]): with the
//! browser's own speech, or through the edge (`POST /api/voice/speech`) with one of the
//! user's OpenAI-compatible providers or ElevenLabs.

pub mod player;

use hearth_core::voice::settings::VoiceSettings;
use leptos::prelude::*;

use crate::storage::Db;
use crate::storage::document::{DocumentCell, SettingsDocument};
use crate::vault::Vault;

thread_local! {
    /// The settings, once read; owned by no component.
    static SETTINGS: DocumentCell<VoiceSettings> = DocumentCell::default();
}

/// The settings' document.
static DOCUMENT: SettingsDocument<VoiceSettings> = SettingsDocument {
    key: "voice",
    channel: "hearth-voice",
    cell: &SETTINGS,
    repair: VoiceSettings::repaired,
};

/// The vault context of the ElevenLabs key.
pub const ELEVENLABS_KEY: &str = "local:voice:elevenlabs:api-key";

/// The settings, once read (`None` until then); reading it in a view tracks it.
pub fn value() -> ArcRwSignal<Option<VoiceSettings>> {
    DOCUMENT.value()
}

/// The settings, read the first time.
pub async fn settings() -> Result<VoiceSettings, String> {
    DOCUMENT
        .ensure_loaded::<()>()
        .await
        .map_err(|error| format!("{error:?}"))
}

/// Changes the settings (stored, then shown, then told to other tabs).
pub async fn change(edit: impl FnOnce(&mut VoiceSettings)) -> Result<(), String> {
    DOCUMENT
        .change::<(), ()>(move |settings| {
            edit(settings);
            *settings = settings.clone().repaired();
            Ok(())
        })
        .await
        .map_err(|error| format!("{error:?}"))
}

async fn vault() -> Result<Vault, String> {
    let db = Db::open().await.map_err(|e| e.to_string())?;
    Vault::open(db).await.map_err(|e| e.to_string())
}

/// Seals the ElevenLabs key in the vault (a blank key forgets it).
pub async fn save_elevenlabs_key(key: &str) -> Result<(), String> {
    let vault = vault().await?;
    let key = key.trim();
    let saved = if key.is_empty() {
        vault.remove(ELEVENLABS_KEY).await
    } else {
        vault.store(ELEVENLABS_KEY, key).await
    };
    saved.map_err(|e| e.to_string())
}

/// The ElevenLabs key, if one is saved.
pub async fn elevenlabs_key() -> Result<Option<String>, String> {
    vault()
        .await?
        .load(ELEVENLABS_KEY)
        .await
        .map_err(|e| e.to_string())
}

/// The ElevenLabs key as shown to the user (masked), if one is saved.
pub async fn masked_elevenlabs_key() -> Option<String> {
    elevenlabs_key()
        .await
        .ok()
        .flatten()
        .map(|key| crate::vault::mask(&key))
}
