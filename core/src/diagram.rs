//! Diagrams in replies: which code blocks are Mermaid diagrams, whether a diagram's fence
//! has closed (one still streaming keeps its last good render and never shows an
//! error), the bounds of a render and of a PNG of it, a drawing's size, a name for an
//! exported file, and the vendored Mermaid that the diagram sandbox runs: where the
//! build puts it and its integrity, which the tests below check against
//! `vendor/mermaid/PIN` and the file itself.

/// The vendored Mermaid's version (npm package `mermaid`).
pub const MERMAID_VERSION: &str = "12.3.0";

/// The SHA-256 of `vendor/mermaid/mermaid.min.js`, as pinned.
pub const MERMAID_SHA256: &str = "336df803d87a38b70a01e736e666c8f7601d2ce42f5e47c8fafe5d721074b9a3";

/// Where the build serves it (`dist/vendor/mermaid-<first 16 hex of its hash>.js`, cached
/// as immutable).
pub const MERMAID_SCRIPT: &str = "/vendor/mermaid-336df803d87a38b7.js";

/// Its Subresource Integrity value: the app's fetch of it fails on any other bytes.
pub const MERMAID_INTEGRITY: &str = "sha256-M234A9h6OLcKAec25mbI92AdLOQvXkfI+v5dchB0uaM=";

/// The longest diagram source rendered (Mermaid's own `maxTextSize`); a longer one stays
/// as code with an error.
pub const MAX_SOURCE_CHARS: usize = 50_000;

/// The largest SVG the sandbox may send back; a larger one is an error.
pub const MAX_SVG_BYTES: usize = 4 * 1024 * 1024;

/// The attribute of a code block that holds a diagram's source.
pub const DIAGRAM_MARK: &str = "data-diagram";

/// The attribute of a diagram whose fence has not closed yet (the reply is streaming it).
pub const OPEN_MARK: &str = "data-diagram-open";

/// Whether a code block labelled `lang` is a Mermaid diagram.
pub fn is_diagram(lang: &str) -> bool {
    lang.eq_ignore_ascii_case("mermaid") || lang.eq_ignore_ascii_case("mmd")
}

/// Whether the fenced code block whose whole source (fences included, with any list or
/// quote prefixes) is `block` ends with its closing fence: a run of the opening fence's
/// character at least as long as it, and nothing but spaces after.
pub fn fence_closed(block: &str) -> bool {
    let unprefixed = |line: &str| {
        line.trim_start_matches(|c: char| c == '>' || c.is_whitespace())
            .to_string()
    };
    let mut lines = block.lines();
    let Some(first) = lines.next().map(unprefixed) else {
        return false;
    };
    let Some(fence) = first.chars().next().filter(|c| *c == '`' || *c == '~') else {
        return false;
    };
    let opening = first.chars().take_while(|c| *c == fence).count();
    let Some(last) = lines.rfind(|line| !unprefixed(line).is_empty()) else {
        return false;
    };
    let last = unprefixed(last);
    let run = last.chars().take_while(|c| *c == fence).count();
    run >= opening && last[run..].trim().is_empty()
}

/// The diagram's type as its source names it (`flowchart`, `sequenceDiagram`,
/// `mindmap`, …): the first word after blank lines, `%%` comments and directives, and a
/// front matter block. `None` when there is none.
pub fn kind(source: &str) -> Option<&str> {
    let mut lines = source.lines().map(str::trim);
    let mut in_front_matter = false;
    let mut first = true;
    for line in lines.by_ref() {
        if first && line == "---" {
            in_front_matter = true;
            first = false;
            continue;
        }
        first = false;
        if in_front_matter {
            in_front_matter = line != "---";
            continue;
        }
        if line.is_empty() || line.starts_with("%%") {
            continue;
        }
        let word = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .next()
            .unwrap_or_default();
        return (!word.is_empty()).then_some(word);
    }
    None
}

/// The name of an exported file for the diagram `source`, without its extension:
/// `diagram-<type>` (`diagram-flowchart`), or `diagram`.
pub fn file_stem(source: &str) -> String {
    match kind(source) {
        Some(kind) => format!(
            "diagram-{}",
            kind.chars()
                .take(32)
                .collect::<String>()
                .to_ascii_lowercase()
        ),
        None => "diagram".to_string(),
    }
}

/// The most pixels a PNG of a diagram may have (phones' canvas limit is near 16.7 million).
pub const MAX_PNG_PIXELS: f64 = 16_000_000.0;
/// The largest PNG file of a diagram the app takes from the sandbox, in bytes: a PNG of
/// [`MAX_PNG_PIXELS`] stored uncompressed, with room for its headers.
pub const MAX_PNG_BYTES: f64 = MAX_PNG_PIXELS * 4.0 + 1024.0 * 1024.0;
/// The longest side a PNG of a diagram may have.
pub const MAX_PNG_SIDE: f64 = 8_192.0;
/// How much larger than drawn a PNG of a diagram is, when that fits.
pub const PNG_SCALE: f64 = 2.0;

/// The scale a `width` × `height` drawing is saved as PNG at: [`PNG_SCALE`], or less to
/// keep within [`MAX_PNG_PIXELS`] and [`MAX_PNG_SIDE`].
pub fn png_scale(width: f64, height: f64) -> f64 {
    let by_area = (MAX_PNG_PIXELS / (width * height).max(1.0)).sqrt();
    let by_side = MAX_PNG_SIDE / width.max(height).max(1.0);
    PNG_SCALE.min(by_area).min(by_side)
}

