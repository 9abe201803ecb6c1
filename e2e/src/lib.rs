//! # hearth-e2e
//!
//! The harness for end-to-end tests: the real `hearth` binary serving the real release
//! `dist/`, driven through ChromeDriver in headless Debian Chromium. Each test gets its own
//! server, its own ChromeDriver and a fresh browser profile, so tests cannot see each
//! other's storage; every process is killed when its guard drops.
//!
//! ## Layout
//!
//! - [`paths`]: where the repository, `dist/`, the `hearth` binary and artifacts are.
//! - [`process`]: child processes on free loopback ports, killed on drop.
//! - [`disk`]: a small tmpfs for the browser profile and a script that fills it, for
//!   tests of a full disk.
//! - [`export`]: an export file read with another ZIP implementation, and hashes.
//! - [`attach`]: attaching files in the composer, and images made to attach.
//! - [`catalogue`]: making the app's catalogue requests fail on purpose.
//! - [`chat`]: driving the chat against the provider fixture (tests and benchmarks).
//! - [`knowledge`]: knowledge collections: making one, a file's stage, what is stored
//!   under `knowledge/`, and seeding a library as another page would have left it.
//! - [`browser`]: a WebDriver session with the flags this machine needs, plus helpers
//!   for waiting, keys, screenshots and the browser's console log.
//! - [`provider_fixture`]: a fake model provider on 127.0.0.1 speaking each protocol's
//!   streaming wire format on its real paths, with CORS, scripted replies (errors,
//!   truncation, stalls, tool calls) and a record of every request.
//! - [`search_stand_in`]: the search services web search tests call (a SearXNG
//!   instance, Brave's API), every query and key recorded.
//! - [`tool_peers`]: the services tools tests call: a Petstore-style REST API with its
//!   OpenAPI description, and the npm MCP `server-everything`.
//! - [`tap`]: a recording TCP proxy between the browser and the edge, to check the
//!   bytes that actually crossed the wire.

pub mod attach;
pub mod browser;
pub mod catalogue;
pub mod chat;
pub mod disk;
pub mod export;
pub mod knowledge;
pub mod parse_stand_in;
pub mod paths;
pub mod process;
pub mod provider_fixture;
pub mod search_stand_in;
pub mod stand_in;
pub mod tap;
pub mod tool_peers;
pub mod workspace;

pub use browser::Browser;
pub use process::{Hearth, Stack};

/// A test's own server, driver and browser, with the app open at `/`.
pub struct AppSession {
    /// The browser; the field order drops it before the processes it talks to.
    pub browser: Browser,
    /// The server and driver processes.
    pub stack: Stack,
}

impl AppSession {
    /// Starts everything and opens the app in a `width` × `height` window.
    pub async fn open(width: u32, height: u32) -> Self {
        Self::open_with_env(width, height, &[]).await
    }

    /// As [`AppSession::open`], with the edge started with `env` added.
    pub async fn open_with_env(width: u32, height: u32, env: &[(&str, &str)]) -> Self {
        let stack = Stack::start_with_env(env);
        let browser = Browser::open(&stack, width, height).await;
        browser.open_app("/").await;
        Self { browser, stack }
    }

    /// Starts everything with the browser talking to the edge through a [`tap::Tap`],
    /// and opens the app through it in a `width` × `height` window; the session and the
    /// tap.
    pub async fn open_through_tap(width: u32, height: u32) -> (Self, tap::Tap) {
        let tap = tap::Tap::listen().await;
        let stack = Stack::start_with_env(&[("HEARTH_ALLOWED_HOSTS", &tap.host())]);
        let tap = tap.forward_to(stack.hearth.port());
        let mut browser = Browser::open(&stack, width, height).await;
        browser.set_base(tap.url());
        browser.open_app("/").await;
        (Self { browser, stack }, tap)
    }

    /// Checks that the page logged no errors, then closes the browser.
    pub async fn finish(self) {
        self.browser.assert_no_console_errors().await;
        self.browser.close().await;
    }
}

impl std::ops::Deref for AppSession {
    type Target = Browser;

    fn deref(&self) -> &Browser {
        &self.browser
    }
}
