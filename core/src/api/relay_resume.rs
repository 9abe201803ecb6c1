//! Resumable relayed streams: how the edge marks its place in a relayed reply, and how
//! the browser reads those marks back to resume from the last event it holds.
//!
//! The browser names each relayed round (`hearth-relay-id`, [`valid_relay_id`]). The
//! edge answers the provider's own SSE bytes, unchanged, in whole events, each batch
//! followed by an id block of its own (`id: 7` and a blank line, which SSE parsers
//! read as "no event"), a comment as a heartbeat while nothing arrives, and a comment
//! at the end. A connection that drops is taken up again with
//! `GET /api/chat/relay/{id}` and `Last-Event-ID: 7` on any instance: the edge answers
//! the batches after 7 from its buffer, then follows the reply live.
//!
//! [`RelayCursor`] releases only bytes an id block confirmed, so a batch cut in half is
//! dropped and comes again whole after the resume: nothing is lost or read twice.

/// The request header naming a relayed round (and the resume route's path segment).
pub const RELAY_ID_HEADER: &str = "hearth-relay-id";
/// The request header of a resume: the last batch the browser holds.
pub const LAST_EVENT_ID_HEADER: &str = "last-event-id";
/// The block the edge sends while nothing arrives, so idle proxies keep the connection.
pub const HEARTBEAT_BLOCK: &str = ": keep-alive\n\n";
/// The block after the last batch: the reply is complete, nothing is left to resume.
pub const END_BLOCK: &str = ": hearth-relay-end\n\n";
/// The block a resume ends with when the instance relaying the reply stopped before it
/// finished: what it relayed has been answered, the rest of the reply will never come.
pub const LOST_BLOCK: &str = ": hearth-relay-lost\n\n";
/// How often the edge sends [`HEARTBEAT_BLOCK`] on a quiet stream, in seconds.
pub const HEARTBEAT_SECS: u64 = 15;

/// Whether `id` can name a relayed round: 16 to 64 ASCII letters, digits or `-`.
pub use super::operations::valid_client_chosen_id as valid_relay_id;

/// A batch of whole events followed by its id block: what the edge writes for batch `n`.
/// A batch whose last event has no blank line after it (a provider that closed right
/// after its last line) is closed first, so the id block stands on its own.
pub fn frame_batch(batch: &[u8], n: u64) -> Vec<u8> {
    let mut framed = Vec::with_capacity(batch.len() + 24);
    framed.extend_from_slice(batch);
    let closed = batch.is_empty()
        || batch.ends_with(b"\n\n")
        || batch.ends_with(b"\r\r")
        || batch.ends_with(b"\r\n\r\n");
    if !closed {
        if batch.ends_with(b"\n") || batch.ends_with(b"\r") {
            framed.push(b'\n');
        } else {
            framed.extend_from_slice(b"\n\n");
        }
    }
    framed.extend_from_slice(format!("id: {n}\n\n").as_bytes());
    framed
}

/// One of the edge's own blocks, recognised on a line that starts a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Id(u64),
    Heartbeat,
    End,
    Lost,
}

impl Mark {
    fn of(line: &[u8]) -> Option<Self> {
        match line {
            b": keep-alive" => Some(Self::Heartbeat),
            b": hearth-relay-end" => Some(Self::End),
            b": hearth-relay-lost" => Some(Self::Lost),
            _ => {
                let digits = line.strip_prefix(b"id: ")?;
                if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit)
                {
                    return None;
                }
                std::str::from_utf8(digits).ok()?.parse().ok().map(Self::Id)
            }
        }
    }
}

/// The browser's reader of a resumable relayed stream: it strips the edge's blocks and
/// releases the provider's bytes once their batch is confirmed.
#[derive(Debug, Default)]
pub struct RelayCursor {
    /// Bytes of the current batch, not yet confirmed by its id block.
    unconfirmed: Vec<u8>,
    /// The line being read, with its line ending once it has one.
    line: Vec<u8>,
    /// The line being read ends in `\r`; the next byte says whether a `\n` belongs to it.
    after_cr: bool,
    /// The line being read starts a block.
    at_block_start: bool,
    /// A mark line that waits for its blank line, with its raw bytes.
    candidate: Option<(Mark, Vec<u8>)>,
    last_id: Option<u64>,
    ended: bool,
    lost: bool,
}

impl RelayCursor {
    /// A cursor at the start of a relayed stream.
    pub fn new() -> Self {
        Self {
            at_block_start: true,
            ..Self::default()
        }
    }

