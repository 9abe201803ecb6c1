//! The release `dist/` directory, loaded into memory once at start-up and served from
//! there: correct MIME types (`application/wasm` above all), hashed assets cached as
//! immutable, everything else revalidated by ETag, Brotli or gzip chosen by
//! `Accept-Encoding`, and `index.html` for client-side routes. A file's gzip is made
//! when a client first asks for it and kept ([`StaticAssets::is_ready`] says whether a
//! request would have to wait for that): start-up reads files and nothing more, and a
//! file nobody fetches (the diagram library, say) is never compressed. A directory may be packed
//! ([`pack`]): a file stored only as `name.br` (or `name.gz`) is served as `name`, and its
//! Brotli (or gzip) is sent as it is to the clients that take it.
//!
//! Requests are answered by looking a path up in a map built from the directory walk, so a
//! request can never name a file outside `dist/` (there is no filesystem access per
//! request, and so no traversal to defend against). A rebuilt `dist/` is picked up on
//! restart.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::content_coding::{accepts, gzip};

pub mod pack;

/// Cache policy for files whose name carries a content hash.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Cache policy for everything else: always revalidate (cheap, thanks to the ETag).
pub const REVALIDATE: &str = "no-cache";

/// Why `dist/` could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The directory has no `index.html`: the app was not built.
    #[error(
        "{dir} has no index.html: build the app first (`make build`, or \
         `trunk build --release --offline`), or point --dist-dir / HEARTH_DIST_DIR at a build"
    )]
    NotBuilt {
        /// The directory that was searched.
        dir: PathBuf,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A packed file (`name.br` or `name.gz`) does not decode, or decodes past
    /// [`pack::MAX_UNPACKED`].
    #[error("{path} is not a packed file this server can serve: {reason}")]
    Packed {
        /// The `.br` or `.gz` file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// One file of `dist/`, ready to send.
#[derive(Debug)]
struct Asset {
    body: Bytes,
    /// Made on the first request that takes gzip (or read from a packed `name.gz`);
    /// `None` when gzip would not make the file smaller or its type is not compressible.
    gzip: OnceLock<Option<Bytes>>,
    brotli: Option<Bytes>,
    content_type: &'static str,
    etag: HeaderValue,
    cache_control: &'static str,
}

/// All of `dist/`, in memory.
#[derive(Debug)]
pub struct StaticAssets {
    files: HashMap<String, Asset>,
    inline_script_hashes: Vec<String>,
}

impl StaticAssets {
    /// Reads every file under `dir`. Fails if `index.html` is missing.
    pub fn load(dir: &Path) -> Result<Self, LoadError> {
        let mut files = HashMap::new();
        for (relative, content) in pack::read_dir(dir)? {
            files.insert(relative.clone(), Asset::new(&relative, content));
        }
        let index = files.get("index.html").ok_or_else(|| LoadError::NotBuilt {
            dir: dir.to_path_buf(),
        })?;
        let html = String::from_utf8_lossy(&index.body);
        let inline_script_hashes = inline_scripts(&html)
            .into_iter()
            .map(|script| {
                let digest = Sha256::digest(script.as_bytes());
                format!("'sha256-{}'", base64_standard(&digest))
            })
            .collect();
        Ok(Self {
            files,
            inline_script_hashes,
        })
    }

    /// CSP source expressions (`'sha256-…'`) for each inline `<script>` in `index.html`
    /// (Trunk's module loader), so the CSP can allow exactly them and no other inline code.
    pub fn inline_script_hashes(&self) -> &[String] {
        &self.inline_script_hashes
    }

    /// Number of files served.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file is served (never true after a successful load).
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Whether answering `path` for a client sending `headers` is a lookup only: false
    /// when the answer needs a gzip not made yet, which takes a while for a large file
    /// (call [`Self::respond`] off the async runtime then).
    pub fn is_ready(&self, path: &str, headers: &HeaderMap) -> bool {
        self.asset(path).is_none_or(|asset| {
            asset.gzip.get().is_some()
                || (asset.brotli.is_some() && accepts(headers, "br"))
                || !accepts(headers, "gzip")
        })
    }

    /// The asset `path` names (`index.html` for a client route).
    fn asset(&self, path: &str) -> Option<&Asset> {
        let key = path.trim_start_matches('/');
        let key = if key.is_empty() { "index.html" } else { key };
        match self.files.get(key) {
            Some(asset) => Some(asset),
            None if is_client_route(key) => self.files.get("index.html"),
            None => None,
        }
    }

    /// Answers a GET or HEAD for `path` (the URL path, without the query).
    pub fn respond(&self, method: &Method, path: &str, headers: &HeaderMap) -> Response {
        if method != Method::GET && method != Method::HEAD {
            let mut response =
                (StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed").into_response();
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return response;
        }
        match self.asset(path) {
            Some(asset) => asset.respond(method, headers),
            None => (StatusCode::NOT_FOUND, "Not Found").into_response(),
        }
    }
}

impl Asset {
    fn new(relative: &str, content: pack::Content) -> Self {
        let pack::Content { body, gzip, brotli } = content;
        let content_type = content_type(relative);
        let digest = Sha256::digest(&body);
        let etag = HeaderValue::from_str(&format!("\"{}\"", hex(&digest[..12])))
            .unwrap_or_else(|_| HeaderValue::from_static("\"0\""));
        let gzip = match gzip {
            Some(packed) => OnceLock::from(Some(Bytes::from(packed))),
            None if is_compressible(content_type) => OnceLock::new(),
            None => OnceLock::from(None),
        };
        let cache_control = if has_content_hash(relative) {
            IMMUTABLE
        } else {
            REVALIDATE
        };
        Self {
            body: Bytes::from(body),
            gzip,
            brotli: brotli.map(Bytes::from),
            content_type,
            etag,
            cache_control,
        }
    }

    /// The gzip, made now if this is the first request for it.
    fn gzip(&self) -> Option<&Bytes> {
        self.gzip
            .get_or_init(|| {
                let compressed = gzip(&self.body);
                (compressed.len() < self.body.len()).then(|| Bytes::from(compressed))
            })
            .as_ref()
    }

    fn respond(&self, method: &Method, headers: &HeaderMap) -> Response {
        let mut builder = Response::builder()
            .header(header::CONTENT_TYPE, self.content_type)
            .header(header::CACHE_CONTROL, self.cache_control)
            .header(header::ETAG, self.etag.clone())
            .header(header::VARY, "Accept-Encoding");
        if etag_matches(headers, &self.etag) {
            return builder
                .status(StatusCode::NOT_MODIFIED)
                .body(Body::empty())
                .unwrap_or_default();
        }
        let (bytes, coding) = match &self.brotli {
            Some(compressed) if accepts(headers, "br") => (compressed, Some("br")),
            _ => match accepts(headers, "gzip").then(|| self.gzip()).flatten() {
                Some(compressed) => (compressed, Some("gzip")),
                None => (&self.body, None),
            },
        };
        if let Some(coding) = coding {
            builder = builder.header(header::CONTENT_ENCODING, coding);
        }
        builder = builder.header(header::CONTENT_LENGTH, bytes.len());
        let body = if method == Method::HEAD {
            Body::empty()
        } else {
            Body::from(bytes.clone())
        };
        builder
            .status(StatusCode::OK)
            .body(body)
            .unwrap_or_default()
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<(), LoadError> {
    let entries = std::fs::read_dir(dir).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => LoadError::NotBuilt {
            dir: root.to_path_buf(),
        },
        _ => LoadError::Io {
            path: dir.to_path_buf(),
            source,
        },
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| LoadError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|source| LoadError::Io {
            path: path.clone(),
            source,
        })?;
        if kind.is_dir() {
            walk(root, &path, out)?;
        } else if kind.is_file() {
            let relative = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            out.push((relative, path));
        }
    }
    Ok(())
}

/// A path without a file extension in its last segment is a client-side route
/// (`/c/123`, `/settings`), answered with `index.html`. A missing file (`/x.js`) is a 404:
/// answering it with HTML would hide the error behind a MIME-type failure.
fn is_client_route(key: &str) -> bool {
    let last = key.rsplit('/').next().unwrap_or(key);
    !last.contains('.')
}

/// Trunk names hashed outputs `<name>-<16 hex digits>.<ext>` (and `_bg.wasm`);
/// `scripts/build-app-wasm.sh` puts the split app in `app-<16 hex digits>/`.
fn has_content_hash(relative: &str) -> bool {
    if let Some((dir, _)) = relative.split_once('/')
        && dir
            .strip_prefix("app-")
            .is_some_and(|hash| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return true;
    }
    let name = relative.rsplit('/').next().unwrap_or(relative);
    let stem = name.split('.').next().unwrap_or(name);
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-')
        .is_some_and(|(_, hash)| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The MIME type for a file name. Unknown types are served as bytes, never sniffed.
pub fn content_type(name: &str) -> &'static str {
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    match extension.as_deref() {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("webmanifest") => "application/manifest+json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        Some("avif") => "image/avif",
        Some("gif") => "image/gif",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn is_compressible(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || matches!(
            content_type,
            "application/wasm" | "application/json" | "application/manifest+json" | "image/svg+xml"
        )
}

fn etag_matches(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|candidate| {
            let candidate = candidate.trim();
            candidate == "*" || candidate.trim_start_matches("W/") == etag.to_str().unwrap_or("")
        })
}

/// The contents of every `<script>` element without a `src` attribute.
fn inline_scripts(html: &str) -> Vec<String> {
    let mut scripts = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let after = &rest[start..];
        let Some(tag_end) = after.find('>') else {
            break;
        };
        let tag = &after[..tag_end];
        let body_start = &after[tag_end + 1..];
        let Some(close) = body_start.find("</script>") else {
            break;
        };
        if !tag.contains("src=") {
            scripts.push(body_start[..close].to_string());
        }
        rest = &body_start[close..];
    }
    scripts
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn base64_standard(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_trunk_hashed_names() {
        assert!(has_content_hash("hearth-app-8f1c2a3b4d5e6f70_bg.wasm"));
        assert!(has_content_hash("hearth-app-8f1c2a3b4d5e6f70.js"));
        assert!(has_content_hash("main-0123456789abcdef.css"));
        assert!(!has_content_hash("index.html"));
        assert!(!has_content_hash("boot.js"));
        assert!(!has_content_hash("icons/icon-192.png"));
        // The translation catalogs keep stable names and are revalidated, not immutable.
        assert!(!has_content_hash("locales/zh-CN.json"));
        assert!(!has_content_hash("locales/ja.json"));
        assert!(!has_content_hash("app-notahexhash12345.js"));
        assert!(has_content_hash("app-0123456789abcdef/split_x_1.wasm"));
        assert!(has_content_hash("app-0123456789abcdef/hearth-app.js"));
        assert!(!has_content_hash("app-0123456789abcdeg/hearth-app.js"));
        assert!(!has_content_hash("app-0123/hearth-app.js"));
    }

    #[test]
    fn wasm_and_scripts_get_their_types() {
        assert_eq!(content_type("a_bg.wasm"), "application/wasm");
        assert_eq!(content_type("a.JS"), "text/javascript; charset=utf-8");
        assert_eq!(
            content_type("manifest.webmanifest"),
            "application/manifest+json"
        );
        assert_eq!(content_type("noextension"), "application/octet-stream");
    }

    #[test]
    fn client_routes_are_paths_without_extensions() {
        assert!(is_client_route("c/123"));
        assert!(is_client_route("settings"));
        assert!(!is_client_route("missing.js"));
        assert!(!is_client_route("icons/none.png"));
    }

    #[test]
    fn finds_inline_scripts_only() {
        let html = r#"<head><script src="/boot.js"></script>
            <script type="module">import init from '/a.js';init();</script></head>"#;
        assert_eq!(
            inline_scripts(html),
            vec!["import init from '/a.js';init();".to_string()]
        );
    }

    #[test]
    fn brotli_then_gzip_then_the_plain_body_by_what_the_client_takes() {
        let body = b"let x = 1; let x = 1; let x = 1; let x = 1; let x = 1;".to_vec();
        let content = pack::Content {
            body: body.clone(),
            gzip: Some(b"gz".to_vec()),
            brotli: Some(b"br".to_vec()),
        };
        let asset = Asset::new("a.js", content);
        let send = |accept: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static(accept));
            let response = asset.respond(&Method::GET, &headers);
            let coding = response
                .headers()
                .get(header::CONTENT_ENCODING)
                .map(|v| v.to_str().unwrap().to_string());
            let length: usize = response.headers()[header::CONTENT_LENGTH]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            (coding, length)
        };
        assert_eq!(send("gzip, deflate, br"), (Some("br".into()), 2));
        assert_eq!(send("gzip"), (Some("gzip".into()), 2));
        assert_eq!(send("identity"), (None, body.len()));
    }

    #[test]
    fn a_files_gzip_is_made_on_the_first_request_that_takes_it_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let script = "let answer = 42; ".repeat(200);
        std::fs::write(dir.path().join("index.html"), "<p>hi</p>").unwrap();
        std::fs::write(dir.path().join("a.js"), &script).unwrap();
        std::fs::write(dir.path().join("tiny.js"), "1").unwrap();
        std::fs::write(dir.path().join("i.png"), script.as_bytes()).unwrap();
        let assets = StaticAssets::load(dir.path()).unwrap();
        let accepting = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static(value));
            headers
        };
        let coding = |path: &str, headers: &HeaderMap| {
            let response = assets.respond(&Method::GET, path, headers);
            response
                .headers()
                .get(header::CONTENT_ENCODING)
                .map(|v| v.to_str().unwrap().to_string())
        };
        let gzip = accepting("gzip");
        // Loading compressed nothing; a client without gzip never makes one.
        assert!(!assets.is_ready("/a.js", &gzip));
        assert!(assets.is_ready("/a.js", &accepting("identity")));
        assert_eq!(coding("/a.js", &accepting("identity")), None);
        assert!(!assets.is_ready("/a.js", &gzip));
        // The first gzip request makes it; later ones only look it up.
        assert_eq!(coding("/a.js", &gzip).as_deref(), Some("gzip"));
        assert!(assets.is_ready("/a.js", &gzip));
        assert_eq!(coding("/a.js", &gzip).as_deref(), Some("gzip"));
        // A file gzip does not shrink is sent plain, and that is remembered too.
        assert_eq!(coding("/tiny.js", &gzip), None);
        assert!(assets.is_ready("/tiny.js", &gzip));
        // An image is never compressed; unknown paths and client routes answer at once.
        assert!(assets.is_ready("/i.png", &gzip));
        assert_eq!(coding("/i.png", &gzip), None);
        assert!(assets.is_ready("/missing.js", &gzip));
        assert!(!assets.is_ready("/settings", &gzip));
        assert_eq!(coding("/settings", &gzip), None, "index.html is too small");
        assert!(assets.is_ready("/", &gzip));
    }
}
