//! MinerU (`https://mineru.net`, or a self-hosted MinerU on the same API), in one of two
//! modes decided by whether the run has a token:
//!
//! - **precise** (a token): `POST /api/v4/file-urls/batch` with
//!   `Authorization: Bearer <token>` and `{"files":[{"name","data_id"}],
//!   "model_version":"vlm"}` answers `{code:0, data:{batch_id, file_urls:[url]}}`; the
//!   file is `PUT` to that signed URL (no `Content-Type`, no token); then
//!   `GET /api/v4/extract-results/batch/{batch_id}` (Bearer) is polled until
//!   `data.extract_result[0].state` is `done` (with `full_zip_url`) or `failed` (with
//!   `err_msg`); the ZIP (at most [`MINERU_ZIP_MAX_BYTES`]) holds the Markdown as
//!   `full.md`, read within the ZIP bounds ([`markdown_from_zip`]).
//! - **agent** (no token, at most 10 MiB, refused at upload otherwise):
//!   `POST /api/v1/agent/parse/file` with `{"file_name"}` and no `Authorization` answers
//!   `{code:0, data:{task_id, file_url}}`; `PUT` the file there; poll
//!   `GET /api/v1/agent/parse/{task_id}` until `data.state` is `done` (with
//!   `markdown_url`) or `failed`; download the Markdown (at most
//!   [`MINERU_MARKDOWN_MAX_BYTES`]).
//!
//! Every answer is `{code, msg, data}`; a `code` other than 0 is a failure with `msg`.
//! MinerU has no call to cancel a task: a cancelled job just stops polling.

use bytes::Bytes;
use hearth_core::api::doc_parse::{
    MINERU_MARKDOWN_MAX_BYTES, MINERU_ZIP_MAX_BYTES, MINERU_ZIP_MAX_ENTRIES,
    MINERU_ZIP_MAX_INFLATED,
};
use reqwest::Method;
use serde_json::{Value, json};

use super::{Call, Failed, content_type, one_line, path_segment};
use crate::doc_parse::job::{Outcome, failure};

/// The most bytes read of the storage's answer to an upload (empty, or a short error).
const UPLOAD_ANSWER_MAX_BYTES: usize = 64 * 1024;

/// Parses `bytes` (sent as `name`) at MinerU: precise with a token, agent without.
pub async fn parse(call: &Call<'_>, name: &str, bytes: Vec<u8>) -> Result<Outcome, Failed> {
    let markdown = if call.secret().is_some() {
        precise(call, name, bytes).await?
    } else {
        agent(call, name, bytes).await?
    };
    Ok(Outcome::Completed {
        markdown,
        pages: vec![],
        notes: vec![],
    })
}

async fn precise(call: &Call<'_>, name: &str, bytes: Vec<u8>) -> Result<String, Failed> {
    let body = json!({
        "files": [{ "name": name, "data_id": "hearth-upload" }],
        "model_version": "vlm",
    });
    let answer = call
        .api(
            Method::POST,
            "/api/v4/file-urls/batch",
            Some(json_body(&body)),
            true,
            "the upload request",
        )
        .await?;
    let created = data_of(call, &answer, "the upload request")?;
    let batch = text(created, "batch_id").ok_or_else(|| malformed(call, "the upload request"))?;
    let upload = created["file_urls"][0]
        .as_str()
        .ok_or_else(|| malformed(call, "the upload request"))?;
    call.link(
        Method::PUT,
        upload,
        Some(Bytes::from(bytes)),
        UPLOAD_ANSWER_MAX_BYTES,
        "the upload",
    )
    .await?;
    let path = format!("/api/v4/extract-results/batch/{}", path_segment(&batch));
    let zip_url = loop {
        tokio::time::sleep(call.poll_every()).await;
        let answer = call
            .api(Method::GET, &path, None, true, "a progress check")
            .await?;
        let progress = data_of(call, &answer, "a progress check")?;
        let result = &progress["extract_result"][0];
        match result["state"].as_str().unwrap_or("pending") {
            "done" => {
                break text(result, "full_zip_url")
                    .ok_or_else(|| malformed(call, "a progress check"))?;
            }
            "failed" => return Err(task_failed(call, result)),
            _ => {}
        }
    };
    let zip = call
        .link(
            Method::GET,
            &zip_url,
            None,
            MINERU_ZIP_MAX_BYTES,
            "the result download",
        )
        .await?;
    markdown_from_zip(&zip)
}

