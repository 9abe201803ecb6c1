//! An MCP server's resources, as the composer's `@` menu offers them: `resources/list`
//! read into bounded [`McpResource`]s (what the server says is data, cut to size), and a
//! `resources/read` result turned into files to attach ([`resource_files`]): text as
//! UTF-8, a blob decoded from base64, each named from its URI (never a path) with an
//! extension that says its type. The attachments' own checks (type from the bytes, size
//! limits) then apply as to any chosen file.

use base64::Engine;
use serde::Serialize;
use serde_json::Value;

/// The most resources read from one server.
pub const MAX_RESOURCES: usize = 100;
/// The most characters of a resource's URI.
pub const MAX_URI_CHARS: usize = 2_048;
/// The most characters kept of a name, title or description.
pub const MAX_TEXT_CHARS: usize = 500;
/// The most contents attached from one read.
pub const MAX_CONTENTS: usize = 10;
/// The most characters of a file name made from a URI.
const MAX_FILE_NAME_CHARS: usize = 100;

/// One resource of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpResource {
    /// Its URI (what `resources/read` asks for).
    pub uri: String,
    /// Its title, else its name, else its URI (bounded; shown as text).
    pub title: String,
    /// What the server says it is (bounded; shown as text).
    pub description: String,
    /// The type the server says it has, if any.
    pub mime_type: Option<String>,
}

/// `text` trimmed and cut to [`MAX_TEXT_CHARS`].
fn bounded(text: &str) -> String {
    text.trim().chars().take(MAX_TEXT_CHARS).collect()
}

/// The resources of a `resources/list` result (`{"resources": [...]}`): those with a
/// usable URI, each once, at most [`MAX_RESOURCES`].
pub fn read_resource_list(result: &Value) -> Vec<McpResource> {
    let mut seen = std::collections::HashSet::new();
    result["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|resource| {
            let uri = resource["uri"].as_str().filter(|u| {
                !u.is_empty()
                    && u.chars().count() <= MAX_URI_CHARS
                    && !u.chars().any(char::is_control)
            })?;
            if !seen.insert(uri.to_string()) {
                return None;
            }
            let title = [&resource["title"], &resource["name"]]
                .into_iter()
                .filter_map(Value::as_str)
                .map(bounded)
                .find(|t| !t.is_empty())
                .unwrap_or_else(|| bounded(uri));
            Some(McpResource {
                uri: uri.to_string(),
                title,
                description: bounded(resource["description"].as_str().unwrap_or_default()),
                mime_type: resource["mimeType"]
                    .as_str()
                    .map(bounded)
                    .filter(|m| !m.is_empty()),
            })
        })
        .take(MAX_RESOURCES)
        .collect()
}

/// One file made from a resource's contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceFile {
    /// Its name: the URI's last segment, made safe, with an extension for its type.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Why a `resources/read` result gives no file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
pub enum ResourceError {
    /// Not a `resources/read` result (no `contents` list).
    #[error("not a resource")]
    Malformed,
    /// Contents, but none with text or a blob.
    #[error("the resource is empty")]
    Empty,
    /// A blob that is not base64.
    #[error("the resource's data is not base64")]
    BadBlob,
}

/// The extension a type of this mime type is named with (`None`: keep the name's).
fn extension_for(mime: &str) -> Option<&'static str> {
    let mime = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    Some(match mime.as_str() {
        "text/plain" => "txt",
        "text/markdown" => "md",
        "text/html" => "html",
        "text/csv" => "csv",
        "application/json" => "json",
        "application/pdf" => "pdf",
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ if mime.starts_with("text/") => "txt",
        _ => return None,
    })
}

/// A file name from `uri`: its last segment (no query or fragment), each character that
/// is not a letter, digit, `.`, `-` or `_` made `-`, bounded; `resource` when nothing is
/// left; the extension of `mime` added unless the name has it.
pub fn file_name(uri: &str, mime: Option<&str>) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or_default();
    let last = path
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or_default();
    let mut name: String = last
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .take(MAX_FILE_NAME_CHARS)
        .collect();
    name = name.trim_matches(['.', '-']).to_string();
    if name.is_empty() {
        name = "resource".to_string();
    }
    if let Some(extension) = mime.and_then(extension_for)
        && !name
            .to_ascii_lowercase()
            .ends_with(&format!(".{extension}"))
    {
        name.push('.');
        name.push_str(extension);
    }
    name
}

