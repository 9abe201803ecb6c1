//! Settings › Voice: who reads replies aloud (the browser's own speech, one of the
//! user's OpenAI-compatible providers with a speech model and a voice, or ElevenLabs
//! with a voice id and its key sealed in the vault), and who listens when the user
//! dictates (off, the browser's recognition, a provider's or ElevenLabs' transcription). Save waits for the stored settings,
//! and a slow read never undoes a field the user already changed.

use hearth_core::provider::Protocol;
use hearth_core::voice::settings::{
    DEFAULT_SPEECH_MODEL, DEFAULT_TRANSCRIPTION_MODEL, DictationChoice, SpeechChoice, VoiceSettings,
};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::providers::use_providers;
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};

/// The form's fields, as typed.
#[derive(Clone, Default)]
struct Form {
    /// `browser`, `elevenlabs`, or `provider:<id>`.
    who: String,
    model: String,
    voice: String,
    voice_id: String,
    eleven_model: String,
    /// `off`, `browser`, `elevenlabs`, or `provider:<id>`.
    listener: String,
    listen_model: String,
}

impl Form {
    fn of(settings: &VoiceSettings) -> Self {
        let (listener, listen_model) = match &settings.dictation {
            DictationChoice::Off => ("off".to_string(), String::new()),
            DictationChoice::Browser => ("browser".to_string(), String::new()),
            DictationChoice::Provider { provider_id, model } => {
                (format!("provider:{provider_id}"), model.clone())
            }
            DictationChoice::ElevenLabs { model } => ("elevenlabs".to_string(), model.clone()),
        };
        let speech = Self::of_speech(settings);
        Self {
            listener,
            listen_model,
            ..speech
        }
    }

    fn of_speech(settings: &VoiceSettings) -> Self {
        match &settings.speech {
            SpeechChoice::Browser => Self {
                who: "browser".into(),
                ..Self::default()
            },
            SpeechChoice::Provider {
                provider_id,
                model,
                voice,
            } => Self {
                who: format!("provider:{provider_id}"),
                model: model.clone(),
                voice: voice.clone(),
                ..Self::default()
            },
            SpeechChoice::ElevenLabs { voice_id, model } => Self {
                who: "elevenlabs".into(),
                voice_id: voice_id.clone(),
                eleven_model: model.clone(),
                ..Self::default()
            },
        }
    }

    fn dictation(&self) -> DictationChoice {
        match self.listener.as_str() {
            "browser" => DictationChoice::Browser,
            "elevenlabs" => DictationChoice::ElevenLabs {
                model: self.listen_model.clone(),
            },
            who => match who.strip_prefix("provider:") {
                Some(id) => DictationChoice::Provider {
                    provider_id: id.to_string(),
                    model: self.listen_model.clone(),
                },
                None => DictationChoice::Off,
            },
        }
    }

    fn choice(&self) -> SpeechChoice {
        match self.who.as_str() {
            "elevenlabs" => SpeechChoice::ElevenLabs {
                voice_id: self.voice_id.clone(),
                model: self.eleven_model.clone(),
            },
            who => match who.strip_prefix("provider:") {
                Some(id) => SpeechChoice::Provider {
                    provider_id: id.to_string(),
                    model: self.model.clone(),
                    voice: self.voice.clone(),
                },
                None => SpeechChoice::Browser,
            },
        }
    }
}

