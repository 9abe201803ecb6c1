//! Child processes for a test: the `hearth` server and ChromeDriver, each on a free
//! loopback port, each killed when its guard is dropped (also when a test panics).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::paths;

#[path = "../../server/tests/support/listening.rs"]
mod listening;

/// How long a child may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A child process that is killed on drop — with its whole process group when it leads
/// one (ChromeDriver: the Chromium it started must not outlive a failed test).
#[derive(Debug)]
pub struct Guard {
    child: Child,
    /// The loopback port it listens on.
    pub port: u16,
    group: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.group
            && let Ok(pid) = i32::try_from(self.child.id())
            && pid > 1
        {
            // Never through `/bin/kill`: procps reads `-KILL -<pgid>` ambiguously.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port that was free a moment ago, never one this process has handed out
/// before: tests run in parallel threads, and the kernel may offer a port again as soon
/// as its probe is closed, before the first test's child has bound it.
pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|addr| addr.port())
            .expect("a free loopback port");
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// Waits until `child` itself holds the socket listening on `port`; `Err` when the child
/// exited (a port found free can be taken by another process before the child binds it:
/// then a connect reaches that other process, and the child fails a moment later).
fn wait_for_port(child: &mut Child, port: u16, name: &str) -> Result<(), String> {
    let deadline = Instant::now() + START_TIMEOUT;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("{name} exited before listening: {status}"));
        }
        // Its own socket, and reachable where every client here connects: a child that
        // binds `::1` before `127.0.0.1` (ChromeDriver) is not ready in between.
        if listening::listens_on(child.id(), port)
            && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    panic!("{name} did not listen on port {port} within {START_TIMEOUT:?}");
}

/// Runs `spawn` on fresh ports until the process it starts is the one listening.
fn start_on_free_port(name: &str, spawn: impl Fn(u16) -> Child) -> (Child, u16) {
    let mut last = String::new();
    for _ in 0..5 {
        let port = free_port();
        let mut child = spawn(port);
        match wait_for_port(&mut child, port, name) {
            Ok(()) => return (child, port),
            Err(why) => last = why,
        }
    }
    panic!("{name} could not start on a free port: {last}");
}

/// A running `hearth` server with its own data directory (removed on drop).
#[derive(Debug)]
pub struct Hearth {
    guard: Guard,
    data_dir: std::path::PathBuf,
    dist: std::path::PathBuf,
    env: Vec<(String, String)>,
}

impl Drop for Hearth {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

impl Hearth {
    /// Starts the real binary serving `dist` on a free port, with extra environment.
    pub fn start(dist: &Path, env: &[(&str, &str)]) -> Self {
        let data_dir =
            std::env::temp_dir().join(format!("hearth-e2e-{}-{}", std::process::id(), free_port()));
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect();
        let (child, port) =
            start_on_free_port("hearth", |port| Self::spawn(dist, &data_dir, &env, port));
        Self {
            guard: Guard {
                child,
                port,
                group: false,
            },
            data_dir,
            dist: dist.to_path_buf(),
            env,
        }
    }

    fn spawn(dist: &Path, data_dir: &Path, env: &[(String, String)], port: u16) -> Child {
        let mut command = Command::new(paths::hearth_binary());
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HEARTH_ADDR", format!("127.0.0.1:{port}"))
            .env("HEARTH_DIST_DIR", dist)
            .env("HEARTH_DATA_DIR", data_dir)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (key, value) in env {
            command.env(key, value);
        }
        command.spawn().expect("spawn hearth")
    }

    /// Kills the server (as a crash would): its port answers nothing until
    /// [`Hearth::restart`].
    pub fn stop(&mut self) {
        let _ = self.guard.child.kill();
        let _ = self.guard.child.wait();
    }

    /// Starts the server again on the same port, data directory and environment.
    pub fn restart(&mut self) {
        let dist = self.dist.clone();
        self.serve(&dist);
    }

    /// Restarts the server on the same port serving `dist` instead (a new version).
    pub fn serve(&mut self, dist: &Path) {
        self.stop();
        let port = self.guard.port;
        let mut child = Self::spawn(dist, &self.data_dir, &self.env, port);
        if let Err(why) = wait_for_port(&mut child, port, "hearth") {
            panic!("hearth did not start again on port {port}: {why}");
        }
        self.guard.child = child;
        self.dist = dist.to_path_buf();
    }

    /// The server's data directory (its BYOK key lives there).
    pub fn data_dir(&self) -> &std::path::Path {
        &self.data_dir
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.guard.port
    }

    /// The server's base URL, without a trailing slash.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.guard.port)
    }
}

/// Starts ChromeDriver (`CHROMEDRIVER`, default `chromedriver` on PATH). The profiles it
/// makes for its sessions go under `profiles` (its temporary directory).
pub fn start_chromedriver(profiles: &Path) -> Guard {
    let binary = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".to_string());
    let (child, port) = start_on_free_port("chromedriver", |port| {
        let mut command = Command::new(&binary);
        command
            .arg(format!("--port={port}"))
            .env("TMPDIR", profiles)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Its own process group, so that dropping the guard also ends the Chromium it
        // launched, even when a failing test never closed its session.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        command.spawn().unwrap_or_else(|error| {
            panic!("cannot start {binary}: {error}. Install Debian's chromium-headless-shell and chromium-driver (scripts/setup.sh does)")
        })
    });
    Guard {
        child,
        port,
        group: cfg!(unix),
    }
}

