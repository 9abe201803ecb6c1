//! Opening streamed `fetch` requests ([`open`]) and reading answers with a size cap. A
//! body from outside (a provider's model list, an edge answer, an error page) is read
//! from its `ReadableStream` chunk by chunk, and the read stops, cancelling the stream,
//! as soon as it passes its cap: a huge or endless answer never sits whole in memory
//! before being refused.

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStreamDefaultReader, Response};

/// The most bytes of an error answer read (the rest is cut off, not refused).
pub const MAX_ERROR_BYTES: usize = 64 * 1024;

/// Why a request got no response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unanswered {
    /// Its signal was aborted.
    Aborted,
    /// The network failed, or the browser refused (CORS).
    Failed,
}

/// Sends `init` to `url` under `signal`, without a referrer: the response (whatever its
/// status), or why none came. The one opening of a model stream, direct, relayed or
/// resumed.
pub async fn open(
    url: &str,
    init: &web_sys::RequestInit,
    signal: &web_sys::AbortSignal,
) -> Result<Response, Unanswered> {
    init.set_signal(Some(signal));
    init.set_referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
    match JsFuture::from(leptos::prelude::window().fetch_with_str_and_init(url, init)).await {
        Ok(response) => response.dyn_into().map_err(|_| Unanswered::Failed),
        Err(_) if signal.aborted() => Err(Unanswered::Aborted),
        Err(_) => Err(Unanswered::Failed),
    }
}

/// Why a body was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyError {
    /// It is larger than the cap (the read stopped there).
    TooLarge {
        /// The cap, in bytes.
        max: usize,
    },
    /// There was none, or the connection broke while reading it.
    Broken,
}

/// What [`BodyStream::next_within`] found.
pub enum Next {
    /// Bytes arrived.
    Bytes(Vec<u8>),
    /// The body ended.
    End,
    /// Nothing arrived in time; the read stays pending for the next call.
    Quiet,
}

/// A response body read chunk by chunk, each read bounded in time: the one primitive
/// under every body read of the app (the capped reads here, the chat's stream reader).
pub struct BodyStream {
    reader: ReadableStreamDefaultReader,
    /// A read that has not answered yet (a quiet period left it pending).
    pending: std::cell::RefCell<Option<JsFuture>>,
}

impl BodyStream {
    /// `response`'s body; `None` when it has none.
    pub fn of(response: &Response) -> Option<Self> {
        let reader = response
            .body()?
            .get_reader()
            .dyn_into::<ReadableStreamDefaultReader>()
            .ok()?;
        Some(Self {
            reader,
            pending: std::cell::RefCell::new(None),
        })
    }

    /// The next bytes, waiting at most `ms` milliseconds; `Err` when the connection broke
    /// or the request was aborted. A quiet period loses nothing: the read stays pending.
    pub async fn next_within(&self, ms: i32) -> Result<Next, BodyError> {
        let read = self
            .pending
            .borrow_mut()
            .take()
            .unwrap_or_else(|| JsFuture::from(self.reader.read()));
        let timer = gloo_timers::future::TimeoutFuture::new(ms.max(0) as u32);
        let result = match futures::future::select(read, timer).await {
            futures::future::Either::Left((result, _)) => result.map_err(|_| BodyError::Broken)?,
            futures::future::Either::Right(((), read)) => {
                *self.pending.borrow_mut() = Some(read);
                return Ok(Next::Quiet);
            }
        };
        let done = Reflect::get(&result, &JsValue::from_str("done"))
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(Next::End);
        }
        let value =
            Reflect::get(&result, &JsValue::from_str("value")).map_err(|_| BodyError::Broken)?;
        Ok(Next::Bytes(Uint8Array::new(&value).to_vec()))
    }

    /// Stops reading (the connection is let go).
    pub fn cancel(&self) {
        // A body the run's abort already broke rejects its cancel with that abort: the
        // rejection is taken here, never left unhandled on the page.
        let cancelled = JsFuture::from(self.reader.cancel());
        wasm_bindgen_futures::spawn_local(async move {
            let _ = cancelled.await;
        });
    }
}

/// How long a whole-body read waits for the next chunk before it gives up, in ms: a body
/// from outside that stops arriving must not hold its caller forever.
const READ_STEP_MS: i32 = 60_000;

/// Reads `response`'s body, at most `max` bytes. With `cut`, a longer body is cut at `max`
/// and returned; without, it is refused with [`BodyError::TooLarge`]. Either way the
/// stream is cancelled at the cap.
async fn read(response: &Response, max: usize, cut: bool) -> Result<Vec<u8>, BodyError> {
    let Some(stream) = BodyStream::of(response) else {
        // A body-less answer (204, HEAD) reads as empty.
        return Ok(Vec::new());
    };
    let mut body = Vec::new();
    loop {
        match stream.next_within(READ_STEP_MS).await? {
            // Silent for a whole step: the body is given up, like a broken one.
            Next::Quiet => {
                stream.cancel();
                return Err(BodyError::Broken);
            }
            Next::Bytes(bytes) => {
                body.extend_from_slice(&bytes);
                if body.len() > max {
                    stream.cancel();
                    if cut {
                        body.truncate(max);
                        return Ok(body);
                    }
                    return Err(BodyError::TooLarge { max });
                }
            }
            Next::End => return Ok(body),
        }
    }
}

/// `response`'s whole body, refused past `max` bytes.
pub async fn read_capped(response: &Response, max: usize) -> Result<Vec<u8>, BodyError> {
    read(response, max, false).await
}

/// `response`'s whole body as text (invalid UTF-8 replaced), refused past `max` bytes.
pub async fn read_capped_text(response: &Response, max: usize) -> Result<String, BodyError> {
    let bytes = read_capped(response, max).await?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The start of an error answer's body as text: at most [`MAX_ERROR_BYTES`] (cut on a
/// character boundary), empty when it cannot be read.
pub async fn read_error_text(response: &Response) -> String {
    let bytes = read(response, MAX_ERROR_BYTES, true)
        .await
        .unwrap_or_default();
    cut_text(&bytes)
}

/// `bytes` as text, a character the cap cut in two at the end dropped rather than shown
/// as a replacement mark (invalid UTF-8 elsewhere is replaced).
fn cut_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(error) if error.error_len().is_none() => {
            String::from_utf8_lossy(&bytes[..error.valid_up_to()]).into_owned()
        }
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_body_ends_on_a_character_boundary() {
        let text = "erreur : déjà vu 中文";
        let bytes = text.as_bytes();
        for end in 0..=bytes.len() {
            let cut = cut_text(&bytes[..end]);
            assert!(text.starts_with(&cut), "{end}: {cut:?}");
            assert!(end - cut.len() < 4, "{end}: at most a split character goes");
        }
        assert_eq!(cut_text(b"ok \xff here"), "ok \u{fffd} here");
    }
}
