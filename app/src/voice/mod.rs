//! Voice in the app: the user's voice settings (one settings document, `voice`, read the
//! first time something needs it), the ElevenLabs key (sealed in the vault under
//! `local:voice:elevenlabs:api-key`), reading a reply aloud ([`player`]): with the
//! browser's own speech, or through the edge (`POST /api/voice/speech`) with one of the
//! user's OpenAI-compatible providers or ElevenLabs; and listening for the composer
//! ([`listen`]): the browser's recognition, or a recording sent to
//! `POST /api/voice/transcriptions`.

pub mod listen;
pub mod player;

use hearth_core::voice::settings::{DictationChoice, VoiceSettings};
use leptos::prelude::*;

use hearth_core::voice::VoiceService;

use crate::edge::EdgeError;
use crate::envelope::Sealer;
use crate::i18n::{I18n, Key};
use crate::providers::Providers;
use crate::storage::document::{DocumentCell, SettingsDocument};

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

/// The local storage entry that says dictation is set up in this browser, so the
/// composer's microphone reads no settings document until it is.
pub const DICTATION_KEY: &str = "hearth.dictation";

/// Whether dictation is set up in this browser (without reading the settings).
pub fn dictation_here() -> bool {
    crate::browser::local_storage_get(DICTATION_KEY).is_some()
}

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
    let dictates = DOCUMENT
        .change::<bool, ()>(move |settings| {
            edit(settings);
            *settings = settings.clone().repaired();
            Ok(settings.dictation != DictationChoice::Off)
        })
        .await
        .map_err(|error| format!("{error:?}"))?;
    // Other tabs' composers hear this through the `storage` event.
    if dictates {
        crate::browser::local_storage_set(DICTATION_KEY, "1");
    } else {
        crate::browser::local_storage_remove(DICTATION_KEY);
    }
    Ok(())
}

/// Seals the ElevenLabs key in the vault (a blank key forgets it).
pub async fn save_elevenlabs_key(key: &str) -> Result<(), String> {
    crate::vault::save_service_key(ELEVENLABS_KEY, key).await
}

/// The ElevenLabs key, if one is saved.
pub async fn elevenlabs_key() -> Result<Option<String>, String> {
    crate::vault::service_key(ELEVENLABS_KEY).await
}

/// The ElevenLabs key as shown to the user (masked), if one is saved.
pub async fn masked_elevenlabs_key() -> Option<String> {
    crate::vault::masked_service_key(ELEVENLABS_KEY).await
}

/// Why reading aloud or listening failed, said in the user's language.
pub enum Failure {
    /// The browser has no speech engine (or no recognition).
    NoSpeech,
    /// The provider chosen is gone.
    NoProvider,
    /// No ElevenLabs key is saved.
    NoKey,
    /// Sealing or reading a key failed.
    Seal(String),
    /// The edge answered with a failure.
    Edge(EdgeError),
    /// The audio could not be played.
    Play,
    /// No microphone, or the user refused it.
    NoMicrophone,
    /// The voice settings could not be read.
    Settings(String),
}

impl crate::envelope::EdgeKeyRefusal for Failure {
    fn edge_key_refused(&self) -> bool {
        matches!(self, Self::Edge(error) if error.edge_key_refused())
    }
}

/// A service through the edge, as the settings name it (its key not yet sealed).
#[derive(Clone)]
pub enum Chosen {
    /// One of the user's providers.
    Provider {
        /// Its id.
        provider_id: String,
        /// The model.
        model: String,
        /// The voice, for speech.
        voice: Option<String>,
    },
    /// ElevenLabs.
    ElevenLabs {
        /// The voice, for speech.
        voice_id: Option<String>,
        /// The model ("" for the service's default).
        model: String,
    },
}

/// Whether `chosen` can be asked now: its provider still there, or an ElevenLabs key
/// saved (said before anything is recorded or fetched).
pub async fn ready(chosen: &Chosen, providers: Providers) -> Result<(), Failure> {
    match chosen {
        Chosen::Provider { provider_id, .. } => providers
            .list
            .with_untracked(|list| list.iter().any(|p| &p.id == provider_id))
            .then_some(())
            .ok_or(Failure::NoProvider),
        Chosen::ElevenLabs { .. } => elevenlabs_key()
            .await
            .map_err(Failure::Seal)?
            .map(|_| ())
            .ok_or(Failure::NoKey),
    }
}

/// `chosen` as the edge takes it, its key sealed by `sealer`.
async fn sealed(
    chosen: &Chosen,
    providers: Providers,
    sealer: &Sealer,
) -> Result<VoiceService, Failure> {
    let seal_failed = |e: crate::envelope::SealError| Failure::Seal(e.to_string());
    Ok(match chosen {
        Chosen::Provider {
            provider_id,
            model,
            voice,
        } => {
            let provider = providers
                .list
                .with_untracked(|list| list.iter().find(|p| &p.id == provider_id).cloned())
                .ok_or(Failure::NoProvider)?;
            let key = providers
                .api_key(provider_id)
                .await
                .map_err(|e| Failure::Seal(e.to_string()))?;
            VoiceService::Provider {
                provider: sealer
                    .relay_provider(&provider, key.as_deref())
                    .await
                    .map_err(seal_failed)?,
                model: model.clone(),
                voice: voice.clone().filter(|v| !v.is_empty()),
            }
        }
        Chosen::ElevenLabs { voice_id, model } => {
            let key = elevenlabs_key()
                .await
                .map_err(Failure::Seal)?
                .ok_or(Failure::NoKey)?;
            VoiceService::ElevenLabs {
                api_key: sealer
                    .seal(&hearth_core::voice::elevenlabs_key_context(), &key)
                    .await
                    .map_err(seal_failed)?,
                voice_id: voice_id.clone(),
                model: Some(model.clone()).filter(|m| !m.is_empty()),
            }
        }
    })
}

/// One call to the edge with `chosen`'s service, its key sealed for it: sealed again
/// once when the edge's key changed (`crate::envelope::with_sealed`).
pub async fn through_edge<T>(
    chosen: &Chosen,
    providers: Providers,
    call: impl AsyncFn(VoiceService) -> Result<T, EdgeError>,
) -> Result<T, Failure> {
    crate::envelope::with_sealed(async |sealer| {
        let service = sealed(chosen, providers, &sealer).await?;
        call(service).await.map_err(Failure::Edge)
    })
    .await
}

impl Failure {
    /// The sentence for the user.
    pub fn text(&self, i18n: &I18n) -> String {
        match self {
            Self::NoSpeech => i18n.t(Key::VoiceNoBrowserSpeech),
            Self::NoProvider => i18n.t(Key::VoiceNoProvider),
            Self::NoKey => i18n.t(Key::VoiceNoKey),
            Self::Seal(reason) => i18n.t_with(Key::VoiceFailed, &[("reason", reason)]),
            Self::Edge(error) => i18n.t_with(
                Key::VoiceFailed,
                &[("reason", &crate::i18n::edge_errors::describe(i18n, error))],
            ),
            Self::Play => i18n.t_with(
                Key::VoiceFailed,
                &[("reason", &i18n.t(Key::VoiceCannotPlay))],
            ),
            Self::NoMicrophone => i18n.t(Key::DictationNoMicrophone),
            Self::Settings(reason) => i18n.t_with(Key::VoiceSaveFailed, &[("reason", reason)]),
        }
    }
}
