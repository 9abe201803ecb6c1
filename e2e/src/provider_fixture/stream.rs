//! Playing a reply's frames into a streamed response body: in fixed-size chunks when the
//! reply asks, paced, counting the stream as open until hyper drops it, and stalling
//! (until [`ProviderFixture::release`](super::ProviderFixture::release)), failing with
//! the protocol's error event or cutting off after a number of deltas.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use hearth_core::provider::Protocol;
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

use super::{Reply, Shared, error_frame};

/// Streams `script`, the frames of `reply` in `protocol`, as an SSE response: in the
/// reply's chunks and pace, stalling, failing or cutting off where it says.
pub(super) fn respond(
    shared: &Arc<Shared>,
    protocol: Protocol,
    reply: &Reply,
    script: Script,
) -> Response {
    let mut actions: Vec<(usize, Action)> = [
        (reply.stall_after, Action::Stall),
        (reply.error_after, Action::Error),
        (reply.truncate_after, Action::Truncate),
    ]
    .into_iter()
    .filter_map(|(after, action)| after.map(|after| (after, action)))
    .collect();
    actions.sort();
    let (tx, rx) = mpsc::channel(64);
    let producer = Producer {
        protocol,
        writer: Writer {
            tx,
            chunk_bytes: reply.chunk_bytes,
            delay: Duration::from_millis(reply.delay_ms),
            buffer: Vec::new(),
            wrote: false,
            frames: 0,
        },
        // The baseline is taken now, before the response leaves: a task spawned below may
        // first run after the test has already called `release` for this reply.
        released: *shared.release.borrow(),
        release: shared.release.subscribe(),
        actions: actions.into(),
    };
    tokio::spawn(producer.run(script));
    let body = SseBody {
        rx,
        _open: OpenStream::new(shared.clone()),
    };
    (
        [
            (CONTENT_TYPE, "text/event-stream"),
            (CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// Counts a stream as open from its creation until hyper drops its body (sent or the
/// client gone).
struct OpenStream(Arc<Shared>);

impl OpenStream {
    fn new(shared: Arc<Shared>) -> Self {
        shared.open_streams.fetch_add(1, Ordering::SeqCst);
        Self(shared)
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.open_streams.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The response body: what the producer task writes.
struct SseBody {
    rx: mpsc::Receiver<Bytes>,
    _open: OpenStream,
}

impl futures_util::Stream for SseBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx).map(|chunk| chunk.map(Ok))
    }
}

/// Whether a frame is a delta event (text, reasoning or a tool-call fragment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Other,
    Delta,
}

/// A reply's frames, in order.
#[derive(Debug, Default)]
pub(super) struct Script {
    frames: Vec<(String, Kind)>,
    /// The next Responses `sequence_number`.
    sequence: u64,
}

impl Script {
    pub(super) fn push(&mut self, frame: String, kind: Kind) {
        self.frames.push((frame, kind));
    }

    /// An `event:` + `data:` frame (Responses, Anthropic).
    pub(super) fn event(&mut self, kind: Kind, name: &str, data: &Value) {
        self.push(format!("event: {name}\ndata: {data}\n\n"), kind);
    }

    /// A Responses event, typed and numbered.
    pub(super) fn responses(&mut self, kind: Kind, name: &str, mut data: Value) {
        data["type"] = json!(name);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        self.event(kind, name, &data);
    }
}

/// What a reply does at a point of its stream, in this order when several coincide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Action {
    Stall,
    Error,
    Truncate,
}

/// Writes frames to the body channel, in chunks, paced.
struct Writer {
    tx: mpsc::Sender<Bytes>,
    chunk_bytes: usize,
    delay: Duration,
    buffer: Vec<u8>,
    wrote: bool,
    /// Frames written so far.
    frames: usize,
}

impl Writer {
    /// Writes a frame (or buffers it into fixed-size chunks); false if the client left.
    async fn frame(&mut self, frame: &str) -> bool {
        self.frames += 1;
        if self.chunk_bytes == 0 {
            return self.send(frame.as_bytes().to_vec()).await;
        }
        self.buffer.extend_from_slice(frame.as_bytes());
        while self.buffer.len() >= self.chunk_bytes {
            let rest = self.buffer.split_off(self.chunk_bytes);
            let chunk = std::mem::replace(&mut self.buffer, rest);
            if !self.send(chunk).await {
                return false;
            }
        }
        true
    }

    /// Writes what is buffered.
    async fn flush(&mut self) -> bool {
        if self.buffer.is_empty() {
            return true;
        }
        let chunk = std::mem::take(&mut self.buffer);
        self.send(chunk).await
    }

    async fn send(&mut self, chunk: Vec<u8>) -> bool {
        if self.wrote {
            if self.delay.is_zero() {
                // Lets the connection write this chunk on its own.
                tokio::task::yield_now().await;
            } else {
                tokio::time::sleep(self.delay).await;
            }
        }
        self.wrote = true;
        self.tx.send(Bytes::from(chunk)).await.is_ok()
    }
}

/// The task that plays a [`Script`] into a response body.
struct Producer {
    protocol: Protocol,
    writer: Writer,
    released: u64,
    release: watch::Receiver<u64>,
    actions: VecDeque<(usize, Action)>,
}

impl Producer {
    async fn run(mut self, script: Script) {
        let released = self.released;
        // Actions due after more deltas than the reply has happen before its closing
        // frames (everything after the last delta).
        let closing_from = script
            .frames
            .iter()
            .rposition(|(_, kind)| *kind == Kind::Delta)
            .map_or(0, |last| last + 1);
        let mut deltas = 0;
        for (index, (frame, kind)) in script.frames.iter().enumerate() {
            let closing = index >= closing_from;
            let before_delta = *kind == Kind::Delta;
            if !self
                .act_while(released, |after| {
                    closing || (before_delta && after <= deltas)
                })
                .await
            {
                return;
            }
            if !self.writer.frame(frame).await {
                return;
            }
            if *kind == Kind::Delta {
                deltas += 1;
                if !self.act_while(released, |after| after <= deltas).await {
                    return;
                }
            }
        }
        self.writer.flush().await;
    }

    /// Performs the due actions; false when the stream must end.
    async fn act_while(&mut self, released: u64, due: impl Fn(usize) -> bool) -> bool {
        while let Some(&(after, action)) = self.actions.front() {
            if !due(after) {
                break;
            }
            self.actions.pop_front();
            match action {
                Action::Stall => {
                    if !self.writer.flush().await {
                        return false;
                    }
                    tokio::select! {
                        _ = self.release.wait_for(|count| *count > released) => {}
                        _ = self.writer.tx.closed() => return false,
                    }
                }
                Action::Error => {
                    let frame = error_frame(self.protocol, self.writer.frames);
                    self.writer.frame(&frame).await;
                    self.writer.flush().await;
                    return false;
                }
                Action::Truncate => {
                    self.writer.flush().await;
                    return false;
                }
            }
        }
        true
    }
}

/// `text` in pieces of `chars` characters (one piece for 0, none for empty text).
pub(super) fn pieces(text: &str, chars: usize) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    if chars == 0 {
        return vec![text.to_string()];
    }
    let all: Vec<char> = text.chars().collect();
    all.chunks(chars)
        .map(|piece| piece.iter().collect())
        .collect()
}

