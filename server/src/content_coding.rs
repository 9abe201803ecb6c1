//! HTTP content codings the edge answers with: which coding a client takes
//! (`Accept-Encoding`, `q=0` honoured), a whole body gzipped once, and a stream gzipped
//! as it goes with every chunk flushed at once, so a relayed reply keeps its pace while it
//! crosses the network in a fraction of its bytes.
//!
//! A stream is flushed with a sync flush after each chunk: the client's decoder gets every
//! whole event the moment the edge has it. The deflate window carries across flushes, so
//! the JSON envelope every provider event repeats costs a few bytes after the first.

use std::io::Write;

use axum::http::{HeaderMap, header};
use bytes::Bytes;
use flate2::Compression;
use flate2::write::GzEncoder;
use futures_util::{Stream, StreamExt};

/// Whether `Accept-Encoding` takes `coding` (by name or `*`, not refused with `q=0`).
pub fn accepts(headers: &HeaderMap, coding: &str) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|offered| {
            let mut parts = offered.split(';');
            let name = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    == Some(0.0)
            });
            (name.eq_ignore_ascii_case(coding) || name == "*") && !refused
        })
}

/// `body` gzipped at the best compression (for bodies compressed once and kept).
pub fn gzip(body: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(body);
    encoder.finish().unwrap_or_default()
}

/// `stream` gzipped as it goes: each chunk is compressed and flushed (sync flush) before
/// the next is awaited, so what the client decodes keeps the pace of what the edge
/// received; the gzip trailer follows the last chunk. An error from `stream` is passed
/// on and ends the stream (the client sees a truncated body, as it would uncompressed).
pub fn gzip_stream<S>(stream: S) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send
where
    S: Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static,
{
    // The default level: a streamed reply is compressed once, as it arrives, and the
    // edge's CPU is shared by every reply in flight.
    let encoder = Some(GzEncoder::new(Vec::new(), Compression::default()));
    futures_util::stream::unfold(
        (Box::pin(stream), encoder),
        |(mut stream, mut encoder)| async move {
            let active = encoder.as_mut()?;
            match stream.next().await {
                Some(Ok(chunk)) => {
                    let compressed = active
                        .write_all(&chunk)
                        .and_then(|()| active.flush())
                        .map(|()| Bytes::from(std::mem::take(active.get_mut())));
                    if compressed.is_err() {
                        encoder = None;
                    }
                    Some((compressed, (stream, encoder)))
                }
                Some(Err(error)) => Some((Err(error), (stream, None))),
                None => {
                    let finished = encoder.take()?.finish().map(Bytes::from);
                    Some((finished, (stream, None)))
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use axum::http::HeaderValue;
    use flate2::read::GzDecoder;
    use flate2::{Decompress, FlushDecompress};

    use super::*;

    #[test]
    fn negotiation_honours_q_zero() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("br, gzip"),
        );
        assert!(accepts(&headers, "gzip") && accepts(&headers, "br"));
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("gzip;q=0, br"),
        );
        assert!(!accepts(&headers, "gzip") && accepts(&headers, "br"));
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("identity"),
        );
        assert!(!accepts(&headers, "gzip") && !accepts(&headers, "br"));
        headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("*"));
        assert!(accepts(&headers, "gzip"));
        headers.remove(header::ACCEPT_ENCODING);
        assert!(!accepts(&headers, "gzip"));
    }

    fn events(n: usize) -> Vec<Bytes> {
        (0..n)
            .map(|i| {
                Bytes::from(format!(
                    "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"word {i} \"}}}}]}}\n\n"
                ))
            })
            .collect()
    }

    /// Feeds each compressed chunk to a raw inflater as it arrives (the gzip header
    /// skipped), and returns what each chunk decoded to on its own.
    fn decode_chunk_by_chunk(chunks: &[Bytes]) -> Vec<Vec<u8>> {
        let mut inflater = Decompress::new(false);
        let mut header_left = 10usize;
        chunks
            .iter()
            .map(|chunk| {
                let skip = header_left.min(chunk.len());
                header_left -= skip;
                let mut input = &chunk[skip..];
                let mut decoded = Vec::new();
                while !input.is_empty() {
                    let mut out = vec![0u8; 64 * 1024];
                    let before_in = inflater.total_in();
                    let before_out = inflater.total_out();
                    let status = inflater
                        .decompress(input, &mut out, FlushDecompress::Sync)
                        .expect("valid deflate");
                    let used = usize::try_from(inflater.total_in() - before_in).unwrap();
                    let made = usize::try_from(inflater.total_out() - before_out).unwrap();
                    decoded.extend_from_slice(&out[..made]);
                    input = &input[used..];
                    if status == flate2::Status::StreamEnd {
                        // The rest is the gzip trailer (CRC and size).
                        break;
                    }
                    if used == 0 && made == 0 {
                        break;
                    }
                }
                decoded
            })
            .collect()
    }

    #[tokio::test]
    async fn a_stream_decodes_chunk_by_chunk_and_whole() {
        let sent = events(300);
        let compressed: Vec<Bytes> =
            gzip_stream(futures_util::stream::iter(sent.clone().into_iter().map(Ok)))
                .map(|chunk| chunk.expect("no error"))
                .collect()
                .await;
        // One compressed chunk per chunk sent, and the trailer.
        assert_eq!(compressed.len(), sent.len() + 1);
        // Every chunk is whole the moment it arrives: nothing waits for a later one.
        let decoded = decode_chunk_by_chunk(&compressed[..sent.len()]);
        for (sent, decoded) in sent.iter().zip(&decoded) {
            assert_eq!(&sent[..], &decoded[..]);
        }
        // The whole body is a valid gzip member of exactly what was sent.
        let whole: Vec<u8> = compressed.iter().flatten().copied().collect();
        let mut out = Vec::new();
        GzDecoder::new(&whole[..])
            .read_to_end(&mut out)
            .expect("valid gzip with its trailer");
        assert_eq!(out, sent.concat());
        // What providers repeat in every event costs little after the first.
        let plain: usize = sent.iter().map(Bytes::len).sum();
        assert!(
            whole.len() * 4 < plain,
            "{} compressed bytes of {plain}",
            whole.len()
        );
    }

    #[tokio::test]
    async fn an_error_is_passed_on_and_ends_the_stream() {
        let items: Vec<Result<Bytes, std::io::Error>> = vec![
            Ok(Bytes::from_static(b"data: one\n\n")),
            Err(std::io::Error::other("upstream cut")),
            Ok(Bytes::from_static(b"data: never\n\n")),
        ];
        let out: Vec<_> = gzip_stream(futures_util::stream::iter(items))
            .collect()
            .await;
        assert_eq!(out.len(), 2, "the error ends it");
        assert!(out[0].is_ok());
        assert_eq!(
            out[1].as_ref().map_err(ToString::to_string).unwrap_err(),
            "upstream cut"
        );
    }

    #[tokio::test]
    async fn an_empty_stream_is_an_empty_gzip_member() {
        let out: Vec<Bytes> = gzip_stream(futures_util::stream::empty())
            .map(|chunk| chunk.expect("no error"))
            .collect()
            .await;
        let whole: Vec<u8> = out.iter().flatten().copied().collect();
        let mut decoded = Vec::new();
        GzDecoder::new(&whole[..])
            .read_to_end(&mut decoded)
            .expect("valid gzip");
        assert!(decoded.is_empty());
    }

    #[test]
    fn a_whole_body_round_trips() {
        let body = b"let x = 1; ".repeat(100);
        let mut out = Vec::new();
        GzDecoder::new(&gzip(&body)[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, body);
    }
}
