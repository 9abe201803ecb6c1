//! The operator's voice settings: where ElevenLabs' API answers (its own by default; a
//! test or a proxy may point elsewhere).

use clap::Args;
use hearth_core::voice::ELEVENLABS_BASE;

use crate::operator_url::check_operator_base_url;

/// `HEARTH_ELEVENLABS_BASE_URL`.
#[derive(Clone, Debug, Default, Args)]
pub struct VoiceSettings {
    /// ElevenLabs' API base.
    #[arg(long = "elevenlabs-base-url", env = "HEARTH_ELEVENLABS_BASE_URL")]
    pub elevenlabs_base_url: Option<String>,
}

impl VoiceSettings {
    /// ElevenLabs' API base, as set or its own.
    pub fn elevenlabs_base(&self) -> String {
        self.elevenlabs_base_url
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .unwrap_or(ELEVENLABS_BASE)
            .trim_end_matches('/')
            .to_string()
    }

    /// Why the settings cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        check_operator_base_url(&self.elevenlabs_base())
    }
}
