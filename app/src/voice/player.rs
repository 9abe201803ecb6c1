//! Reading one reply aloud at a time. The text is cut into pieces the services take
//! (`hearth_core::voice::settings::speech_chunks`) and read one after another: by the
//! browser's `speechSynthesis` (queued at once), or fetched from the edge piece by
//! piece and played in an `<audio>` element. [`speaking`] says which reply is being read
//! (its "Stop reading" button follows it); [`stop`] ends it at once, and starting
//! another reply stops the first.

use std::cell::RefCell;

use futures::channel::oneshot;
use hearth_core::voice::settings::{SpeechChoice, speech_chunks};
use hearth_core::voice::{MAX_SPEECH_CHARS, SpeechRequest};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::{Chosen, Failure};
use crate::i18n::I18n;
use crate::providers::Providers;
use crate::ui::toast::{ToastKind, Toasts};

/// What is being read now.
struct Reading {
    controller: web_sys::AbortController,
    audio: Option<web_sys::HtmlAudioElement>,
}

thread_local! {
    static READING: RefCell<Option<Reading>> = const { RefCell::new(None) };
    static SPEAKING: ArcRwSignal<Option<String>> = ArcRwSignal::new(None);
}

/// The reply being read aloud (`None`: none); reading it in a view tracks it.
pub fn speaking() -> ArcRwSignal<Option<String>> {
    SPEAKING.with(Clone::clone)
}

/// Stops reading, at once.
pub fn stop() {
    if let Some(reading) = READING.with(|r| r.borrow_mut().take()) {
        reading.controller.abort();
        if let Some(audio) = reading.audio {
            let _ = audio.pause();
        }
    }
    if let Ok(Some(synthesis)) = window().speech_synthesis().map(Some) {
        synthesis.cancel();
    }
    speaking().set(None);
}

/// Reads reply `message_id`'s `text` aloud with the user's settings; a failure is said in
/// a toast.
pub fn read_aloud(
    message_id: String,
    text: String,
    providers: Providers,
    i18n: I18n,
    toasts: Toasts,
) {
    stop();
    let controller = match web_sys::AbortController::new() {
        Ok(controller) => controller,
        Err(_) => return,
    };
    READING.with(|r| {
        *r.borrow_mut() = Some(Reading {
            controller: controller.clone(),
            audio: None,
        });
    });
    speaking().set(Some(message_id.clone()));
    let signal = controller.signal();
    leptos::task::spawn_local(async move {
        let outcome = read(&text, providers, &signal).await;
        // Only the reading still under way ends itself (a newer one may have started).
        if speaking().get_untracked().as_deref() == Some(message_id.as_str()) && !signal.aborted() {
            if let Err(failure) = &outcome {
                // Its sentence is a later one: fetched before it is shown.
                crate::i18n::load_later_english().await;
                toasts.show(ToastKind::Error, failure.text(&i18n));
            }
            READING.with(|r| r.borrow_mut().take());
            speaking().set(None);
        }
    });
}

async fn read(
    text: &str,
    providers: Providers,
    signal: &web_sys::AbortSignal,
) -> Result<(), Failure> {
    let settings = super::settings().await.map_err(Failure::Settings)?;
    let chosen = match settings.speech {
        SpeechChoice::Browser => return read_in_browser(text, signal).await,
        SpeechChoice::Provider {
            provider_id,
            model,
            voice,
        } => Chosen::Provider {
            provider_id,
            model,
            voice: Some(voice),
        },
        SpeechChoice::ElevenLabs { voice_id, model } => Chosen::ElevenLabs {
            voice_id: Some(voice_id),
            model,
        },
    };
    super::ready(&chosen, providers).await?;
    for piece in speech_chunks(text, MAX_SPEECH_CHARS) {
        if signal.aborted() {
            return Ok(());
        }
        let spoken = super::through_edge(&chosen, providers, async |service| {
            let request = SpeechRequest {
                service,
                text: piece.clone(),
            };
            crate::edge::voice_speech(&request, signal).await
        })
        .await;
        let blob = match spoken {
            Ok(blob) => blob,
            Err(_) if signal.aborted() => return Ok(()),
            Err(failure) => return Err(failure),
        };
        play(&blob, signal).await?;
    }
    Ok(())
}

/// Plays `blob` to its end (or until `signal` aborts).
async fn play(blob: &web_sys::Blob, signal: &web_sys::AbortSignal) -> Result<(), Failure> {
    let url = web_sys::Url::create_object_url_with_blob(blob).map_err(|_| Failure::Play)?;
    let audio = web_sys::HtmlAudioElement::new_with_src(&url).map_err(|_| Failure::Play)?;
    READING.with(|r| {
        if let Some(reading) = r.borrow_mut().as_mut() {
            reading.audio = Some(audio.clone());
        }
    });
    let (done, finished) = oneshot::channel::<bool>();
    let done = std::rc::Rc::new(RefCell::new(Some(done)));
    let on = |ok: bool| {
        let done = done.clone();
        Closure::<dyn FnMut()>::new(move || {
            if let Some(done) = done.borrow_mut().take() {
                let _ = done.send(ok);
            }
        })
    };
    let (ended, failed, aborted) = (on(true), on(false), on(true));
    audio.set_onended(Some(ended.as_ref().unchecked_ref()));
    audio.set_onerror(Some(failed.as_ref().unchecked_ref()));
    signal.set_onabort(Some(aborted.as_ref().unchecked_ref()));
    let started = match audio.play() {
        Ok(promise) => wasm_bindgen_futures::JsFuture::from(promise).await.is_ok(),
        Err(_) => false,
    };
    let ok = started && finished.await.unwrap_or(false);
    signal.set_onabort(None);
    let _ = web_sys::Url::revoke_object_url(&url);
    if ok || signal.aborted() {
        Ok(())
    } else {
        Err(Failure::Play)
    }
}

/// Reads `text` with the browser's own speech, in the page's language.
async fn read_in_browser(text: &str, signal: &web_sys::AbortSignal) -> Result<(), Failure> {
    let synthesis = window().speech_synthesis().map_err(|_| Failure::NoSpeech)?;
    let language = document()
        .document_element()
        .map(|e| e.get_attribute("lang").unwrap_or_default())
        .unwrap_or_default();
    let pieces = speech_chunks(text, MAX_SPEECH_CHARS);
    let (done, finished) = oneshot::channel::<bool>();
    let done = std::rc::Rc::new(RefCell::new(Some(done)));
    let mut handlers = Vec::new();
    let count = pieces.len();
    for (index, piece) in pieces.into_iter().enumerate() {
        let utterance = web_sys::SpeechSynthesisUtterance::new_with_text(&piece)
            .map_err(|_| Failure::NoSpeech)?;
        utterance.set_lang(&language);
        if index + 1 == count {
            let done = done.clone();
            let end = Closure::<dyn FnMut()>::new(move || {
                if let Some(done) = done.borrow_mut().take() {
                    let _ = done.send(true);
                }
            });
            utterance.set_onend(Some(end.as_ref().unchecked_ref()));
            utterance.set_onerror(Some(end.as_ref().unchecked_ref()));
            handlers.push(end);
        }
        synthesis.speak(&utterance);
    }
    if count == 0 {
        return Ok(());
    }
    let stopped = {
        let done = done.clone();
        Closure::<dyn FnMut()>::new(move || {
            if let Some(done) = done.borrow_mut().take() {
                let _ = done.send(true);
            }
        })
    };
    signal.set_onabort(Some(stopped.as_ref().unchecked_ref()));
    let _ = finished.await;
    signal.set_onabort(None);
    drop(handlers);
    Ok(())
}
