//! LlamaParse (LlamaCloud's Parse API v2, `https://api.cloud.llamaindex.ai`), always with
//! `Authorization: Bearer <key>` (an upload without a key is refused before a job
//! exists):
//!
//! 1. `POST /api/v2/parse/upload`, multipart: `file` and `configuration` (a JSON string,
//!    `{"tier":"cost_effective","version":"latest"}`); the answer carries the job's `id`
//!    at the top level (or, in older answers, as `job.id`).
//! 2. `GET /api/v2/parse/{id}` until `job.status` is `COMPLETED`, or `FAILED` /
//!    `CANCELLED` (with `job.error_message`); `PENDING` and `RUNNING` wait.
//! 3. `GET /api/v2/parse/{id}?expand=markdown`: `markdown.pages[]`, each with
//!    `page_number` and `markdown`, joined with a blank line (page boundaries kept as
//!    [`ParsedPage`]s); the answer is capped at [`LLAMA_PARSE_RESULT_MAX_BYTES`].
//!
//! No cancel call is used: a cancelled job stops polling, and LlamaParse finishes (and
//! bills) the parse on its side.

use bytes::Bytes;
use hearth_core::api::doc_parse::{LLAMA_PARSE_RESULT_MAX_BYTES, ParsedPage};
use reqwest::Method;
use serde_json::Value;

use super::{Call, Failed, content_type, one_line, path_segment};
use crate::doc_parse::job::{Outcome, failure};
use crate::signing::random_bytes;

/// The parse configuration sent with every upload.
pub const CONFIGURATION: &str = r#"{"tier":"cost_effective","version":"latest"}"#;

/// Parses `bytes` (sent as `name`) at LlamaParse.
pub async fn parse(call: &Call<'_>, name: &str, bytes: Vec<u8>) -> Result<Outcome, Failed> {
    let (content, body) = multipart(name, &bytes);
    let created = call
        .api(
            Method::POST,
            "/api/v2/parse/upload",
            Some((content_type(&content), body)),
            true,
            "the upload",
        )
        .await?;
    let id = created["id"]
        .as_str()
        .or_else(|| created["job"]["id"].as_str())
        .filter(|id| !id.trim().is_empty())
        .ok_or_else(|| malformed(call, "the upload"))?;
    let id = path_segment(id);
    let path = format!("/api/v2/parse/{id}");
    loop {
        tokio::time::sleep(call.poll_every()).await;
        let answer = call
            .api(Method::GET, &path, None, true, "a progress check")
            .await?;
        let job = if answer["job"].is_object() {
            &answer["job"]
        } else {
            &answer
        };
        match job["status"].as_str().unwrap_or("PENDING") {
            "COMPLETED" => break,
            "FAILED" | "CANCELLED" => {
                let said = job["error_message"]
                    .as_str()
                    .map(one_line)
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "no reason given".into());
                return Err(failure(
                    "parse_upstream_failed",
                    format!("LlamaParse could not parse the file: {said}"),
                ));
            }
            _ => {}
        }
    }
    let result = call
        .api_capped(
            &format!("{path}?expand=markdown"),
            LLAMA_PARSE_RESULT_MAX_BYTES,
            "the result download",
        )
        .await?;
    markdown(&result).ok_or_else(|| malformed(call, "the result download"))
}

/// The Markdown of a result: its pages joined, with their boundaries.
fn markdown(result: &Value) -> Option<Outcome> {
    let pages = result["markdown"]["pages"].as_array()?;
    let mut text = String::new();
    let mut bounds = Vec::new();
    for (index, page) in pages.iter().enumerate() {
        let page_text = page["markdown"].as_str().unwrap_or_default();
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        let number = page["page_number"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(index as u32 + 1);
        bounds.push(ParsedPage {
            number,
            offset: text.len() as u64,
            has_text: !page_text.trim().is_empty(),
        });
        text.push_str(page_text);
    }
    Some(Outcome::Completed {
        markdown: text,
        pages: bounds,
        notes: vec![],
    })
}

/// A `multipart/form-data` body with `configuration` and `file`: the content type (with
/// its boundary) and the bytes.
fn multipart(name: &str, bytes: &[u8]) -> (String, Bytes) {
    let boundary = format!(
        "hearth-{}",
        random_bytes()[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    let mut body = Vec::with_capacity(bytes.len() + 512);
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"configuration\"\r\n\r\n\
             {CONFIGURATION}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; \
             filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (
        format!("multipart/form-data; boundary={boundary}"),
        Bytes::from(body),
    )
}

fn malformed(call: &Call<'_>, what: &str) -> Failed {
    failure(
        "parse_upstream_failed",
        format!(
            "{}'s answer to {what} is not what its API documents",
            call.name()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pages_are_joined_with_their_boundaries() {
        let result = json!({"job": {"id": "j", "status": "COMPLETED"}, "markdown": {"pages": [
            {"page_number": 1, "markdown": "# One"},
            {"page_number": 2, "markdown": ""},
            {"page_number": 3, "markdown": "three"}
        ]}});
        let Some(Outcome::Completed {
            markdown, pages, ..
        }) = markdown(&result)
        else {
            panic!("no markdown");
        };
        assert_eq!(markdown, "# One\n\n\n\nthree");
        assert_eq!(pages.len(), 3);
        assert_eq!(pages[2].offset, 9);
        assert!(!pages[1].has_text);
        assert_eq!(&markdown[pages[2].offset as usize..], "three");
    }

    #[test]
    fn the_upload_is_multipart_with_its_configuration() {
        let (content, body) = multipart("document.pdf", b"%PDF-1.4");
        let boundary = content
            .strip_prefix("multipart/form-data; boundary=")
            .unwrap();
        let text = String::from_utf8_lossy(&body);
        assert!(text.starts_with(&format!("--{boundary}\r\n")));
        assert!(text.contains(CONFIGURATION));
        assert!(text.contains("filename=\"document.pdf\""));
        assert!(text.ends_with(&format!("--{boundary}--\r\n")));
    }
}