/// The width and height of a drawing (the `width` and `height` attributes of its root
/// `<svg>` element, which the sandbox sets from its viewBox), in CSS pixels.
pub fn svg_size(svg: &str) -> Option<(f64, f64)> {
    let root = &svg[svg.find("<svg")?..];
    let root = &root[..root.find('>')?];
    let attribute = |name: &str| -> Option<f64> {
        let at = root.find(&format!(" {name}=\""))? + name.len() + 3;
        let value = &root[at..];
        let value: f64 = value[..value.find('"')?].parse().ok()?;
        (value.is_finite() && value > 0.0).then_some(value)
    };
    Some((attribute("width")?, attribute("height")?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn pinned(name: &str) -> String {
        let pin = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../vendor/mermaid/PIN"
        ))
        .expect("vendor/mermaid/PIN");
        pin.lines()
            .find_map(|line| line.strip_prefix(&format!("{name}=")).map(str::to_string))
            .unwrap_or_else(|| panic!("{name} missing from the pin"))
    }

    #[test]
    fn the_script_the_app_loads_is_the_pinned_file() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../vendor/mermaid/mermaid.min.js"
        ))
        .expect("vendor/mermaid/mermaid.min.js");
        let digest = Sha256::digest(&bytes);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            pinned("sha256"),
            "the vendored file is not the pinned one"
        );
        assert_eq!(MERMAID_SHA256, hex);
        assert_eq!(MERMAID_VERSION, pinned("version"));
        assert_eq!(MERMAID_SCRIPT, format!("/vendor/mermaid-{}.js", &hex[..16]));
        use base64::Engine;
        let integrity = base64::engine::general_purpose::STANDARD.encode(digest);
        assert_eq!(MERMAID_INTEGRITY, format!("sha256-{integrity}"));
        // Nothing in it asks for another file when it runs.
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("sourceMappingURL"));
    }

    #[test]
    fn a_png_is_twice_the_drawing_unless_that_is_too_large() {
        assert_eq!(png_scale(400.0, 300.0), 2.0);
        let large = png_scale(6_000.0, 4_000.0);
        assert!(large < 2.0 && 6_000.0 * 4_000.0 * large * large <= MAX_PNG_PIXELS + 1.0);
        let long = png_scale(20_000.0, 100.0);
        assert!((20_000.0 * long - MAX_PNG_SIDE).abs() < 1e-6);
        assert!(png_scale(0.0, 0.0) > 0.0);
    }

    #[test]
    fn a_drawing_says_its_size_on_its_root_element() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"344\" height=\"120\" viewBox=\"0 0 344 120\"><rect width=\"9\" height=\"9\"/></svg>";
        assert_eq!(svg_size(svg), Some((344.0, 120.0)));
        assert_eq!(svg_size("<svg width=\"100%\" height=\"20\">"), None);
        assert_eq!(
            svg_size("<svg viewBox=\"0 0 1 1\"><rect width=\"9\" height=\"9\"/></svg>"),
            None
        );
        assert_eq!(svg_size("<svg width=\"-3\" height=\"4\">"), None);
        assert_eq!(svg_size("no svg"), None);
    }

    #[test]
    fn mermaid_blocks_are_diagrams_and_others_are_not() {
        for lang in ["mermaid", "Mermaid", "MMD"] {
            assert!(is_diagram(lang), "{lang}");
        }
        for lang in ["", "mermaidjs", "graph", "html", "dot"] {
            assert!(!is_diagram(lang), "{lang}");
        }
    }

    #[test]
    fn a_fence_is_closed_only_by_a_run_of_its_own_character_as_long_as_it() {
        assert!(fence_closed("```mermaid\ngraph TD\nA-->B\n```"));
        assert!(fence_closed("```mermaid\ngraph TD\n```  \n"));
        assert!(fence_closed("~~~~mermaid\nA\n~~~~~\n"));
        assert!(fence_closed("> ```mermaid\n> A\n> ```"));
        assert!(fence_closed("  ```mermaid\n  A\n  ```\n\n"));
        assert!(!fence_closed("```mermaid\ngraph TD\nA-->B"));
        assert!(!fence_closed("```mermaid\ngraph TD\nA-->B\n``"));
        assert!(!fence_closed("````mermaid\nA\n```"));
        assert!(!fence_closed("```mermaid\nA\n~~~"));
        assert!(!fence_closed("```mermaid\nA\n``` not a fence"));
        assert!(!fence_closed("```mermaid"));
        assert!(!fence_closed(""));
        assert!(!fence_closed("    indented code"));
    }

    #[test]
    fn the_kind_skips_comments_directives_and_front_matter() {
        assert_eq!(kind("graph TD\nA-->B"), Some("graph"));
        assert_eq!(
            kind("\n%% a note\n%%{init: {\"theme\": \"dark\"}}%%\nsequenceDiagram\n"),
            Some("sequenceDiagram")
        );
        assert_eq!(kind("---\ntitle: x\n---\nmindmap\n  root"), Some("mindmap"));
        assert_eq!(kind("flowchart-elk LR"), Some("flowchart-elk"));
        assert_eq!(kind(""), None);
        assert_eq!(kind("%% only a comment"), None);
        assert_eq!(
            file_stem("sequenceDiagram\nA->>B: hi"),
            "diagram-sequencediagram"
        );
        assert_eq!(file_stem("<script>"), "diagram");
        assert_eq!(file_stem(&"x".repeat(100)).len(), "diagram-".len() + 32);
    }
}
