//! The Docker image's runtime layout, proven without Docker (the build machines cannot
//! run it): the final stage of `deploy/Dockerfile` is read, exactly the files it copies
//! are placed in an otherwise empty root, and the binary is started there with exactly
//! the stage's environment, as the stage's unprivileged user when the test runs as root
//! (as CI does). The app is packed as the build stage packs it (`hearth-pack`). It
//! must serve the build's files byte for byte, pass the stage's own health check command,
//! and write nowhere but its data directory. A new `COPY` this test cannot place, or a
//! runtime need the stage does not provide, fails here.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hearth_e2e::paths::{dist_dir, hearth_binary, repo_root};
use hearth_e2e::process::free_port;

/// The distroless `nonroot` user the stage names.
const NONROOT: u32 = 65_532;

/// What the final stage of a Dockerfile says.
#[derive(Debug, Default)]
struct Stage {
    /// (source in the build stage, destination in the image)
    copies: Vec<(String, String)>,
    env: BTreeMap<String, String>,
    user: String,
    healthcheck: Vec<String>,
    entrypoint: Vec<String>,
}

/// The Dockerfile's instructions, continuation lines joined, comments dropped.
fn instructions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.is_empty() && current.is_empty() {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part);
                current.push(' ');
            }
            None => {
                current.push_str(line);
                out.push(std::mem::take(&mut current));
            }
        }
    }
    out
}

fn json_words(text: &str) -> Vec<String> {
    serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not an exec form: {text}"))
}

fn final_stage(text: &str) -> Stage {
    let all = instructions(text);
    let start = all
        .iter()
        .rposition(|i| i.starts_with("FROM "))
        .expect("a FROM");
    let mut stage = Stage::default();
    for instruction in &all[start + 1..] {
        let (word, rest) = instruction.split_once(' ').unwrap_or((instruction, ""));
        match word {
            "COPY" => {
                let args: Vec<&str> = rest
                    .split_whitespace()
                    .filter(|a| !a.starts_with("--chown"))
                    .collect();
                assert_eq!(args.first(), Some(&"--from=build"), "{instruction}");
                assert_eq!(args.len(), 3, "one source, one destination: {instruction}");
                stage
                    .copies
                    .push((args[1].to_string(), args[2].to_string()));
            }
            "ENV" => {
                for pair in rest.split_whitespace() {
                    let (key, value) = pair.split_once('=').expect("KEY=value");
                    stage.env.insert(key.to_string(), value.to_string());
                }
            }
            "USER" => stage.user = rest.trim().to_string(),
            "HEALTHCHECK" => {
                let cmd = rest.split_once("CMD").expect("HEALTHCHECK … CMD").1;
                stage.healthcheck = json_words(cmd);
            }
            "ENTRYPOINT" => stage.entrypoint = json_words(rest),
            "EXPOSE" | "STOPSIGNAL" => {}
            other => panic!("the runtime stage has `{other}`, which this test does not model"),
        }
    }
    stage
}

/// Copies `from` (a file or a folder) to `to`, keeping the execute bit, readable by all.
fn place(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755)).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            place(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
        let mode = if from.metadata().unwrap().mode() & 0o111 != 0 {
            0o755
        } else {
            0o644
        };
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

/// Every file under `root`, relative to it.
fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// One GET over a fresh connection: the status, the head and the body's bytes.
fn get(port: u16, path: &str, extra_headers: &str) -> (u16, String, Vec<u8>) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra_headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(answer.len());
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let body = answer.get(split + 4..).unwrap_or_default().to_vec();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head, body)
}

/// The build stage's `…/hearth-pack FROM TO` words (FROM relative to the source tree).
fn pack_command(dockerfile: &str) -> (String, String) {
    let words: Vec<&str> = dockerfile.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| w.trim_end_matches('"').ends_with("/hearth-pack"))
        .expect("the build stage packs dist/");
    (words[at + 1].to_string(), words[at + 2].to_string())
}

