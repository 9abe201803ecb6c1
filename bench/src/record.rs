//! Writes measured figures into `docs/BENCHMARKS.md`, replacing only the section between
//! `<!-- NAME:start -->` and `<!-- NAME:end -->`, so each benchmark owns its own table
//! and hand-written text around it survives.

use std::path::{Path, PathBuf};

/// The benchmarks file a benchmark writes: its first argument, or `docs/BENCHMARKS.md`.
pub fn out_file() -> PathBuf {
    PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "docs/BENCHMARKS.md".into()),
    )
}

/// What the run's figures are labelled with (`BENCH_LABEL`: date, compiler, cores).
pub fn label() -> String {
    std::env::var("BENCH_LABEL").unwrap_or_else(|_| "unlabelled run".into())
}

/// Replaces (or appends) the marked section `name` of `file` with `body`.
pub fn write_section(file: &Path, name: &str, body: &str) -> std::io::Result<()> {
    let start = format!("<!-- {name}:start -->");
    let end = format!("<!-- {name}:end -->");
    let existing = std::fs::read_to_string(file).unwrap_or_else(|_| "# Benchmarks\n".into());
    let section = format!("{start}\n{}\n{end}", body.trim_end());
    let updated = match (existing.find(&start), existing.find(&end)) {
        (Some(a), Some(b)) if a < b => {
            format!("{}{section}{}", &existing[..a], &existing[b + end.len()..])
        }
        _ => format!("{}\n{section}\n", existing.trim_end()),
    };
    std::fs::write(file, updated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_only_its_section() {
        let file = std::env::temp_dir().join(format!("hearth-record-{}.md", std::process::id()));
        std::fs::write(&file, "# B\nintro\n").unwrap();
        write_section(&file, "x", "one").unwrap();
        write_section(&file, "y", "other").unwrap();
        write_section(&file, "x", "two").unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("# B\nintro\n"));
        assert!(text.contains("<!-- x:start -->\ntwo\n<!-- x:end -->"));
        assert!(text.contains("<!-- y:start -->\nother\n<!-- y:end -->"));
        assert!(!text.contains("one"));
        std::fs::remove_file(&file).unwrap();
    }
}
