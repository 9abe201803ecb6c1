//! `hearth doc-parse-worker`: the child process that parses one file. It reads the file
//! from standard input, limits its own address space and CPU time before touching the
//! bytes, dies with the edge (Linux `PR_SET_PDEATHSIG`), and writes one JSON
//! [`Outcome`] to standard output. It starts with an empty environment, so no secret of
//! the edge is within its reach.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::Args;

use super::job::{Outcome, failure};
use super::local;

/// The worker's command line (the edge writes it; nobody else should).
#[derive(Debug, Clone, Args)]
pub struct WorkerArgs {
    /// The uploaded file's name, a hint only.
    #[arg(long)]
    pub name: Option<String>,
    /// The most bytes read from standard input.
    #[arg(long)]
    pub max_input_bytes: u64,
    /// The most bytes of text written.
    #[arg(long)]
    pub max_output_bytes: u64,
    /// The address space limit, in MiB.
    #[arg(long)]
    pub memory_mib: u64,
    /// The CPU time limit, in seconds.
    #[arg(long)]
    pub cpu_secs: u64,
}

/// Runs the worker; the exit code is 0 whenever an outcome was written.
pub fn run(args: &WorkerArgs) -> ExitCode {
    if let Err(error) = limit_self(args) {
        return answer(&Outcome::Failed {
            error: failure(
                "parse_sandbox_failed",
                format!("The parser could not limit itself: {error}"),
            ),
        });
    }
    let mut bytes = Vec::new();
    let read = std::io::stdin()
        .take(args.max_input_bytes.saturating_add(1))
        .read_to_end(&mut bytes);
    let outcome = match read {
        Err(error) if error.kind() == std::io::ErrorKind::OutOfMemory => Outcome::Failed {
            error: failure(
                "parse_resource_limit",
                "The file needed more memory than the parser may use",
            ),
        },
        Err(error) => Outcome::Failed {
            error: failure("parse_input_unreadable", format!("{error}")),
        },
        Ok(_) if bytes.len() as u64 > args.max_input_bytes => Outcome::Failed {
            error: failure(
                "parse_too_large",
                format!("The file is larger than {} bytes", args.max_input_bytes),
            ),
        },
        Ok(_) => local::parse(&bytes, args.name.as_deref(), args.max_output_bytes),
    };
    answer(&outcome)
}

fn answer(outcome: &Outcome) -> ExitCode {
    let text = serde_json::to_string(outcome).unwrap_or_else(|_| {
        r#"{"result":"failed","error":{"code":"parse_internal","message":"unencodable result"}}"#
            .to_string()
    });
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

#[cfg(target_os = "linux")]
fn limit_self(args: &WorkerArgs) -> Result<(), nix::Error> {
    use nix::sys::resource::{Resource, setrlimit};
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)?;
    let memory = args.memory_mib.max(64).saturating_mul(1024 * 1024);
    setrlimit(Resource::RLIMIT_AS, memory, memory)?;
    let cpu = args.cpu_secs.max(1);
    // The soft limit sends SIGXCPU; the hard one, a second later, SIGKILL.
    setrlimit(Resource::RLIMIT_CPU, cpu, cpu + 1)?;
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn limit_self(args: &WorkerArgs) -> Result<(), nix::Error> {
    use nix::sys::resource::{Resource, setrlimit};
    let cpu = args.cpu_secs.max(1);
    setrlimit(Resource::RLIMIT_CPU, cpu, cpu + 1)
}