/// The Voice tab.
#[component]
pub fn VoicePanel() -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let providers = use_providers();
    let form = RwSignal::new(Form {
        who: "browser".into(),
        listener: "off".into(),
        ..Form::default()
    });
    let key = RwSignal::new(String::new());
    let saved_key = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let loaded = RwSignal::new(false);
    let touched = StoredValue::new(false);
    let saving = RwSignal::new(false);
    let show_key = move || {
        spawn_local(async move {
            let masked = crate::voice::masked_elevenlabs_key().await;
            let _ = saved_key.try_set(masked);
        });
    };
    spawn_local(async move {
        match crate::voice::settings().await {
            Ok(stored) => {
                if !touched.get_value() {
                    let _ = form.try_set(Form::of(&stored));
                }
                let _ = loaded.try_set(true);
                show_key();
            }
            Err(reason) => {
                let _ = error.try_set(Some(
                    i18n.t_with(Key::VoiceSaveFailed, &[("reason", &reason)]),
                ));
            }
        }
    });
    // The providers that speak OpenAI's audio API.
    let speakers = move || {
        providers.list.with(|list| {
            list.iter()
                .filter(|p| p.enabled)
                .filter(|p| {
                    matches!(
                        p.endpoint().protocol,
                        Protocol::OpenAiChat | Protocol::OpenAiResponses
                    )
                })
                .map(|p| (p.id.clone(), p.name.clone()))
                .collect::<Vec<_>>()
        })
    };
    let who = Signal::derive(move || form.with(|f| f.who.clone()));
    let listener = Signal::derive(move || form.with(|f| f.listener.clone()));
    let field = move |pick: fn(&Form) -> String| Signal::derive(move || form.with(pick));
    let set = move |put: fn(&mut Form, String)| {
        Callback::new(move |v: String| {
            touched.set_value(true);
            form.update(|f| put(f, v));
            error.set(None);
        })
    };
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() || !loaded.get_untracked() {
            return;
        }
        let choice = form.with_untracked(Form::choice);
        let dictation = form.with_untracked(Form::dictation);
        if let SpeechChoice::ElevenLabs { voice_id, .. } = &choice
            && voice_id.trim().is_empty()
        {
            error.set(Some(i18n.t(Key::VoiceNeedsVoiceId)));
            crate::browser::focus_by_id("voice-eleven-voice");
            return;
        }
        let typed_key = key.get_untracked();
        saving.set(true);
        spawn_local(async move {
            let mut outcome = crate::voice::change(move |s| {
                s.speech = choice;
                s.dictation = dictation;
            })
            .await;
            if outcome.is_ok() && !typed_key.trim().is_empty() {
                outcome = crate::voice::save_elevenlabs_key(&typed_key).await;
            }
            saving.set(false);
            match outcome {
                Ok(()) => {
                    key.set(String::new());
                    toasts.show(ToastKind::Info, i18n.t(Key::VoiceSaved));
                }
                Err(reason) => {
                    error.set(Some(
                        i18n.t_with(Key::VoiceSaveFailed, &[("reason", &reason)]),
                    ));
                }
            }
            show_key();
        });
    };
    let forget = move |_| {
        spawn_local(async move {
            if let Err(reason) = crate::voice::save_elevenlabs_key("").await {
                toasts.show(
                    ToastKind::Error,
                    i18n.t_with(Key::VoiceSaveFailed, &[("reason", &reason)]),
                );
            }
            show_key();
        });
    };

    view! {
        <form class="settings-section voice-panel" id="voice-panel" on:submit=submit novalidate
            data-loaded=move || loaded.get().to_string()>
            <p class="field__hint">{tr(Key::VoiceIntro)}</p>
            <Field id="voice-speech" label=tr(Key::VoiceSpeech) control=Control::Select
                value=who on_input=set(|f, v| f.who = v)>
                <option value="browser" selected=move || who.get() == "browser">{tr(Key::VoiceBrowser)}</option>
                {move || speakers().into_iter().map(|(id, name)| {
                    let value = format!("provider:{id}");
                    let chosen = value.clone();
                    view! { <option value=value selected=move || who.get() == chosen>{name}</option> }
                }).collect_view()}
                <option value="elevenlabs" selected=move || who.get() == "elevenlabs">"ElevenLabs"</option>
            </Field>
            <Show when=move || who.with(|w| w.starts_with("provider:"))>
                <Field id="voice-model" label=tr(Key::VoiceModel) value=field(|f| f.model.clone())
                    on_input=set(|f, v| f.model = v)
                    placeholder=Signal::derive(|| DEFAULT_SPEECH_MODEL.to_string()) />
                <Field id="voice-voice" label=tr(Key::VoiceVoice) value=field(|f| f.voice.clone())
                    on_input=set(|f, v| f.voice = v)
                    placeholder=Signal::derive(|| hearth_core::voice::OPENAI_VOICE.to_string()) />
            </Show>
            <Show when=move || who.get() == "elevenlabs">
                <Field id="voice-eleven-voice" label=tr(Key::VoiceVoiceId) value=field(|f| f.voice_id.clone())
                    on_input=set(|f, v| f.voice_id = v) />
                <Field id="voice-eleven-model" label=tr(Key::VoiceModel) value=field(|f| f.eleven_model.clone())
                    on_input=set(|f, v| f.eleven_model = v)
                    placeholder=Signal::derive(|| hearth_core::voice::ELEVENLABS_SPEECH_MODEL.to_string()) />
                <Field id="voice-eleven-key" label=tr(Key::ProviderApiKey) control=Control::Password
                    value=key on_input=move |v| key.set(v)
                    hint=move || match saved_key.get() {
                        Some(masked) => i18n.t_with(Key::WebSearchKeySaved, &[("key", &masked)]),
                        None => i18n.t(Key::ProviderNoKey),
                    } />
                <Show when=move || saved_key.with(Option::is_some)>
                    <button type="button" class="button button--secondary" id="voice-forget-key" on:click=forget>
                        {tr(Key::WebSearchForgetKey)}
                    </button>
                </Show>
            </Show>
            <Field id="voice-dictation" label=tr(Key::VoiceDictation) control=Control::Select
                value=listener on_input=set(|f, v| f.listener = v) hint=tr(Key::VoiceDictationHint)>
                <option value="off" selected=move || listener.get() == "off">{tr(Key::VoiceDictationOff)}</option>
                <option value="browser" selected=move || listener.get() == "browser">{tr(Key::VoiceDictationBrowser)}</option>
                {move || speakers().into_iter().map(|(id, name)| {
                    let value = format!("provider:{id}");
                    let chosen = value.clone();
                    view! { <option value=value selected=move || listener.get() == chosen>{name}</option> }
                }).collect_view()}
                <option value="elevenlabs" selected=move || listener.get() == "elevenlabs">"ElevenLabs"</option>
            </Field>
            <Show when=move || listener.with(|l| l.starts_with("provider:") || l == "elevenlabs")>
                <Field id="voice-dictation-model" label=tr(Key::VoiceModel)
                    value=field(|f| f.listen_model.clone()) on_input=set(|f, v| f.listen_model = v)
                    placeholder=Signal::derive(move || {
                        if listener.with(|l| l == "elevenlabs") {
                            hearth_core::voice::ELEVENLABS_TRANSCRIPTION_MODEL.to_string()
                        } else {
                            DEFAULT_TRANSCRIPTION_MODEL.to_string()
                        }
                    }) />
            </Show>
            <p class="field__error" role="alert" id="voice-error">{move || error.get()}</p>
            <div class="provider-form__actions">
                <button type="submit" class="button button--primary" id="voice-save"
                    aria-busy=move || saving.get().to_string() disabled=move || saving.get() || !loaded.get()>
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}
