//! A model's answer as the one stream reader (`stream`) reads it: a response body as it
//! comes (a direct call), or a relayed reply that resumes itself.
//!
//! A relayed reply is named (`hearth-relay-id`) and marked by the edge
//! (`hearth_core::api::relay_resume`). When its connection drops before the edge's end
//! block (a proxy cut it, the network went away, the instance died), it is taken up
//! again with `GET /api/chat/relay/{id}` and `Last-Event-ID`, from any instance, a few
//! times with growing pauses; the reader sees one unbroken answer, every byte once. Only
//! a relay the edge no longer knows, or lost with its instance, breaks the read. A relay
//! given up before its end (Stop, a limit) is stopped on the edge too.

use hearth_core::api::relay_resume::{LAST_EVENT_ID_HEADER, RelayCursor};
use leptos::prelude::window;
use web_sys::AbortSignal;

use crate::http::{BodyError, BodyStream, Next};

/// The pauses before each resume, in ms (about 15 s in all).
const RESUME_PAUSES_MS: [u32; 6] = [100, 400, 1_000, 2_000, 4_000, 8_000];

/// A model's answer being read.
pub enum ModelStream {
    /// A response body, as it comes.
    Body(BodyStream),
    /// A relayed reply that resumes itself.
    Relayed(Box<Relayed>),
}

impl ModelStream {
    /// The next bytes, waiting at most `ms`; `Err` when the answer broke for good.
    pub async fn next_within(&mut self, ms: i32) -> Result<Next, BodyError> {
        match self {
            Self::Body(body) => body.next_within(ms).await,
            Self::Relayed(relayed) => relayed.next_within(ms).await,
        }
    }

    /// Says the answer is complete (the protocol's own end arrived): a relayed reply is
    /// then let finish on the edge by itself, not stopped when this stream is dropped.
    pub fn settle(&mut self) {
        if let Self::Relayed(relayed) = self {
            relayed.settled = true;
        }
    }

    /// Stops reading (and a relayed reply on the edge).
    pub fn cancel(&mut self) {
        match self {
            Self::Body(body) => body.cancel(),
            Self::Relayed(relayed) => relayed.body.cancel(),
        }
    }
}

/// A relayed reply: its id, the connection being read, and where the read is.
pub struct Relayed {
    id: String,
    body: BodyStream,
    cursor: RelayCursor,
    signal: AbortSignal,
    /// The reply is complete (the edge or the protocol said so), or lost: nothing to
    /// stop on the edge.
    settled: bool,
}

impl Relayed {
    /// The relay `id`, answered on `body`, run under `signal`.
    pub fn new(id: String, body: BodyStream, signal: AbortSignal) -> Self {
        Self {
            id,
            body,
            cursor: RelayCursor::new(),
            signal,
            settled: false,
        }
    }

    fn url(&self) -> String {
        format!("/api/chat/relay/{}", self.id)
    }

    async fn next_within(&mut self, ms: i32) -> Result<Next, BodyError> {
        loop {
            match self.body.next_within(ms).await {
                Ok(Next::Bytes(bytes)) => {
                    let released = self.cursor.push(&bytes);
                    if !released.is_empty() {
                        return Ok(Next::Bytes(released));
                    }
                    if self.cursor.ended() {
                        self.settled = true;
                        return Ok(Next::End);
                    }
                    if self.cursor.lost() {
                        self.settled = true;
                        return Err(BodyError::Broken);
                    }
                    // Only the edge's own blocks (a heartbeat): nothing for the reader.
                    return Ok(Next::Quiet);
                }
                Ok(Next::Quiet) => return Ok(Next::Quiet),
                Ok(Next::End) if self.cursor.ended() => {
                    self.settled = true;
                    return Ok(Next::End);
                }
                Ok(Next::End) | Err(_) => {
                    if self.signal.aborted() || !self.resume().await {
                        return Err(BodyError::Broken);
                    }
                }
            }
        }
    }

    /// Takes the reply up again after its last confirmed batch; false when it cannot be.
    async fn resume(&mut self) -> bool {
        for pause in RESUME_PAUSES_MS {
            gloo_timers::future::TimeoutFuture::new(pause).await;
            if self.signal.aborted() {
                return false;
            }
            let Ok(headers) = web_sys::Headers::new() else {
                return false;
            };
            if let Some(last) = self.cursor.last_id() {
                let _ = headers.set(LAST_EVENT_ID_HEADER, &last.to_string());
            }
            let init = web_sys::RequestInit::new();
            init.set_method("GET");
            init.set_headers(&headers);
            let Ok(response) = crate::http::open(&self.url(), &init, &self.signal).await else {
                continue;
            };
            if response.ok()
                && let Some(body) = BodyStream::of(&response)
            {
                self.body = body;
                self.cursor.resume();
                return true;
            }
            // The edge does not know it (expired, another client's): nothing to resume.
            if matches!(response.status(), 400 | 404) {
                self.settled = true;
                return false;
            }
        }
        false
    }
}

impl Drop for Relayed {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        self.body.cancel();
        // Given up before its end: the edge stops the provider call at once, instead of
        // keeping it running for a resume that will not come.
        let init = web_sys::RequestInit::new();
        init.set_method("DELETE");
        // `keepalive`: the stop still goes out when the tab is closing.
        let _ = js_sys::Reflect::set(&init, &"keepalive".into(), &true.into());
        let _ = window().fetch_with_str_and_init(&self.url(), &init);
    }
}
