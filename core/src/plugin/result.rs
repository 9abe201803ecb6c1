//! The one shape every tool result takes, REST or MCP, bounded before it reaches the
//! browser or a model's context: text (at most [`MAX_RESULT_CHARS`], marked when cut),
//! images (at most [`MAX_IMAGES`], each within [`MAX_IMAGE_BASE64_CHARS`]), MCP
//! structured content (dropped when too large), and an error flag with a short message.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest upstream answer one tool call reads, in bytes (a REST call's response,
/// the web reader's page): the edge stops reading past it.
pub const MAX_RESPONSE_BYTES: usize = 2 * 1024 * 1024;
/// The most characters of result text kept.
pub const MAX_RESULT_CHARS: usize = 512 * 1024;
/// The most characters of an error message kept.
pub const MAX_ERROR_CHARS: usize = 4_000;
/// The most images kept from one result.
pub const MAX_IMAGES: usize = 4;
/// The largest image kept, in base64 characters.
pub const MAX_IMAGE_BASE64_CHARS: usize = 4 * 1024 * 1024;

/// An image a tool returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolImage {
    /// Its MIME type (`image/png`, …).
    pub mime_type: String,
    /// Base64 data.
    pub data: String,
}

/// A tool's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The text the model reads.
    pub text: String,
    /// Whether `text` was cut at [`MAX_RESULT_CHARS`].
    #[serde(default)]
    pub truncated: bool,
    /// Images, for the user (and vision models).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ToolImage>,
    /// MCP structured content, when small enough.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// Whether the tool reported an error.
    #[serde(default)]
    pub is_error: bool,
}

fn cut(text: &str, max: usize) -> (String, bool) {
    if text.chars().count() <= max {
        return (text.to_string(), false);
    }
    (text.chars().take(max).collect(), true)
}

impl ToolResult {
    /// A result with `text`, bounded.
    pub fn text(text: &str) -> Self {
        let (text, truncated) = cut(text, MAX_RESULT_CHARS);
        Self {
            text,
            truncated,
            ..Default::default()
        }
    }

    /// An error result, its message bounded.
    pub fn error(message: &str) -> Self {
        Self {
            text: cut(message, MAX_ERROR_CHARS).0,
            is_error: true,
            ..Default::default()
        }
    }

    /// A REST response: the status decides success; the body is the text.
    pub fn from_http(status: u16, body: &str) -> Self {
        if (200..300).contains(&status) {
            Self::text(body)
        } else {
            Self::error(&format!("HTTP {status}: {}", body.trim()))
        }
    }

    /// An MCP `tools/call` result (`content`, `structuredContent`, `isError`).
    pub fn from_mcp(result: &Value) -> Self {
        let mut texts = Vec::new();
        let mut images = Vec::new();
        for block in result
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    if let Some(text) = block.get("text").and_then(Value::as_str) {
                        texts.push(text.to_string());
                    }
                }
                Some("image") => {
                    let data = block.get("data").and_then(Value::as_str).unwrap_or("");
                    let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("");
                    if images.len() < MAX_IMAGES
                        && mime.starts_with("image/")
                        && !data.is_empty()
                        && data.len() <= MAX_IMAGE_BASE64_CHARS
                    {
                        images.push(ToolImage {
                            mime_type: mime.to_string(),
                            data: data.to_string(),
                        });
                    } else {
                        texts.push(format!("[image {mime} omitted]"));
                    }
                }
                Some("resource") => {
                    let resource = block.get("resource");
                    if let Some(text) = resource.and_then(|r| r.get("text")).and_then(Value::as_str)
                    {
                        texts.push(text.to_string());
                    } else if let Some(uri) =
                        resource.and_then(|r| r.get("uri")).and_then(Value::as_str)
                    {
                        texts.push(format!("[resource {uri}]"));
                    }
                }
                Some("resource_link") => {
                    if let Some(uri) = block.get("uri").and_then(Value::as_str) {
                        texts.push(format!("[resource {uri}]"));
                    }
                }
                Some(other) => texts.push(format!("[{other} content omitted]")),
                None => {}
            }
        }
        let structured = result
            .get("structuredContent")
            .filter(|v| !v.is_null())
            .cloned();
        if texts.is_empty()
            && let Some(structured) = &structured
        {
            texts.push(structured.to_string());
        }
        let joined = texts.join("\n");
        let is_error = result.get("isError") == Some(&Value::Bool(true));
        if is_error {
            return Self {
                images,
                ..Self::error(if joined.is_empty() {
                    "the tool reported an error"
                } else {
                    &joined
                })
            };
        }
        let mut out = Self::text(&joined);
        out.images = images;
        out.structured = structured.filter(|s| s.to_string().chars().count() <= MAX_RESULT_CHARS);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mcp_results_keep_text_images_and_structure() {
        let result = ToolResult::from_mcp(&json!({
            "content": [
                {"type": "text", "text": "Sum: 5"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "test://static/1", "text": "Resource 1"}},
                {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}
            ],
            "structuredContent": {"sum": 5}
        }));
        assert_eq!(result.text, "Sum: 5\nResource 1\n[audio content omitted]");
        assert_eq!(result.images.len(), 1);
        assert_eq!(result.structured, Some(json!({"sum": 5})));
        assert!(!result.is_error && !result.truncated);
    }

    #[test]
    fn errors_and_oversize_results_are_bounded() {
        let error = ToolResult::from_mcp(
            &json!({"isError": true, "content": [{"type": "text", "text": "No access"}]}),
        );
        assert!(error.is_error);
        assert_eq!(error.text, "No access");
        let silent = ToolResult::from_mcp(&json!({"isError": true}));
        assert_eq!(silent.text, "the tool reported an error");
        let big = ToolResult::from_mcp(
            &json!({"content": [{"type": "text", "text": "x".repeat(MAX_RESULT_CHARS + 10)}]}),
        );
        assert!(big.truncated && !big.is_error);
        assert_eq!(big.text.chars().count(), MAX_RESULT_CHARS);
        let many_images: Vec<Value> = (0..10)
            .map(|_| json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}))
            .collect();
        let images = ToolResult::from_mcp(&json!({"content": many_images}));
        assert_eq!(images.images.len(), MAX_IMAGES);
        assert_eq!(images.text.matches("omitted").count(), 6);
        let not_image = ToolResult::from_mcp(
            &json!({"content": [{"type": "image", "data": "<svg/>", "mimeType": "text/html"}]}),
        );
        assert!(not_image.images.is_empty());
    }

    #[test]
    fn http_results_follow_the_status() {
        assert_eq!(
            ToolResult::from_http(200, "{\"ok\":true}").text,
            "{\"ok\":true}"
        );
        let failed = ToolResult::from_http(404, " not found ");
        assert!(failed.is_error);
        assert_eq!(failed.text, "HTTP 404: not found");
        let long = ToolResult::from_http(500, &"e".repeat(10_000));
        assert_eq!(long.text.chars().count(), MAX_ERROR_CHARS);
        assert_eq!(
            serde_json::to_value(ToolResult::text("hi")).unwrap(),
            json!({"text": "hi", "truncated": false, "isError": false})
        );
    }
}
