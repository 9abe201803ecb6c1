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
//! - [`browser`]: a WebDriver session with the flags this machine needs, plus helpers
//!   for waiting, keys, screenshots and the browser's console log.

pub mod browser;
pub mod paths;
pub mod process;

pub use browser::Browser;
pub use process::{Hearth, Stack};
