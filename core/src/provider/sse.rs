//! Server-sent events framing (the WHATWG `text/event-stream` format), incremental and
//! indifferent to chunk boundaries.
//!
//! Bytes arrive in arbitrary chunks: a line, a CRLF pair or a multi-byte UTF-8 character
//! may be split anywhere. [`SseDecoder::push`] buffers the incomplete tail and returns
//! every event completed by the chunk. Line breaks are `\n`, `\r\n` or a lone `\r` (a
//! `\r` ending one chunk and a `\n` starting the next are one break). Comment lines
//! (`:`) are skipped, several `data:` lines join with `\n`, one space after the colon is
//! removed, and a leading byte-order mark is ignored.
//!
//! Lines are bounded: a line longer than [`MAX_LINE_BYTES`] is an error rather than an
//! unbounded buffer.
//!
//! Lines that are not SSE at all (no known field, not a comment) are ignored as the
//! format says, but the ones after the last `data:` line are kept, up to
//! [`MAX_TRAILING_BYTES`], as [`SseDecoder::trailing`]: a provider that fails partway may
//! end the body with a raw JSON error instead of an event.
//!
//! [`last_event_boundary`] finds where the last complete event of a buffer ends, for the
//! edge's relay, which forwards a provider's stream in whole events only.

use super::StreamError;

/// The longest line accepted (a base64 image in one `data:` line fits comfortably).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The most bytes of non-SSE text kept after the last `data:` line (a provider's error
/// body fits easily); past it the trailing text is dropped as noise.
pub const MAX_TRAILING_BYTES: usize = 64 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; empty means the default type (`message`).
    pub event: String,
    /// The `data:` lines joined by `\n`.
    pub data: String,
    /// The last `id:` field seen, if any.
    pub id: Option<String>,
}

/// The end of the last complete event in `buffer`: the index just past the last blank
/// line, or `None` when there is none. Lines end as [`SseDecoder`] ends them (`\r\n`,
/// `\n` or a lone `\r`, in any mix: `\n\r\n` and `\r\n\r` are blank lines too), so
/// everything before it frames to whole events with nothing left open and can be
/// forwarded (and followed by an error frame) without cutting an event. A `\r` that ends
/// the buffer ends its line; a `\n` the next bytes start with is then the second half of
/// that `\r\n`, which the decoder on the other side skips the same way.
pub fn last_event_boundary(buffer: &[u8]) -> Option<usize> {
    let mut boundary = None;
    let mut at_line_start = true;
    let mut i = 0;
    while i < buffer.len() {
        match buffer[i] {
            b'\r' | b'\n' => {
                let crlf = buffer[i] == b'\r' && buffer.get(i + 1) == Some(&b'\n');
                i += if crlf { 2 } else { 1 };
                if at_line_start {
                    boundary = Some(i);
                }
                at_line_start = true;
            }
            _ => {
                at_line_start = false;
                i += 1;
            }
        }
    }
    boundary
}