/// A piece of a reply's answer: text, or its `n`th image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece {
    /// Text.
    Text(String),
    /// The reply's image at this index.
    Image(usize),
}

/// `reply`'s text in pieces of `text_chunk_chars` with its images in their places (a
/// text piece is cut where an image goes).
pub(super) fn answer_pieces(reply: &Reply) -> Vec<Piece> {
    let chars: Vec<char> = reply.text.chars().collect();
    let mut order: Vec<(usize, usize)> = reply
        .images
        .iter()
        .enumerate()
        .map(|(index, image)| (image.after_chars.min(chars.len()), index))
        .collect();
    order.sort();
    let mut out = Vec::new();
    let mut from = 0;
    for (at, index) in order {
        let text: String = chars[from..at].iter().collect();
        out.extend(
            pieces(&text, reply.text_chunk_chars)
                .into_iter()
                .map(Piece::Text),
        );
        out.push(Piece::Image(index));
        from = at;
    }
    let text: String = chars[from..].iter().collect();
    out.extend(
        pieces(&text, reply.text_chunk_chars)
            .into_iter()
            .map(Piece::Text),
    );
    out
}

/// Tool-call arguments in three pieces (fewer when shorter).
pub(super) fn argument_pieces(arguments: &str) -> Vec<String> {
    pieces(arguments, arguments.chars().count().div_ceil(3))
}

/// The id of a reply's `index`th tool call.
pub(super) fn call_id(index: usize) -> String {
    format!("call_fixture_{index}")
}
