//! The user's voice settings (one settings document, `voice`): who reads replies aloud —
//! the browser's own speech, one of the user's OpenAI-compatible providers (a speech
//! model and a voice), or ElevenLabs (a voice id; the key stays in the vault) — who
//! listens when the user dictates (off, the browser's recognition, or a recording sent
//! to a provider or ElevenLabs), and how a long reply is cut into the pieces read one
//! after another ([`speech_chunks`]).

use serde::{Deserialize, Serialize};

use super::{MAX_ID_CHARS, MAX_SPEECH_CHARS};

/// The speech model asked of a provider when the user names none.
pub const DEFAULT_SPEECH_MODEL: &str = "gpt-4o-mini-tts";

/// Who reads aloud.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SpeechChoice {
    /// The browser's own speech (`speechSynthesis`), in the reply's language.
    #[default]
    Browser,
    /// One of the user's OpenAI-compatible providers, through the edge.
    #[serde(rename_all = "camelCase")]
    Provider {
        /// The provider's id.
        provider_id: String,
        /// Its speech model.
        model: String,
        /// The voice ("" for the service's default).
        voice: String,
    },
    /// ElevenLabs, through the edge.
    #[serde(rename_all = "camelCase")]
    ElevenLabs {
        /// The voice.
        voice_id: String,
        /// The model ("" for the service's default).
        model: String,
    },
}

/// The transcription model asked of a provider when the user names none.
pub const DEFAULT_TRANSCRIPTION_MODEL: &str = "whisper-1";

/// Who turns the user's speech into text in the composer.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum DictationChoice {
    /// No dictation (the composer shows no microphone).
    #[default]
    Off,
    /// The browser's own speech recognition, where it has one.
    Browser,
    /// A recording sent to one of the user's OpenAI-compatible providers.
    #[serde(rename_all = "camelCase")]
    Provider {
        /// The provider's id.
        provider_id: String,
        /// Its transcription model.
        model: String,
    },
    /// A recording sent to ElevenLabs.
    #[serde(rename_all = "camelCase")]
    ElevenLabs {
        /// The model ("" for the service's default).
        model: String,
    },
}

/// The voice settings.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VoiceSettings {
    /// Who reads replies aloud.
    pub speech: SpeechChoice,
    /// Who listens in the composer.
    pub dictation: DictationChoice,
}

fn bounded(text: &str) -> String {
    text.trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_ID_CHARS)
        .collect()
}

impl VoiceSettings {
    /// The settings as they may be kept: ids trimmed and bounded, a provider's model
    /// defaulted.
    pub fn repaired(self) -> Self {
        let speech = match self.speech {
            SpeechChoice::Browser => SpeechChoice::Browser,
            SpeechChoice::Provider {
                provider_id,
                model,
                voice,
            } => {
                let model = bounded(&model);
                SpeechChoice::Provider {
                    provider_id: bounded(&provider_id),
                    model: if model.is_empty() {
                        DEFAULT_SPEECH_MODEL.into()
                    } else {
                        model
                    },
                    voice: bounded(&voice),
                }
            }
            SpeechChoice::ElevenLabs { voice_id, model } => SpeechChoice::ElevenLabs {
                voice_id: bounded(&voice_id),
                model: bounded(&model),
            },
        };
        let dictation = match self.dictation {
            DictationChoice::Provider { provider_id, model } => {
                let model = bounded(&model);
                DictationChoice::Provider {
                    provider_id: bounded(&provider_id),
                    model: if model.is_empty() {
                        DEFAULT_TRANSCRIPTION_MODEL.into()
                    } else {
                        model
                    },
                }
            }
            DictationChoice::ElevenLabs { model } => DictationChoice::ElevenLabs {
                model: bounded(&model),
            },
            other => other,
        };
        Self { speech, dictation }
    }
}