/// Incremental SSE decoder.
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    after_cr: bool,
    started: bool,
    event: String,
    data: String,
    has_data: bool,
    id: Option<String>,
    /// Non-SSE lines since the last `data:` line, joined by `\n`.
    trailing: String,
    /// Whether `trailing` outgrew [`MAX_TRAILING_BYTES`].
    trailing_overflowed: bool,
    /// The error that stopped the stream, reported by every later call.
    failed: Option<StreamError>,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk; returns the events it completed. When the chunk also breaks the
    /// stream (an overlong line), the events completed before the break are returned
    /// first and the error comes from the next call, so nothing that arrived intact is
    /// lost to where a chunk happened to end.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let mut events = Vec::new();
        for &byte in chunk {
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\n' => self.end_line(&mut events),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                _ => {
                    if self.line.len() >= MAX_LINE_BYTES {
                        let error = StreamError::LineTooLong {
                            limit: MAX_LINE_BYTES,
                        };
                        self.failed = Some(error.clone());
                        return if events.is_empty() {
                            Err(error)
                        } else {
                            Ok(events)
                        };
                    }
                    self.line.push(byte);
                }
            }
        }
        Ok(events)
    }

    /// Ends the stream. An event whose blank line never came is returned (providers
    /// often close right after their last `data:` line); a partial line counts as a line.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if self.failed.is_some() {
            return None;
        }
        let mut events = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut events);
        }
        self.dispatch(&mut events);
        events.pop()
    }

    /// The error that stopped the stream, if one did.
    pub fn failure(&self) -> Option<&StreamError> {
        self.failed.as_ref()
    }

    /// The non-SSE lines (no known field, not a comment) that came after the last
    /// `data:` line, joined by `\n`; `None` if there were none or they outgrew
    /// [`MAX_TRAILING_BYTES`]. Complete only once [`finish`](Self::finish) has run.
    pub fn trailing(&self) -> Option<&str> {
        (!self.trailing.is_empty() && !self.trailing_overflowed).then_some(self.trailing.as_str())
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let mut raw = std::mem::take(&mut self.line);
        if !self.started {
            self.started = true;
            if raw.starts_with(&[0xEF, 0xBB, 0xBF]) {
                raw.drain(..3);
            }
        }
        if raw.is_empty() {
            self.dispatch(events);
            return;
        }
        let line = String::from_utf8_lossy(&raw);
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                self.trailing.clear();
                self.trailing_overflowed = false;
            }
            "id" if !value.contains('\0') => self.id = Some(value.to_string()),
            "id" | "retry" => {}
            _ => self.keep_trailing(&line),
        }
    }

    fn keep_trailing(&mut self, line: &str) {
        if self.trailing_overflowed {
            return;
        }
        if self.trailing.len() + line.len() + 1 > MAX_TRAILING_BYTES {
            self.trailing_overflowed = true;
            self.trailing.clear();
            return;
        }
        if !self.trailing.is_empty() {
            self.trailing.push('\n');
        }
        self.trailing.push_str(line);
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = std::mem::take(&mut self.event);
        if !self.has_data {
            return;
        }
        self.has_data = false;
        events.push(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
            id: self.id.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(decoder.push(chunk).unwrap());
        }
        events.extend(decoder.finish());
        events
    }

    fn data(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    const STREAM: &str = "\u{feff}: keep-alive\r\nevent: delta\r\ndata: {\"a\":\"é中\"}\r\n\r\n\
        data: line one\ndata:line two\n\n:comment\r\rid: 7\rdata: cr only\r\r\
        event: done\ndata\n\n";

    #[test]
    fn decodes_fields_comments_and_every_line_ending() {
        let events = decode_all(&[STREAM.as_bytes()]);
        assert_eq!(
            data(&events),
            vec!["{\"a\":\"é中\"}", "line one\nline two", "cr only", ""]
        );
        assert_eq!(events[0].event, "delta");
        assert_eq!(events[1].event, "");
        assert_eq!(events[2].id.as_deref(), Some("7"));
        assert_eq!(events[3].event, "done");
    }

    #[test]
    fn every_split_point_gives_the_same_events() {
        let bytes = STREAM.as_bytes();
        let whole = decode_all(&[bytes]);
        for i in 0..=bytes.len() {
            let (a, b) = bytes.split_at(i);
            assert_eq!(decode_all(&[a, b]), whole, "split at {i}");
        }
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(decode_all(&singles), whole, "byte by byte");
    }

    #[test]
    fn an_event_without_its_blank_line_is_returned_at_the_end() {
        let events = decode_all(&[b"data: last", b" words"]);
        assert_eq!(data(&events), vec!["last words"]);
        assert!(decode_all(&[b"event: x\n"]).is_empty(), "no data, no event");
    }

    #[test]
    fn a_line_past_the_limit_is_an_error() {
        let mut decoder = SseDecoder::new();
        let chunk = vec![b'a'; 1024 * 1024];
        let mut outcome = Ok(Vec::new());
        for _ in 0..=16 {
            outcome = decoder.push(&chunk);
            if outcome.is_err() {
                break;
            }
        }
        assert_eq!(
            outcome,
            Err(StreamError::LineTooLong {
                limit: MAX_LINE_BYTES
            })
        );
    }

    #[test]
    fn event_boundaries_in_every_line_ending() {
        assert_eq!(last_event_boundary(b"data: a\n\ndata: b"), Some(9));
        assert_eq!(
            last_event_boundary(b"data: a\r\n\r\ndata: b\r\n\r\n"),
            Some(22)
        );
        assert_eq!(last_event_boundary(b"data: a\r\rdata"), Some(9));
        assert_eq!(last_event_boundary(b"data: partial"), None);
        // Blank lines whose two breaks are spelled differently end events too, as the
        // decoder reads them (a relay used to hold these until a later boundary).
        assert_eq!(last_event_boundary(b"data: a\n\r\ndata: b"), Some(10));
        assert_eq!(last_event_boundary(b"data: a\n\rdata: b"), Some(9));
        assert_eq!(last_event_boundary(b"data: a\r\n\rdata: b"), Some(10));
        assert_eq!(last_event_boundary(b"data: a\r\n\n"), Some(10));
        assert_eq!(last_event_boundary(b"data: a\r\ndata: b\r\n"), None);
        for bytes in [
            &b"data: a\n\r\ndata: b"[..],
            b"data: a\n\rdata: b",
            b"data: a\r\n\rdata: b",
        ] {
            let end = last_event_boundary(bytes).unwrap();
            let mut decoder = SseDecoder::new();
            let events = decoder.push(&bytes[..end]).unwrap();
            assert_eq!(events.len(), 1, "{bytes:?}");
            assert_eq!(events[0].data, "a");
            assert_eq!(decoder.finish(), None);
        }
    }

    #[test]
    fn the_boundary_leaves_no_event_open() {
        let open = format!("{STREAM}data: still open");
        let bytes = open.as_bytes();
        let end = last_event_boundary(bytes).unwrap();
        assert_eq!(end, STREAM.len());
        let mut decoder = SseDecoder::new();
        let before = decoder.push(&bytes[..end]).unwrap();
        assert_eq!(decoder.finish(), None, "nothing open at the boundary");
        assert_eq!(before, decode_all(&[STREAM.as_bytes()]));
    }

    fn trailing_after_finish(chunks: &[&[u8]]) -> Option<String> {
        let mut decoder = SseDecoder::new();
        for chunk in chunks {
            decoder.push(chunk).unwrap();
        }
        decoder.finish();
        decoder.trailing().map(str::to_string)
    }

    #[test]
    fn non_sse_lines_after_the_last_data_line_are_kept_as_trailing_text() {
        let stream = "data: a\n\nnot sse\ndata: b\n\n: comment\nevent: x\nid: 1\nretry: 5\n\n[{\r\n  \"error\": {}\r}\n]";
        let bytes = stream.as_bytes();
        let expected = Some("[{\n  \"error\": {}\n}\n]".to_string());
        for i in 0..=bytes.len() {
            let (a, b) = bytes.split_at(i);
            assert_eq!(trailing_after_finish(&[a, b]), expected, "split at {i}");
        }
        assert_eq!(decode_all(&[bytes]).len(), 2, "trailing text is no event");
        assert_eq!(trailing_after_finish(&[b"junk\ndata: b\n\n"]), None);
        assert_eq!(trailing_after_finish(&[STREAM.as_bytes()]), None);
        let huge = format!("data: a\n\n{}\n", "x".repeat(MAX_TRAILING_BYTES));
        assert_eq!(trailing_after_finish(&[huge.as_bytes()]), None, "too long");
    }
}
