//! Runs the worker ([`super::worker`]) for one file and turns whatever happens to it into
//! an [`Outcome`]: its answer, or a typed failure when it ran out of time, memory or CPU,
//! crashed, or said something unreadable. The child gets an empty environment, its
//! output is read up to a bound, and it is killed when the job is cancelled or the
//! future is dropped.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::job::{Outcome, failure};

/// How the worker is started and bounded.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// The `hearth` binary.
    pub program: PathBuf,
    /// A command the worker runs through (a sandbox), possibly empty.
    pub wrapper: Vec<String>,
    /// Wall-clock limit (also the CPU limit).
    pub timeout: Duration,
    /// Address space limit.
    pub memory_mib: u64,
    /// The largest input.
    pub max_input_bytes: u64,
    /// The most text kept.
    pub max_output_bytes: u64,
}

impl Sandbox {
    fn command(&self, name: Option<&str>) -> Command {
        let mut command = match self.wrapper.split_first() {
            Some((first, rest)) => {
                let mut command = Command::new(first);
                command.args(rest).arg(&self.program);
                command
            }
            None => Command::new(&self.program),
        };
        command
            .arg("doc-parse-worker")
            .arg(format!("--max-input-bytes={}", self.max_input_bytes))
            .arg(format!("--max-output-bytes={}", self.max_output_bytes))
            .arg(format!("--memory-mib={}", self.memory_mib))
            .arg(format!("--cpu-secs={}", self.timeout.as_secs().max(1)));
        if let Some(name) = name {
            command.arg(format!("--name={name}"));
        }
        command
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// Parses `bytes` in a fresh worker.
    pub async fn parse(&self, bytes: Vec<u8>, name: Option<&str>) -> Outcome {
        let mut child = match self.command(name).spawn() {
            Ok(child) => child,
            Err(error) => {
                tracing::error!(%error, "cannot start the parse worker");
                return failed("parse_sandbox_failed", "The parser could not be started");
            }
        };
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return failed("parse_sandbox_failed", "The parser could not be started");
        };
        // The answer is JSON: escaping can at most double the text, plus the page list.
        let output_cap = self.max_output_bytes.saturating_mul(2) + 1024 * 1024;
        let feed = async move {
            // A worker that refuses its input early (too large) closes the pipe: fine.
            let _ = stdin.write_all(&bytes).await;
            drop(stdin);
        };
        let read = async move {
            let mut out = Vec::new();
            let mut bounded = stdout.take(output_cap + 1);
            let _ = bounded.read_to_end(&mut out).await;
            out
        };
        let read_err = async move {
            let mut err = Vec::new();
            let _ = stderr.take(4096).read_to_end(&mut err).await;
            err
        };
        let run = async {
            let ((), out, err) = tokio::join!(feed, read, read_err);
            let status = child.wait().await;
            (out, err, status)
        };
        let Ok((out, err, status)) = tokio::time::timeout(self.timeout, run).await else {
            return failed(
                "parse_timeout",
                format!(
                    "Parsing took longer than {} seconds",
                    self.timeout.as_secs()
                ),
            );
        };
        if out.len() as u64 > output_cap {
            return failed(
                "parse_output_too_large",
                "The parser's answer was too large",
            );
        }
        let status = match status {
            Ok(status) => status,
            Err(error) => {
                tracing::error!(%error, "waiting for the parse worker");
                return failed("parse_crashed", "The parser stopped unexpectedly");
            }
        };
        if status.success()
            && let Ok(outcome) = serde_json::from_slice::<Outcome>(&out)
        {
            return outcome;
        }
        let stderr = String::from_utf8_lossy(&err);
        tracing::warn!(%status, stderr = %stderr.trim(), "the parse worker failed");
        if ran_out(&status, &stderr) {
            failed(
                "parse_resource_limit",
                "The file needed more memory or processor time than the parser may use",
            )
        } else {
            failed("parse_crashed", "The parser stopped unexpectedly")
        }
    }
}

fn failed(code: &str, message: impl Into<String>) -> Outcome {
    Outcome::Failed {
        error: failure(code, message),
    }
}

/// Whether the worker died of one of its own limits: killed for CPU time (SIGXCPU, then
/// SIGKILL), or aborted because an allocation failed under the address-space limit.
#[cfg(unix)]
fn ran_out(status: &std::process::ExitStatus, stderr: &str) -> bool {
    use std::os::unix::process::ExitStatusExt as _;
    const SIGKILL: i32 = 9;
    const SIGXCPU: i32 = 24;
    const SIGABRT: i32 = 6;
    match status.signal() {
        Some(SIGXCPU | SIGKILL) => true,
        Some(SIGABRT) => stderr.contains("memory allocation"),
        _ => stderr.contains("memory allocation"),
    }
}

#[cfg(not(unix))]
fn ran_out(_status: &std::process::ExitStatus, stderr: &str) -> bool {
    stderr.contains("memory allocation")
}
