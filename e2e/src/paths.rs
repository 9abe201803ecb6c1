//! Where things are. Every path can be overridden by an environment variable, and a
//! missing prerequisite fails with a message that says how to make it.

use std::path::PathBuf;

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The release build of the app (`HEARTH_DIST_DIR`, default `<repo>/dist`).
pub fn dist_dir() -> PathBuf {
    let dir = std::env::var_os("HEARTH_DIST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("dist"));
    assert!(
        dir.join("index.html").is_file(),
        "{} has no index.html: run `make test` (or `trunk build --release --offline`) first",
        dir.display()
    );
    dir
}

/// The `hearth` binary (`HEARTH_BIN`, default: next to this test binary's `deps/`).
pub fn hearth_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("HEARTH_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    // target/<profile>/deps/<test> → target/<profile>/hearth
    let candidate = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("hearth"))
        .unwrap_or_default();
    assert!(
        candidate.is_file(),
        "{} not found: build the server first (`cargo build -p hearth-server`; `make test` does)",
        candidate.display()
    );
    candidate
}

/// Where tests leave screenshots (`<repo>/e2e/artifacts`).
pub fn artifacts_dir() -> PathBuf {
    let dir = repo_root().join("e2e").join("artifacts");
    let _ = std::fs::create_dir_all(&dir);
    dir
}