/// The files of a `resources/read` result: each content with text or a blob, at most
/// [`MAX_CONTENTS`].
pub fn resource_files(result: &Value) -> Result<Vec<ResourceFile>, ResourceError> {
    let contents = result["contents"]
        .as_array()
        .ok_or(ResourceError::Malformed)?;
    let mut files = Vec::new();
    for content in contents.iter().take(MAX_CONTENTS) {
        let uri = content["uri"].as_str().unwrap_or_default();
        let mime = content["mimeType"].as_str();
        let (bytes, kind) = if let Some(text) = content["text"].as_str() {
            (text.as_bytes().to_vec(), mime.or(Some("text/plain")))
        } else if let Some(blob) = content["blob"].as_str() {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob.trim())
                .map_err(|_| ResourceError::BadBlob)?;
            (bytes, mime)
        } else {
            continue;
        };
        if bytes.is_empty() {
            continue;
        }
        files.push(ResourceFile {
            name: file_name(uri, kind),
            bytes,
        });
    }
    if files.is_empty() {
        return Err(ResourceError::Empty);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_keeps_usable_resources_once_titled_and_bounded() {
        let listed = read_resource_list(&json!({"resources": [
            {"uri": "demo://resource/static/document/1", "name": "Resource 1", "mimeType": "text/plain",
             "description": "A text resource"},
            {"uri": "demo://resource/static/document/1", "name": "twice"},
            {"uri": "demo://two", "title": "  Two  ", "name": "two"},
            {"uri": "", "name": "no uri"},
            {"uri": "demo://bell\u{7}", "name": "control"},
            {"name": "no uri at all"},
            {"uri": "demo://bare"}
        ]}));
        let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "demo://resource/static/document/1",
                "demo://two",
                "demo://bare"
            ]
        );
        assert_eq!(listed[0].title, "Resource 1");
        assert_eq!(listed[0].mime_type.as_deref(), Some("text/plain"));
        assert_eq!(listed[1].title, "Two");
        assert_eq!(
            listed[2].title, "demo://bare",
            "the URI stands in for a name"
        );
        let many: Vec<Value> = (0..MAX_RESOURCES + 5)
            .map(|i| json!({"uri": format!("demo://{i}"), "description": "d".repeat(MAX_TEXT_CHARS * 2)}))
            .collect();
        let listed = read_resource_list(&json!({ "resources": many }));
        assert_eq!(listed.len(), MAX_RESOURCES);
        assert_eq!(listed[0].description.chars().count(), MAX_TEXT_CHARS);
        assert!(read_resource_list(&json!([])).is_empty());
    }

    #[test]
    fn a_file_is_named_from_its_uri_never_with_a_path() {
        let cases = [
            (
                "demo://resource/static/document/1",
                Some("text/plain"),
                "1.txt",
            ),
            ("file:///etc/passwd", None, "passwd"),
            (
                "file:///etc/../../secret.md",
                Some("text/markdown"),
                "secret.md",
            ),
            (
                "https://example.com/a b.MD?x=1#top",
                Some("text/markdown"),
                "a-b.MD",
            ),
            (
                "https://example.com/",
                Some("application/json"),
                "example.com.json",
            ),
            ("", Some("image/png"), "resource.png"),
            (
                "urn:isbn:0451450523",
                Some("text/plain; charset=utf-8"),
                "0451450523.txt",
            ),
            ("demo://..", None, "resource"),
            ("demo://x/report.pdf", Some("application/pdf"), "report.pdf"),
            ("demo://x/notes", Some("text/x-weird"), "notes.txt"),
        ];
        for (uri, mime, name) in cases {
            assert_eq!(file_name(uri, mime), name, "{uri}");
        }
        let long = format!("demo://{}", "n".repeat(300));
        assert_eq!(file_name(&long, None).chars().count(), MAX_FILE_NAME_CHARS);
    }

    #[test]
    fn contents_become_files_text_as_utf8_and_blobs_decoded() {
        let read = json!({"contents": [
            {"uri": "demo://resource/static/document/1", "mimeType": "text/plain", "text": "Resource 1: plain"},
            {"uri": "demo://resource/static/blob/2", "mimeType": "application/octet-stream", "blob": "SGVsbG8="},
            {"uri": "demo://nothing"},
            {"uri": "demo://empty", "text": ""}
        ]});
        let files = resource_files(&read).unwrap();
        assert_eq!(
            files,
            vec![
                ResourceFile {
                    name: "1.txt".into(),
                    bytes: b"Resource 1: plain".to_vec()
                },
                ResourceFile {
                    name: "2".into(),
                    bytes: b"Hello".to_vec()
                },
            ]
        );
        assert_eq!(resource_files(&json!({})), Err(ResourceError::Malformed));
        assert_eq!(
            resource_files(&json!({"contents": [{"uri": "x"}]})),
            Err(ResourceError::Empty)
        );
        assert_eq!(
            resource_files(&json!({"contents": [{"uri": "x", "blob": "not base64!"}]})),
            Err(ResourceError::BadBlob)
        );
        let many: Vec<Value> = (0..MAX_CONTENTS + 3)
            .map(|i| json!({"uri": format!("d://{i}"), "text": "t"}))
            .collect();
        assert_eq!(
            resource_files(&json!({ "contents": many })).unwrap().len(),
            MAX_CONTENTS
        );
    }
}