#[test]
fn the_images_runtime_stage_serves_the_app_from_only_what_it_copies() {
    let dockerfile = std::fs::read_to_string(repo_root().join("deploy/Dockerfile")).unwrap();
    let stage = final_stage(&dockerfile);
    assert_eq!(stage.user, "nonroot:nonroot", "the image runs unprivileged");
    let root = std::env::temp_dir().join(format!("hearth-image-root-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let empty = root.with_extension("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let in_root = |path: &str| root.join(path.trim_start_matches('/'));

    // What the build stage leaves at each path the runtime stage copies from: the
    // binary, the app packed by `hearth-pack`, an empty data directory.
    let (pack_from, pack_to) = pack_command(&dockerfile);
    assert_eq!(pack_from, "dist", "the build stage packs the app it built");
    let packed = root.with_extension("packed");
    let _ = std::fs::remove_dir_all(&packed);
    let status = Command::new(hearth_binary().with_file_name("hearth-pack"))
        .arg(dist_dir())
        .arg(&packed)
        .status()
        .expect("run hearth-pack");
    assert!(status.success(), "hearth-pack failed");
    for (from, to) in &stage.copies {
        let source = match from.as_str() {
            "/usr/local/bin/hearth" => hearth_binary(),
            path if path == pack_to => packed.clone(),
            "/empty-data" => empty.clone(),
            other => {
                panic!("the runtime stage copies {other}: teach this test where it comes from")
            }
        };
        place(&source, &in_root(to));
    }
    let is_root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    let data = in_root(&stage.env["HEARTH_DATA_DIR"]);
    if is_root {
        std::os::unix::fs::chown(&data, Some(NONROOT), Some(NONROOT)).unwrap();
    }
    let before = files(&root);

    // The stage's environment, its paths moved into the root and its port to a free one.
    let port = free_port();
    let mut env = stage.env.clone();
    for value in env.values_mut() {
        if value.starts_with('/') {
            *value = in_root(value).to_string_lossy().into_owned();
        }
    }
    let addr = env["HEARTH_ADDR"].clone();
    assert!(
        addr.starts_with("0.0.0.0:"),
        "the image listens on every interface"
    );
    env.insert("HEARTH_ADDR".into(), format!("0.0.0.0:{port}"));
    // As `docker run` is shown with: a public bind needs a password.
    env.insert("ACCESS_PASSWORD".into(), "layout-test-password".into());
    let command = |words: &[String]| {
        let mut command = Command::new(in_root(&words[0]));
        command
            .args(&words[1..])
            .env_clear()
            .envs(&env)
            .current_dir(&root)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if is_root {
            command.uid(NONROOT).gid(NONROOT);
        }
        command
    };
    assert_eq!(stage.entrypoint.len(), 1, "{:?}", stage.entrypoint);
    let mut server = command(&stage.entrypoint)
        .spawn()
        .expect("start the image's binary");
    // The health check is the entrypoint with the stage's CMD words after it.
    assert_eq!(stage.healthcheck[0], stage.entrypoint[0]);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(Some(status)) = server.try_wait() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(server.stderr.as_mut().unwrap(), &mut stderr).ok();
            panic!("the server exited ({status}): {stderr}");
        }
        let check = command(&stage.healthcheck)
            .output()
            .expect("run the health check");
        if check.status.success() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the health check never passed: {}",
            String::from_utf8_lossy(&check.stderr)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The app's own pages, from the root's packed copy of dist/: byte for byte the
    // build's files, decoded for a client that takes no compression, the stored Brotli
    // for one that takes it, a gzip of the same bytes for one that takes only gzip.
    let placed_dist = in_root(&stage.env["HEARTH_DIST_DIR"]);
    let (status, _, page) = get(port, "/", "");
    assert_eq!(status, 200);
    assert_eq!(page, std::fs::read(dist_dir().join("index.html")).unwrap());
    assert!(
        !placed_dist.join("index.html").exists() && placed_dist.join("index.html.br").exists(),
        "the image holds the page only as its Brotli"
    );
    let wasm = files(&dist_dir())
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "wasm"))
        .max_by_key(|f| dist_dir().join(f).metadata().unwrap().len())
        .expect("the build has wasm");
    let url = format!("/{}", wasm.to_string_lossy());
    let (status, head, plain) = get(port, &url, "");
    assert_eq!(status, 200, "{head}");
    assert_eq!(plain, std::fs::read(dist_dir().join(&wasm)).unwrap());
    let (status, head, compressed) = get(port, &url, "Accept-Encoding: gzip, deflate, br\r\n");
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase().contains("content-encoding: br"),
        "{head}"
    );
    let stored = placed_dist.join(format!("{}.br", wasm.to_string_lossy()));
    assert_eq!(
        compressed,
        std::fs::read(stored).unwrap(),
        "the stored Brotli, as it is"
    );
    let (status, head, gzipped) = get(port, &url, "Accept-Encoding: gzip\r\n");
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase().contains("content-encoding: gzip"),
        "{head}"
    );
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&gzipped[..]),
        &mut unzipped,
    )
    .expect("gzip");
    assert_eq!(unzipped, plain, "the gzip holds the same bytes");
    let (status, _, _) = get(port, "/sw.js", "");
    assert_eq!(status, 200);
    let (status, health, _) = get(port, "/api/health", "");
    assert_eq!(status, 200, "{health}");
    let bytes = |dir: &Path| -> u64 {
        files(dir)
            .iter()
            .map(|f| dir.join(f).metadata().unwrap().len())
            .sum()
    };
    eprintln!(
        "dist/ {} bytes, packed {} bytes",
        bytes(&dist_dir()),
        bytes(&placed_dist)
    );

    let _ = server.kill();
    let _ = server.wait();
    // It wrote only into its data directory (the local BYOK key), as its own user.
    let after = files(&root);
    let data_rel = data.strip_prefix(&root).unwrap();
    let written: Vec<&PathBuf> = after.iter().filter(|f| !before.contains(f)).collect();
    assert!(
        !written.is_empty(),
        "the local key is kept in the data directory"
    );
    for file in &written {
        assert!(
            file.starts_with(data_rel),
            "wrote {file:?} outside {data_rel:?}"
        );
        let meta = root.join(file).metadata().unwrap();
        assert_eq!(meta.mode() & 0o077, 0, "{file:?} is private");
        if is_root {
            assert_eq!(meta.uid(), NONROOT, "{file:?} belongs to the image's user");
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&empty);
    let _ = std::fs::remove_dir_all(&packed);
}

#[test]
fn a_dockerfile_stage_is_read_as_docker_reads_it() {
    let stage = final_stage(
        "FROM a AS build\nRUN x\nFROM b\n# comment\nCOPY --from=build --chown=u:u /x /y\nENV A=1 \\\n    B=/p\nUSER u:u\nHEALTHCHECK --interval=1s \\\n  CMD [\"/bin/h\", \"check\"]\nENTRYPOINT [\"/bin/h\"]\n",
    );
    assert_eq!(stage.copies, [("/x".to_string(), "/y".to_string())]);
    assert_eq!(stage.env["A"], "1");
    assert_eq!(stage.env["B"], "/p");
    assert_eq!(stage.user, "u:u");
    assert_eq!(stage.healthcheck, ["/bin/h", "check"]);
    assert_eq!(stage.entrypoint, ["/bin/h"]);
}
