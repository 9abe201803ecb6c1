//! Listening for the composer: the browser's own speech recognition (`SpeechRecognition`,
//! or Chromium's `webkitSpeechRecognition`), or a recording (`MediaRecorder` on the
//! microphone) sent to the edge once the user stops, with one of the user's
//! OpenAI-compatible providers or ElevenLabs. One [`Listening`] is one dictation: begun
//! by [`start`], ended by [`Listening::finish`] (what was heard) or
//! [`Listening::cancel`] (nothing kept, the microphone released).

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::oneshot;
use hearth_core::voice::settings::DictationChoice;
use js_sys::{Array, Function, Reflect};
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::{Chosen, Failure};
use crate::providers::Providers;

/// Where the microphone button is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Not listening.
    Idle,
    /// Listening.
    Listening,
    /// The recording is being turned into text.
    Transcribing,
}

impl Stage {
    /// Its name (`data-stage`), for styles and tests.
    pub fn name(self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Listening => "listening",
            Self::Transcribing => "transcribing",
        }
    }
}

/// One dictation under way.
pub enum Listening {
    /// The browser recognises; `heard` collects its final results.
    Browser {
        /// The recognition object.
        recognition: JsValue,
        /// Its final results so far.
        heard: Rc<RefCell<String>>,
        /// Answered once it has ended.
        ended: oneshot::Receiver<()>,
        /// Its event handlers, kept alive with it.
        _handlers: Vec<Closure<dyn FnMut(JsValue)>>,
    },
    /// A recording for `chosen`.
    Recording {
        /// The recorder.
        recorder: web_sys::MediaRecorder,
        /// The microphone's stream, released at the end.
        stream: web_sys::MediaStream,
        /// The audio recorded so far.
        chunks: Rc<RefCell<Vec<web_sys::Blob>>>,
        /// Answered once the recorder has stopped.
        stopped: oneshot::Receiver<()>,
        /// Who turns the recording into text.
        chosen: Chosen,
        /// Where the provider is found, at the end.
        providers: Providers,
        /// Its event handlers, kept alive with it.
        _handlers: Vec<Closure<dyn FnMut(JsValue)>>,
    },
}

/// The page's language tag (`en`, `zh-CN`), as recognition and transcription take it.
fn language() -> String {
    document()
        .document_element()
        .and_then(|e| e.get_attribute("lang"))
        .unwrap_or_default()
}

/// Begins listening with the user's settings.
pub async fn start(providers: Providers) -> Result<Listening, Failure> {
    let settings = super::settings().await.map_err(Failure::Settings)?;
    let chosen = match settings.dictation {
        DictationChoice::Off | DictationChoice::Browser => return recognise(),
        DictationChoice::Provider { provider_id, model } => Chosen::Provider {
            provider_id,
            model,
            voice: None,
        },
        DictationChoice::ElevenLabs { model } => Chosen::ElevenLabs {
            voice_id: None,
            model,
        },
    };
    // Said before recording, not after the user has spoken.
    super::ready(&chosen, providers).await?;
    record(chosen, providers).await
}

/// The browser's recognition, started.
fn recognise() -> Result<Listening, Failure> {
    let window = window();
    let constructor = ["SpeechRecognition", "webkitSpeechRecognition"]
        .into_iter()
        .filter_map(|name| Reflect::get(&window, &JsValue::from_str(name)).ok())
        .find_map(|value| value.dyn_into::<Function>().ok())
        .ok_or(Failure::NoSpeech)?;
    let recognition =
        Reflect::construct(&constructor, &Array::new()).map_err(|_| Failure::NoSpeech)?;
    let set = |name: &str, value: JsValue| {
        let _ = Reflect::set(&recognition, &JsValue::from_str(name), &value);
    };
    set("lang", JsValue::from_str(&language()));
    set("continuous", JsValue::TRUE);
    set("interimResults", JsValue::FALSE);
    let heard = Rc::new(RefCell::new(String::new()));
    let (done, ended) = oneshot::channel();
    let done = Rc::new(RefCell::new(Some(done)));
    let on_result = {
        let heard = heard.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            // Every final result since `resultIndex`: `results[i][0].transcript`.
            let results = Reflect::get(&event, &"results".into()).unwrap_or_default();
            let from = Reflect::get(&event, &"resultIndex".into())
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0) as u32;
            let count = Reflect::get(&results, &"length".into())
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0) as u32;
            for index in from..count {
                let result = Reflect::get_u32(&results, index).unwrap_or_default();
                let best = Reflect::get_u32(&result, 0).unwrap_or_default();
                if let Some(words) = Reflect::get(&best, &"transcript".into())
                    .ok()
                    .and_then(|v| v.as_string())
                {
                    let mut heard = heard.borrow_mut();
                    if !heard.is_empty() {
                        heard.push(' ');
                    }
                    heard.push_str(words.trim());
                }
            }
        })
    };
    let on_end = Closure::<dyn FnMut(JsValue)>::new(move |_| {
        if let Some(done) = done.borrow_mut().take() {
            let _ = done.send(());
        }
    });
    set("onresult", on_result.as_ref().clone());
    set("onend", on_end.as_ref().clone());
    set("onerror", on_end.as_ref().clone());
    call(&recognition, "start").map_err(|_| Failure::NoSpeech)?;
    Ok(Listening::Browser {
        recognition,
        heard,
        ended,
        _handlers: vec![on_result, on_end],
    })
}