/// `text` in pieces of at most `max` characters (each at most [`MAX_SPEECH_CHARS`]),
/// cut after a paragraph, else a sentence, else a space, so each piece reads naturally;
/// blank pieces are dropped.
pub fn speech_chunks(text: &str, max: usize) -> Vec<String> {
    let max = max.clamp(1, MAX_SPEECH_CHARS);
    let mut chunks = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        if rest.chars().count() <= max {
            chunks.push(rest.to_string());
            break;
        }
        let limit = rest
            .char_indices()
            .nth(max)
            .map_or(rest.len(), |(index, _)| index);
        let window = &rest[..limit];
        let cut = window
            .rfind("\n\n")
            .map(|i| i + 2)
            .or_else(|| {
                window
                    .rfind(['.', '!', '?', '。', '！', '？', '\n'])
                    .map(|i| i + window[i..].chars().next().map_or(1, char::len_utf8))
            })
            .or_else(|| window.rfind(' ').map(|i| i + 1))
            .filter(|&cut| cut > 0)
            .unwrap_or(limit);
        let piece = rest[..cut].trim();
        if !piece.is_empty() {
            chunks.push(piece.to_string());
        }
        rest = rest[cut..].trim_start();
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_read_in_natural_pieces_within_the_bound() {
        let text = "First paragraph. It has two sentences.\n\nSecond one is here! And more?";
        assert_eq!(
            speech_chunks(text, 45),
            [
                "First paragraph. It has two sentences.",
                "Second one is here! And more?"
            ]
        );
        assert_eq!(
            speech_chunks("One. Two. Three.", 10),
            ["One. Two.", "Three."]
        );
        // No boundary: cut at a space, then hard.
        assert_eq!(speech_chunks("aaaa bbbb cccc", 9), ["aaaa", "bbbb cccc"]);
        assert_eq!(speech_chunks("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        // CJK sentences and multi-byte characters are cut on character boundaries.
        assert_eq!(
            speech_chunks("今日は晴れ。明日は雨。", 7),
            ["今日は晴れ。", "明日は雨。"]
        );
        assert!(speech_chunks("   ", 10).is_empty());
        let long = "word ".repeat(5_000);
        assert!(
            speech_chunks(&long, usize::MAX)
                .iter()
                .all(|c| c.chars().count() <= MAX_SPEECH_CHARS)
        );
    }

    #[test]
    fn stored_settings_are_repaired() {
        let stored = VoiceSettings {
            speech: SpeechChoice::Provider {
                provider_id: " p1 ".into(),
                model: "  ".into(),
                voice: format!("nova{}", "x".repeat(300)),
            },
            dictation: DictationChoice::Off,
        };
        let SpeechChoice::Provider {
            provider_id,
            model,
            voice,
        } = stored.repaired().speech
        else {
            panic!("a provider");
        };
        assert_eq!(
            (provider_id.as_str(), model.as_str()),
            ("p1", DEFAULT_SPEECH_MODEL)
        );
        assert_eq!(voice.chars().count(), MAX_ID_CHARS);
        let json = serde_json::to_value(VoiceSettings {
            speech: SpeechChoice::ElevenLabs {
                voice_id: "v".into(),
                model: String::new(),
            },
            dictation: DictationChoice::Provider {
                provider_id: "p".into(),
                model: "m".into(),
            },
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"speech": {"kind": "elevenLabs", "voiceId": "v", "model": ""},
                "dictation": {"kind": "provider", "providerId": "p", "model": "m"}})
        );
        let repaired = VoiceSettings {
            dictation: DictationChoice::Provider {
                provider_id: "p".into(),
                model: " ".into(),
            },
            ..VoiceSettings::default()
        }
        .repaired();
        assert_eq!(
            repaired.dictation,
            DictationChoice::Provider {
                provider_id: "p".into(),
                model: DEFAULT_TRANSCRIPTION_MODEL.into()
            }
        );
        // Settings stored before dictation existed read as dictation off.
        let old: VoiceSettings =
            serde_json::from_str(r#"{"speech": {"kind": "browser"}}"#).unwrap();
        assert_eq!(old.dictation, DictationChoice::Off);
    }
}
