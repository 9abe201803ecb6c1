//! The composer's microphone, in the search switch's lazily loaded chunk: shown only
//! when dictation is set up in this browser (`crate::voice::DICTATION_KEY`, a local
//! storage entry other tabs hear of, or the settings once read), so the first screen
//! reads no settings for it. Pressed, it listens — with the browser's own speech
//! recognition, or by recording and sending the recording to the edge
//! (`POST /api/voice/transcriptions`) — and pressed again it stops; what was heard is
//! added to the message being written (never while an input method is composing: the
//! text is set through the composer's own signal, as typing would).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::ui::icon::{Icon, icon};
use crate::ui::toast::{ToastKind, use_toasts};
use crate::voice::listen::{Listening, Stage};

/// The microphone, adding what it hears to `text` (mounted with the search switch, in
/// its chunk: `super::search_switch::switch`).
#[component]
pub fn Microphone(text: RwSignal<String>) -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let providers = crate::providers::use_providers();
    let flagged = RwSignal::new(crate::voice::dictation_here());
    // Lives as long as the button: dictation set up in another tab shows it here.
    let listener = gloo_events::EventListener::new(&window(), "storage", move |_| {
        let _ = flagged.try_set(crate::voice::dictation_here());
    });
    let listener = send_wrapper::SendWrapper::new(listener);
    on_cleanup(move || drop(listener));
    // Once the settings are read (in this tab: Settings › Voice), they decide.
    let settings = crate::voice::value();
    let set_up = Memo::new(move |_| {
        settings.with(|s| {
            s.as_ref().map_or_else(
                || flagged.get(),
                |s| s.dictation != hearth_core::voice::settings::DictationChoice::Off,
            )
        })
    });
    // Its English sentences come with the catalogue, fetched only once it shows.
    let worded = RwSignal::new(crate::i18n::later_english_here());
    Effect::new(move |asked: Option<bool>| {
        let asked = asked.unwrap_or(false);
        if asked || !set_up.get() || worded.get_untracked() {
            return asked;
        }
        spawn_local(async move {
            crate::i18n::load_later_english().await;
            let _ = worded.try_set(true);
        });
        true
    });
    let stage = RwSignal::new(Stage::Idle);
    let session = StoredValue::new_local(None::<Listening>);
    let toggle = move |_| match stage.get_untracked() {
        Stage::Idle => {
            stage.set(Stage::Listening);
            spawn_local(async move {
                match crate::voice::listen::start(providers).await {
                    Ok(listening) => {
                        if stage.try_get_untracked() == Some(Stage::Listening) {
                            session.set_value(Some(listening));
                        } else {
                            listening.cancel();
                        }
                    }
                    Err(failure) => {
                        let _ = stage.try_set(Stage::Idle);
                        toasts.show(ToastKind::Error, failure.text(&i18n));
                    }
                }
            });
        }
        Stage::Listening => {
            stage.set(Stage::Transcribing);
            let Some(listening) = session.try_update_value(Option::take).flatten() else {
                stage.set(Stage::Idle);
                return;
            };
            spawn_local(async move {
                let heard = listening.finish().await;
                let _ = stage.try_set(Stage::Idle);
                match heard {
                    Ok(words) if !words.trim().is_empty() => {
                        let _ = text.try_update(|t| {
                            if !t.is_empty() && !t.ends_with(char::is_whitespace) {
                                t.push(' ');
                            }
                            t.push_str(words.trim());
                        });
                        crate::browser::focus_by_id("composer-input");
                    }
                    Ok(_) => toasts.show(ToastKind::Info, i18n.t(Key::DictationNothing)),
                    Err(failure) => toasts.show(ToastKind::Error, failure.text(&i18n)),
                }
            });
        }
        Stage::Transcribing => {}
    };
    on_cleanup(move || {
        if let Some(listening) = session.try_update_value(Option::take).flatten() {
            listening.cancel();
        }
    });
    let label = move || {
        i18n.t(match stage.get() {
            Stage::Idle => Key::DictationStart,
            Stage::Listening => Key::DictationStop,
            Stage::Transcribing => Key::DictationTranscribing,
        })
    };
    view! {
        <Show when=move || set_up.get() && worded.get()>
            <button
                type="button"
                id="composer-dictation"
                class="icon-button composer__mic"
                class:composer__mic--on=move || stage.get() != Stage::Idle
                aria-pressed=move || (stage.get() == Stage::Listening).to_string()
                aria-busy=move || (stage.get() == Stage::Transcribing).to_string()
                data-stage=move || stage.get().name()
                aria-label=label
                title=label
                on:click=toggle
            >
                {icon(Icon::Mic)}
            </button>
            <span class="visually-hidden" role="status">
                {move || (stage.get() == Stage::Listening).then(|| tr(Key::DictationListening)())}
            </span>
        </Show>
    }
}