/// Starts a test peer (an MCP server, …) with `spawn(port)` on a free port and waits
/// until it is the one listening; it is killed with its process group on drop.
pub fn start_peer(name: &str, spawn: impl Fn(u16) -> Command) -> Guard {
    let (child, port) = start_on_free_port(name, |port| {
        let mut command = spawn(port);
        command.stdout(Stdio::null()).stderr(Stdio::null());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        command
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start the {name}: {error}"))
    });
    Guard {
        child,
        port,
        group: cfg!(unix),
    }
}

/// The browser profiles of one stack's sessions, in a directory removed on drop.
///
/// ChromeDriver makes a fresh profile per session in its temporary directory, which the
/// stack points here, and removes it only when the session is closed; a test that ends
/// (or fails) with ChromeDriver killed left 35 to 60 MB in the temp directory per
/// session, hundreds per suite run: enough to fill a CI machine's disk. (The profile is
/// ChromeDriver's own rather than a `--user-data-dir`: given one, it opens the headless
/// shell with no page, and the session is never created.)
#[derive(Debug)]
pub struct Profiles {
    root: PathBuf,
}

impl Profiles {
    fn new_under(parent: &Path) -> Self {
        let root = parent.join(format!(
            "hearth-e2e-profiles-{}-{}",
            std::process::id(),
            free_port()
        ));
        std::fs::create_dir_all(&root).expect("a directory for the browser profiles");
        Self { root }
    }

    /// What ChromeDriver made here so far (per session, the profile and a scratch
    /// directory).
    pub fn made(&self) -> Vec<PathBuf> {
        std::fs::read_dir(&self.root)
            .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
            .unwrap_or_default()
    }

    /// Where they live.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for Profiles {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// A server and a driver for one test.
///
/// Fields drop in order: the server, then ChromeDriver with its Chromium, and only then
/// the profiles those browsers were writing.
#[derive(Debug)]
pub struct Stack {
    /// The hearth server.
    pub hearth: Hearth,
    /// ChromeDriver.
    pub driver: Guard,
    /// The sessions' browser profiles.
    pub profiles: Profiles,
}

impl Stack {
    /// Starts `hearth` on the release `dist/` and a ChromeDriver.
    pub fn start() -> Self {
        Self::start_with_env(&[])
    }

    /// Like [`Stack::start`], with extra environment for `hearth`.
    pub fn start_with_env(env: &[(&str, &str)]) -> Self {
        Self::start_with(env, &std::env::temp_dir())
    }

    /// Like [`Stack::start`], with the browsers' profiles under `parent` (a small disk).
    pub fn start_with_profiles_under(parent: &Path) -> Self {
        Self::start_with(&[], parent)
    }

    fn start_with(env: &[(&str, &str)], profiles_parent: &Path) -> Self {
        let profiles = Profiles::new_under(profiles_parent);
        Self {
            hearth: Hearth::start(&paths::dist_dir(), env),
            driver: start_chromedriver(profiles.root()),
            profiles,
        }
    }

    /// The WebDriver URL.
    pub fn driver_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.driver.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_process_holding_the_socket_counts_as_listening() {
        let other = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = other.local_addr().unwrap().port();
        assert!(listening::listens_on(std::process::id(), port));
        let mut child = Command::new("sleep").arg("5").spawn().unwrap();
        assert!(!listening::listens_on(child.id(), port));
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn a_child_that_exits_while_another_process_answers_its_port_is_not_started() {
        // The race a connect cannot see: the port answers, but for someone else.
        let other = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = other.local_addr().unwrap().port();
        let mut child = Command::new("sh")
            .args(["-c", "sleep 0.3; exit 3"])
            .spawn()
            .unwrap();
        let outcome = wait_for_port(&mut child, port, "child");
        assert!(
            outcome
                .as_ref()
                .is_err_and(|why| why.contains("exited before listening")),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_child_listening_only_on_ipv6_loopback_is_not_started() {
        // It holds the port, but not where the clients here connect (127.0.0.1).
        let port = free_port();
        let script = format!(
            "import socket, time\n\
             s = socket.socket(socket.AF_INET6)\n\
             s.bind(('::1', {port}))\n\
             s.listen()\n\
             time.sleep(1)\n"
        );
        let mut child = Command::new("python3")
            .args(["-c", &script])
            .spawn()
            .unwrap();
        let outcome = wait_for_port(&mut child, port, "child");
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            outcome
                .as_ref()
                .is_err_and(|why| why.contains("exited before listening")),
            "{outcome:?}"
        );
    }

    #[test]
    fn ports_handed_out_are_never_handed_out_again() {
        let ports: Vec<u16> = (0..200).map(|_| free_port()).collect();
        let mut unique = ports.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ports.len());
    }
}
