//! The built-in web page reader (`builtin:web-reader`, `read_web_page`): one GET of a
//! URL the *model* chose, so a [`Target::RemoteChosen`] through `safe_fetch`: public
//! HTTPS only in every mode, never the user's machine, network or the edge itself, on
//! every redirect hop too. A prompt injection in a page, document or tool result can
//! make a model ask for any URL; this is what keeps it from reading the user's router,
//! a local model server or the edge and leaking the text.
//!
//! The answer is the page's text (HTML rendered to plain text, scripts and styles
//! dropped), at most the asked number of characters, as a bounded [`ToolResult`].

use hearth_core::plugin::builtin;
use hearth_core::plugin::result::{MAX_RESPONSE_BYTES, ToolResult};
use hearth_core::url_policy::Target;
use serde_json::Value;

use crate::safe_fetch::{FetchError, Limits, OutboundRequest, SafeFetch};

/// Reads the page `args.url` names, as text of at most `args.maxChars` characters.
/// A refused or failed fetch is an error; a page that answered with an error status or
/// with something other than text is a tool result saying so.
pub async fn read_web_page(fetch: &SafeFetch, args: &Value) -> Result<ToolResult, FetchError> {
    let url = args["url"].as_str().unwrap_or_default();
    let max = args["maxChars"]
        .as_u64()
        .unwrap_or(builtin::DEFAULT_PAGE_CHARS)
        .min(builtin::MAX_PAGE_CHARS) as usize;
    let response = fetch
        .with_limits(Limits {
            max_body_bytes: MAX_RESPONSE_BYTES,
            ..fetch.limits()
        })
        .fetch(OutboundRequest::get(Target::RemoteChosen, url))
        .await?;
    if !response.status.is_success() {
        return Ok(ToolResult::error(&format!(
            "the page answered HTTP {}",
            response.status.as_u16()
        )));
    }
    let content_type = response
        .headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let text = if content_type.contains("html") || content_type.is_empty() {
        html2text::from_read(&response.body[..], 100).unwrap_or_default()
    } else if content_type.starts_with("text/") || content_type.contains("json") {
        String::from_utf8_lossy(&response.body).into_owned()
    } else {
        return Ok(ToolResult::error(&format!(
            "the page is not text ({content_type})"
        )));
    };
    let mut result = ToolResult::text(text.trim());
    if result.text.chars().count() > max {
        result.text = result.text.chars().take(max).collect();
        result.truncated = true;
    }
    Ok(result)
}
