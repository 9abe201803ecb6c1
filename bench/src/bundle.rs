//! The critical path of the release app: what `index.html` makes the browser fetch before
//! the app is usable (scripts, stylesheets, the wasm module), raw and gzip-compressed at
//! level 9 (what the edge serves with `Content-Encoding: gzip`).

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;

/// The shell's budget: WASM + JS + CSS on the critical path, gzip bytes (DESIGN.md).
pub const SHELL_BUDGET_GZIP_BYTES: u64 = 350_000;

/// The kind of a critical-path file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AssetKind {
    /// The WebAssembly module.
    Wasm,
    /// JavaScript (wasm-bindgen glue, boot script).
    Js,
    /// Stylesheets.
    Css,
}

impl AssetKind {
    fn of(path: &str) -> Option<Self> {
        match path.rsplit_once('.').map(|(_, ext)| ext) {
            Some("wasm") => Some(Self::Wasm),
            Some("js" | "mjs") => Some(Self::Js),
            Some("css") => Some(Self::Css),
            _ => None,
        }
    }

    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Wasm => "wasm",
            Self::Js => "js",
            Self::Css => "css",
        }
    }
}

/// One file's sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetSize {
    /// Its path under `dist/`.
    pub path: String,
    /// What it is.
    pub kind: AssetKind,
    /// Bytes on disk.
    pub raw: u64,
    /// Bytes after gzip -9.
    pub gzip: u64,
}

/// The critical path, file by file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleReport {
    /// The files, sorted by kind then path.
    pub assets: Vec<AssetSize>,
}

impl BundleReport {
    /// Sum of raw bytes.
    pub fn total_raw(&self) -> u64 {
        self.assets.iter().map(|a| a.raw).sum()
    }

    /// Sum of gzip bytes.
    pub fn total_gzip(&self) -> u64 {
        self.assets.iter().map(|a| a.gzip).sum()
    }

    /// Gzip bytes of one kind.
    pub fn gzip_of(&self, kind: AssetKind) -> u64 {
        self.assets
            .iter()
            .filter(|a| a.kind == kind)
            .map(|a| a.gzip)
            .sum()
    }
}

/// Why a measurement failed.
#[derive(Debug)]
pub enum MeasureError {
    /// `index.html` or a file it names could not be read.
    Read(String, std::io::Error),
    /// `index.html` names no wasm module: not a Trunk release build.
    NoWasm,
}

impl std::fmt::Display for MeasureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Read(path, error) => write!(f, "cannot read {path}: {error}"),
            Self::NoWasm => f.write_str("index.html loads no .wasm file: is this a Trunk build?"),
        }
    }
}

impl std::error::Error for MeasureError {}

/// Same-origin absolute paths (`/x.js`) that `html` references in `href`, `src` or
/// Trunk's `module_or_path`, in order of appearance, without duplicates.
pub fn referenced_paths(html: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for marker in ["href=\"", "src=\"", "module_or_path: '", "from '"] {
        let quote = marker.chars().last().unwrap_or('"');
        let mut rest = html;
        while let Some(start) = rest.find(marker) {
            let after = &rest[start + marker.len()..];
            let Some(end) = after.find(quote) else { break };
            let value = &after[..end];
            if value.starts_with('/')
                && !value.starts_with("//")
                && !found.iter().any(|f| f == value)
            {
                found.push(value.to_string());
            }
            rest = &after[end..];
        }
    }
    found
}

fn gzip_len(bytes: &[u8]) -> u64 {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    let _ = encoder.write_all(bytes);
    encoder.finish().map(|v| v.len() as u64).unwrap_or(0)
}

/// Measures the critical path of the build in `dist`.
pub fn measure(dist: &Path) -> Result<BundleReport, MeasureError> {
    let index_path = dist.join("index.html");
    let html = std::fs::read_to_string(&index_path)
        .map_err(|e| MeasureError::Read(index_path.display().to_string(), e))?;
    let mut assets = Vec::new();
    for path in referenced_paths(&html) {
        let Some(kind) = AssetKind::of(&path) else {
            continue;
        };
        let file = dist.join(path.trim_start_matches('/'));
        let bytes =
            std::fs::read(&file).map_err(|e| MeasureError::Read(file.display().to_string(), e))?;
        assets.push(AssetSize {
            path,
            kind,
            raw: bytes.len() as u64,
            gzip: gzip_len(&bytes),
        });
    }
    if !assets.iter().any(|a| a.kind == AssetKind::Wasm) {
        return Err(MeasureError::NoWasm);
    }
    assets.sort_by(|a, b| (a.kind, &a.path).cmp(&(b.kind, &b.path)));
    Ok(BundleReport { assets })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_kind_of_reference_once() {
        let html = r#"<script src="/boot.js"></script>
            <link rel="stylesheet" href="/main-1.css"/>
            <link rel="icon" href="/icons/icon.svg"/>
            <a href="https://example.com/x.js">x</a>
            <script type="module">import init from '/app-1.js';
            await init({ module_or_path: '/app-1_bg.wasm' });</script>
            <link rel="modulepreload" href="/app-1.js">"#;
        assert_eq!(
            referenced_paths(html),
            vec![
                "/main-1.css",
                "/icons/icon.svg",
                "/app-1.js",
                "/boot.js",
                "/app-1_bg.wasm"
            ]
        );
    }

    #[test]
    fn measures_a_build_and_refuses_one_without_wasm() {
        let dir = std::env::temp_dir().join(format!("hearth-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("index.html"),
            r#"<link href="/a.css"><script src="/b.js"></script>"#,
        )
        .unwrap();
        std::fs::write(dir.join("a.css"), "body{}".repeat(100)).unwrap();
        std::fs::write(dir.join("b.js"), "x()".repeat(100)).unwrap();
        assert!(matches!(measure(&dir), Err(MeasureError::NoWasm)));

        std::fs::write(
            dir.join("index.html"),
            r#"<link href="/a.css"><script src="/b.js"></script><link href="/c.wasm">"#,
        )
        .unwrap();
        std::fs::write(dir.join("c.wasm"), vec![0u8; 1000]).unwrap();
        let report = measure(&dir).unwrap();
        assert_eq!(report.assets.len(), 3);
        assert_eq!(report.total_raw(), 600 + 300 + 1000);
        assert!(report.total_gzip() < report.total_raw());
        assert!(report.gzip_of(AssetKind::Wasm) > 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