    /// Reads `bytes` from the connection; the provider's bytes they confirm, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut released = Vec::new();
        for &byte in bytes {
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    self.line.push(byte);
                    self.end_line(&mut released);
                    continue;
                }
                self.end_line(&mut released);
            }
            self.line.push(byte);
            match byte {
                b'\n' => self.end_line(&mut released),
                b'\r' => self.after_cr = true,
                _ => {}
            }
        }
        released
    }

    fn end_line(&mut self, released: &mut Vec<u8>) {
        let raw = std::mem::take(&mut self.line);
        let content = raw.strip_suffix(b"\r\n").unwrap_or(&raw);
        let content = content
            .strip_suffix(b"\n")
            .or_else(|| content.strip_suffix(b"\r"))
            .unwrap_or(content);
        let blank = content.is_empty();
        if let Some((mark, mark_raw)) = self.candidate.take() {
            if blank {
                match mark {
                    Mark::Id(n) => {
                        released.append(&mut self.unconfirmed);
                        self.last_id = Some(n);
                    }
                    Mark::Heartbeat => {}
                    Mark::End => self.ended = true,
                    Mark::Lost => self.lost = true,
                }
                self.at_block_start = true;
                return;
            }
            // Not one of the edge's blocks after all: the provider's bytes.
            self.unconfirmed.extend_from_slice(&mark_raw);
        } else if self.at_block_start
            && let Some(mark) = Mark::of(content)
        {
            self.candidate = Some((mark, raw));
            self.at_block_start = false;
            return;
        }
        self.unconfirmed.extend_from_slice(&raw);
        self.at_block_start = blank;
    }

    /// The last batch confirmed: what a resume asks for after (`Last-Event-ID`).
    pub fn last_id(&self) -> Option<u64> {
        self.last_id
    }

    /// Whether the edge said the reply is complete.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Whether the edge said the instance relaying the reply stopped before it finished.
    pub fn lost(&self) -> bool {
        self.lost
    }

    /// Forgets what a dropped connection left unconfirmed: a new connection answers from
    /// the batch after [`last_id`](Self::last_id), whole.
    pub fn resume(&mut self) {
        self.unconfirmed.clear();
        self.line.clear();
        self.candidate = None;
        self.after_cr = false;
        self.at_block_start = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(batches: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, batch) in batches.iter().enumerate() {
            out.extend(frame_batch(batch.as_bytes(), i as u64 + 1));
            out.extend_from_slice(HEARTBEAT_BLOCK.as_bytes());
        }
        out.extend_from_slice(END_BLOCK.as_bytes());
        out
    }

    const BATCHES: [&str; 4] = [
        "data: one\n\n",
        "event: x\r\ndata: two\r\n\r\ndata: three\r\n\r\n",
        "data: four\r\r",
        "data: [DONE]",
    ];

    fn provider_bytes() -> String {
        "data: one\n\nevent: x\r\ndata: two\r\n\r\ndata: three\r\n\r\ndata: four\r\rdata: [DONE]\n\n"
            .to_string()
    }

    #[test]
    fn the_edges_blocks_are_stripped_at_every_split_point() {
        let all = stream(&BATCHES);
        for split in 0..all.len() {
            let mut cursor = RelayCursor::new();
            let mut out = cursor.push(&all[..split]);
            out.extend(cursor.push(&all[split..]));
            assert_eq!(String::from_utf8(out).unwrap(), provider_bytes(), "{split}");
            assert_eq!(cursor.last_id(), Some(4));
            assert!(cursor.ended() && !cursor.lost());
        }
    }

    #[test]
    fn a_cut_anywhere_then_a_resume_gives_every_byte_once() {
        let all = stream(&BATCHES);
        for cut in 0..all.len() {
            let mut cursor = RelayCursor::new();
            let mut out = cursor.push(&all[..cut]);
            cursor.resume();
            let after = cursor.last_id().unwrap_or(0) as usize;
            let rest: Vec<&str> = BATCHES[after..].to_vec();
            let mut again = Vec::new();
            for (i, batch) in rest.iter().enumerate() {
                again.extend(frame_batch(batch.as_bytes(), (after + i + 1) as u64));
            }
            again.extend_from_slice(END_BLOCK.as_bytes());
            out.extend(cursor.push(&again));
            assert_eq!(String::from_utf8(out).unwrap(), provider_bytes(), "{cut}");
            assert!(cursor.ended());
        }
    }

    #[test]
    fn unconfirmed_bytes_are_held_back_and_the_lost_mark_is_read() {
        let mut cursor = RelayCursor::new();
        assert!(cursor.push(b"data: a\n\n").is_empty());
        assert_eq!(cursor.push(b"id: 1\n\n"), b"data: a\n\n");
        assert!(cursor.push(b"data: b\n\n").is_empty());
        assert!(cursor.push(LOST_BLOCK.as_bytes()).is_empty());
        assert!(cursor.lost() && !cursor.ended());
        assert_eq!(cursor.last_id(), Some(1));
    }

    #[test]
    fn lines_that_only_look_like_marks_are_the_providers() {
        let mut cursor = RelayCursor::new();
        // Not at a block start, not followed by a blank line, not digits.
        let text = "data: x\nid: 5\n\nid: 6\ndata: y\n\nid: abc\n\n: keep-alive\ndata: z\n\n";
        let mut out = cursor.push(text.as_bytes());
        out.extend(cursor.push(b"id: 9\n\n"));
        assert_eq!(String::from_utf8(out).unwrap(), text);
        assert_eq!(cursor.last_id(), Some(9));
    }

    #[test]
    fn batches_are_closed_before_their_id() {
        assert_eq!(frame_batch(b"data: a", 1), b"data: a\n\nid: 1\n\n");
        assert_eq!(frame_batch(b"data: a\n", 2), b"data: a\n\nid: 2\n\n");
        assert_eq!(
            frame_batch(b"data: a\r\n\r\n", 3),
            b"data: a\r\n\r\nid: 3\n\n"
        );
    }
}
