//! The one reader of a provider's answer: bytes bounded in size, in silence between
//! chunks and (for task calls) in total time, decoded into events by
//! `hearth_core::provider::StreamDecoder`. Replies, task-model calls and the image
//! generator all read through it, so every limit is enforced in one place.

use hearth_core::chat::GenerationError;
use hearth_core::provider::{Protocol, StreamDecoder, StreamError, StreamEvent};

use super::transport::Stream;
use crate::browser::now;
use crate::http::Next;

/// The bounds of one read.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most bytes read.
    pub max_bytes: usize,
    /// The longest silence between chunks, in ms.
    pub silence_ms: f64,
    /// The longest the whole read may take, in ms (`None`: no limit but silence).
    pub deadline_ms: Option<f64>,
}

/// Why a read stopped before its end.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadError {
    /// More than `max_bytes` arrived; reading stopped there.
    TooLarge { max_bytes: usize },
    /// Nothing arrived for `silence_ms`.
    Silent { silence_ms: f64 },
    /// The whole read took longer than its deadline.
    Deadline { deadline_ms: f64 },
    /// The connection broke (or the run was stopped).
    Broken,
    /// The bytes are not the protocol's stream.
    Malformed(StreamError),
}

impl ReadError {
    /// The error stored on a reply.
    pub fn to_generation_error(&self) -> GenerationError {
        match self {
            ReadError::TooLarge { max_bytes } => {
                GenerationError::response_size_limit(max_bytes / (1024 * 1024))
            }
            ReadError::Silent { silence_ms } => {
                GenerationError::response_timeout((silence_ms / 1000.0).round() as u64)
            }
            ReadError::Deadline { deadline_ms } => {
                GenerationError::response_timeout((deadline_ms / 1000.0).round() as u64)
            }
            ReadError::Broken => GenerationError::stream_interrupted(),
            ReadError::Malformed(StreamError::Truncated) => GenerationError::stream_truncated(),
            ReadError::Malformed(other) => GenerationError::stream_malformed(&other.to_string()),
        }
    }
}

/// Bytes of one answer, within [`Limits`].
pub struct Reader {
    stream: Stream,
    limits: Limits,
    received: usize,
    opened: f64,
    last_bytes: f64,
}

/// What a read found.
pub enum Chunk<T> {
    /// Something arrived.
    Data(T),
    /// Nothing within the wait asked for; the read goes on.
    Quiet,
    /// The answer is complete (with what its end held).
    End(T),
}

impl Reader {
    /// Reads `stream` within `limits`.
    pub fn new(stream: Stream, limits: Limits) -> Self {
        let at = now();
        Self {
            stream,
            limits,
            received: 0,
            opened: at,
            last_bytes: at,
        }
    }

    /// The next bytes, waiting at most `wait_ms` (and never past a limit).
    pub async fn next(&mut self, wait_ms: Option<f64>) -> Result<Chunk<Vec<u8>>, ReadError> {
        let silent_for = now() - self.last_bytes;
        if silent_for >= self.limits.silence_ms {
            self.stream.cancel();
            return Err(ReadError::Silent {
                silence_ms: self.limits.silence_ms,
            });
        }
        let mut wait = self.limits.silence_ms - silent_for;
        if let Some(deadline) = self.limits.deadline_ms {
            let left = deadline - (now() - self.opened);
            if left <= 0.0 {
                self.stream.cancel();
                return Err(ReadError::Deadline {
                    deadline_ms: deadline,
                });
            }
            wait = wait.min(left);
        }
        if let Some(asked) = wait_ms {
            wait = wait.min(asked);
        }
        match self.stream.next_within(wait.max(1.0) as i32).await {
            Ok(Next::Bytes(bytes)) => {
                self.last_bytes = now();
                // Bounded while it arrives: a provider's answer is outside input.
                self.received += bytes.len();
                if self.received > self.limits.max_bytes {
                    self.stream.cancel();
                    return Err(ReadError::TooLarge {
                        max_bytes: self.limits.max_bytes,
                    });
                }
                Ok(Chunk::Data(bytes))
            }
            Ok(Next::End) => Ok(Chunk::End(Vec::new())),
            Ok(Next::Quiet) => Ok(Chunk::Quiet),
            Err(_) => Err(ReadError::Broken),
        }
    }

    /// The whole answer.
    pub async fn read_all(mut self) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            match self.next(None).await? {
                Chunk::Data(bytes) => body.extend_from_slice(&bytes),
                Chunk::Quiet => {}
                Chunk::End(_) => return Ok(body),
            }
        }
    }
}

/// A model's stream as events.
pub struct EventReader {
    reader: Reader,
    decoder: StreamDecoder,
}

impl EventReader {
    /// Decodes `protocol`'s stream read within `limits`.
    pub fn new(stream: Stream, protocol: Protocol, limits: Limits) -> Self {
        Self {
            reader: Reader::new(stream, limits),
            decoder: StreamDecoder::new(protocol),
        }
    }

    /// The next events, waiting at most `wait_ms`; `Chunk::End` once the stream (or the
    /// protocol's own end marker) ended it.
    pub async fn next(
        &mut self,
        wait_ms: Option<f64>,
    ) -> Result<Chunk<Vec<StreamEvent>>, ReadError> {
        let chunk = match self.reader.next(wait_ms).await? {
            Chunk::Data(bytes) => self.decoder.push(&bytes).map(Chunk::Data),
            Chunk::End(_) => self.decoder.finish().map(Chunk::End),
            Chunk::Quiet => return Ok(Chunk::Quiet),
        }
        .map_err(ReadError::Malformed)?;
        Ok(match chunk {
            Chunk::Data(events) if self.decoder.ended() => {
                self.reader.stream.settle();
                Chunk::End(events)
            }
            other => other,
        })
    }
}
