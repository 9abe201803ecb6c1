//! Where things are. Every path can be overridden by an environment variable, and a
//! missing prerequisite fails with a message that says how to make it.

use std::path::{Path, PathBuf};

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

/// The `hearth` binary (`HEARTH_BIN`, default: in this binary's profile directory; a
/// test runs from `target/<profile>/deps/`, a benchmark from `target/<profile>/`).
pub fn hearth_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("HEARTH_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let dir = exe.parent().map(PathBuf::from).unwrap_or_default();
    let profile = if dir.ends_with("deps") {
        dir.parent().map(PathBuf::from).unwrap_or_default()
    } else {
        dir
    };
    let candidate = profile.join("hearth");
    assert!(
        candidate.is_file(),
        "{} not found: build the server first (`cargo build -p hearth-server`; `make test` does)",
        candidate.display()
    );
    candidate
}

/// A fresh, empty folder for one test's files (`<tmp>/hearth-e2e-<name>-<pid>`).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hearth-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Where tests leave screenshots (`<repo>/e2e/artifacts`).
pub fn artifacts_dir() -> PathBuf {
    let dir = repo_root().join("e2e").join("artifacts");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Waits (at most 15 s) for the one finished download, a `.zip`, in `dir`.
pub async fn downloaded(dir: &std::path::Path) -> PathBuf {
    downloaded_as(dir, "zip").await
}

/// Waits (at most 15 s) for the one finished download with `extension` in `dir`.
pub async fn downloaded_as(dir: &std::path::Path, extension: &str) -> PathBuf {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let done: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("read downloads")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == extension))
            .collect();
        // Chromium may create the file before it has written it: it counts once it has
        // bytes that stay put and nothing is still downloading beside it.
        let writing = std::fs::read_dir(dir)
            .expect("read downloads")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .any(|p| p.extension().is_some_and(|x| x == "crdownload"));
        if let ([file], false) = (done.as_slice(), writing) {
            let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            let still = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
            if size > 0 && size == still {
                return file.clone();
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no download appeared in {dir:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Copies the directory `from` into `to`, recursively (a build to serve changed).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for entry in std::fs::read_dir(from).expect("read the directory") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy a file");
        }
    }
}