fn call(target: &JsValue, method: &str) -> Result<JsValue, JsValue> {
    Reflect::get(target, &JsValue::from_str(method))?
        .dyn_into::<Function>()?
        .call0(target)
}

/// The microphone, recording for `chosen`.
async fn record(chosen: Chosen, providers: Providers) -> Result<Listening, Failure> {
    let devices = window()
        .navigator()
        .media_devices()
        .map_err(|_| Failure::NoMicrophone)?;
    let constraints = web_sys::MediaStreamConstraints::new();
    constraints.set_audio(&JsValue::TRUE);
    let asked = devices
        .get_user_media_with_constraints(&constraints)
        .map_err(|_| Failure::NoMicrophone)?;
    let stream = JsFuture::from(asked)
        .await
        .map_err(|_| Failure::NoMicrophone)?
        .dyn_into::<web_sys::MediaStream>()
        .map_err(|_| Failure::NoMicrophone)?;
    let recorder = web_sys::MediaRecorder::new_with_media_stream(&stream)
        .map_err(|_| Failure::NoMicrophone)?;
    let chunks = Rc::new(RefCell::new(Vec::new()));
    let (done, stopped) = oneshot::channel();
    let done = Rc::new(RefCell::new(Some(done)));
    let on_data = {
        let chunks = chunks.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            if let Ok(event) = event.dyn_into::<web_sys::BlobEvent>()
                && let Some(blob) = event.data()
            {
                chunks.borrow_mut().push(blob);
            }
        })
    };
    let on_stop = Closure::<dyn FnMut(JsValue)>::new(move |_| {
        if let Some(done) = done.borrow_mut().take() {
            let _ = done.send(());
        }
    });
    recorder.set_ondataavailable(Some(on_data.as_ref().unchecked_ref()));
    recorder.set_onstop(Some(on_stop.as_ref().unchecked_ref()));
    recorder.start().map_err(|_| Failure::NoMicrophone)?;
    Ok(Listening::Recording {
        recorder,
        stream,
        chunks,
        stopped,
        chosen,
        providers,
        _handlers: vec![on_data, on_stop],
    })
}

fn release(stream: &web_sys::MediaStream) {
    for track in stream.get_tracks().iter() {
        if let Ok(track) = track.dyn_into::<web_sys::MediaStreamTrack>() {
            track.stop();
        }
    }
}

impl Listening {
    /// Stops listening and answers what was heard.
    pub async fn finish(self) -> Result<String, Failure> {
        match self {
            Self::Browser {
                recognition,
                heard,
                ended,
                _handlers,
            } => {
                let _ = call(&recognition, "stop");
                let _ = ended.await;
                let words = heard.borrow().clone();
                drop(_handlers);
                Ok(words)
            }
            Self::Recording {
                recorder,
                stream,
                chunks,
                stopped,
                chosen,
                providers,
                _handlers,
            } => {
                let _ = recorder.stop();
                let _ = stopped.await;
                release(&stream);
                let parts = Array::new();
                for chunk in chunks.borrow().iter() {
                    parts.push(chunk);
                }
                let options = web_sys::BlobPropertyBag::new();
                options.set_type(&recorder.mime_type());
                let audio = web_sys::Blob::new_with_blob_sequence_and_options(&parts, &options)
                    .map_err(|_| Failure::NoMicrophone)?;
                drop(_handlers);
                let language = language();
                super::through_edge(&chosen, providers, async |service| {
                    crate::edge::voice_transcribe(&audio, &service, &language).await
                })
                .await
                .map(|answer| answer.text)
            }
        }
    }

    /// Stops listening and keeps nothing.
    pub fn cancel(self) {
        match self {
            Self::Browser { recognition, .. } => {
                let _ = call(&recognition, "abort");
            }
            Self::Recording {
                recorder, stream, ..
            } => {
                let _ = recorder.stop();
                release(&stream);
            }
        }
    }
}