async fn agent(call: &Call<'_>, name: &str, bytes: Vec<u8>) -> Result<String, Failed> {
    let body = json!({ "file_name": name });
    let answer = call
        .api(
            Method::POST,
            "/api/v1/agent/parse/file",
            Some(json_body(&body)),
            false,
            "the upload request",
        )
        .await?;
    let created = data_of(call, &answer, "the upload request")?;
    let task = text(created, "task_id").ok_or_else(|| malformed(call, "the upload request"))?;
    let upload = text(created, "file_url").ok_or_else(|| malformed(call, "the upload request"))?;
    call.link(
        Method::PUT,
        &upload,
        Some(Bytes::from(bytes)),
        UPLOAD_ANSWER_MAX_BYTES,
        "the upload",
    )
    .await?;
    let path = format!("/api/v1/agent/parse/{}", path_segment(&task));
    let markdown_url = loop {
        tokio::time::sleep(call.poll_every()).await;
        let answer = call
            .api(Method::GET, &path, None, false, "a progress check")
            .await?;
        let progress = data_of(call, &answer, "a progress check")?;
        match progress["state"].as_str().unwrap_or("pending") {
            "done" => {
                break text(progress, "markdown_url")
                    .ok_or_else(|| malformed(call, "a progress check"))?;
            }
            "failed" => return Err(task_failed(call, progress)),
            _ => {}
        }
    };
    let markdown = call
        .link(
            Method::GET,
            &markdown_url,
            None,
            MINERU_MARKDOWN_MAX_BYTES,
            "the result download",
        )
        .await?;
    String::from_utf8(markdown.to_vec()).map_err(|_| {
        failure(
            "parse_upstream_failed",
            "MinerU's Markdown is not UTF-8 text",
        )
    })
}

fn json_body(value: &Value) -> (reqwest::header::HeaderValue, Bytes) {
    (
        content_type("application/json"),
        Bytes::from(value.to_string()),
    )
}

/// `data` of a `{code, msg, data}` answer whose `code` is 0. MinerU's gateway answers
/// a refused token as `{success:false, msgCode, msg}`, without `code`.
fn data_of<'v>(call: &Call<'_>, answer: &'v Value, what: &str) -> Result<&'v Value, Failed> {
    let code = answer.get("code").and_then(Value::as_i64);
    if code == Some(0) {
        return answer
            .get("data")
            .filter(|d| d.is_object())
            .ok_or_else(|| malformed(call, what));
    }
    let Some(said) = answer["msg"].as_str().map(one_line) else {
        return Err(malformed(call, what));
    };
    let code = code
        .map(|c| c.to_string())
        .or_else(|| answer["msgCode"].as_str().map(one_line))
        .unwrap_or_default();
    Err(failure(
        "parse_upstream_failed",
        format!("{} refused {what} (code {code}): {said}", call.name()),
    ))
}

fn text(value: &Value, key: &str) -> Option<String> {
    value[key]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
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

fn task_failed(call: &Call<'_>, result: &Value) -> Failed {
    let said = result["err_msg"]
        .as_str()
        .map(one_line)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "no reason given".into());
    failure(
        "parse_upstream_failed",
        format!("{} could not parse the file: {said}", call.name()),
    )
}

/// The `full.md` of a MinerU result ZIP, within its bounds: at most
/// [`MINERU_ZIP_MAX_ENTRIES`] entries (counted before the directory is parsed),
/// [`MINERU_ZIP_MAX_INFLATED`] bytes inflated and [`MINERU_MARKDOWN_MAX_BYTES`] of
/// Markdown, measured while inflating (a ZIP's own size fields are not believed). A
/// failure carries the reader's own code (`parse_zip_bomb`, `parse_too_large`,
/// `parse_mineru_missing_markdown`, …).
pub fn markdown_from_zip(zip: &[u8]) -> Result<String, Failed> {
    hearth_parse::mineru_result(zip, &zip_limits())
        .map_err(|error| failure(error.code(), error.to_string()))
}

fn zip_limits() -> hearth_parse::Limits {
    let defaults = hearth_parse::Limits::default();
    hearth_parse::Limits {
        max_input_bytes: MINERU_ZIP_MAX_BYTES as u64,
        max_output_bytes: MINERU_MARKDOWN_MAX_BYTES,
        zip: hearth_parse::ZipLimits {
            max_entries: MINERU_ZIP_MAX_ENTRIES,
            max_total_inflated: MINERU_ZIP_MAX_INFLATED,
            max_entry_inflated: MINERU_MARKDOWN_MAX_BYTES as u64,
            ..defaults.zip.clone()
        },
        ..defaults
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_ids_stay_one_path_segment() {
        assert_eq!(path_segment("a1-b_2"), "a1-b_2");
        assert_eq!(path_segment("../x?y"), "%2E%2E%2Fx%3Fy");
    }
}
