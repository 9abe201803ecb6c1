//! Document-parse jobs (`POST /api/doc-parse`, `GET|DELETE /api/doc-parse/jobs/:id`):
//! the wire types, the job secret's header, the limits, and the rule that decides what a
//! poll does with a job whose runner may have died ([`next_step`]).
//!
//! A job is created by an upload and answered once: the first poll that finds it
//! finished gets the text (or the failure) and the job is deleted. Jobs live in the
//! edge's store for [`JOB_TTL_SECS`] at most.

use serde::{Deserialize, Serialize};

/// The header that carries a job's secret (a query parameter is never read).
pub const JOB_SECRET_HEADER: &str = "x-doc-parse-job-secret";
/// How long a job lives in the store, finished or not.
pub const JOB_TTL_SECS: u64 = 600;
/// The default cap on an uploaded file, in bytes (operators may lower or raise it).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;
/// Room for the multipart framing and the other fields on top of the file.
pub const MULTIPART_OVERHEAD_BYTES: u64 = 1024 * 1024;
/// How many times a job is started before a vanished runner makes it fail.
pub const MAX_ATTEMPTS: u32 = 2;
/// How often the app polls a job, and how many times before it gives up
/// (2 s × 150 = 5 minutes, as Neo Chat's client does).
pub const POLL_INTERVAL_MS: u32 = 2_000;
/// See [`POLL_INTERVAL_MS`].
pub const POLL_ATTEMPTS: u32 = 150;

/// The largest file MinerU's agent (lightweight, token-free) mode takes; a larger file
/// without a token is refused at upload with no upstream call.
pub const MINERU_AGENT_MAX_BYTES: u64 = 10 * 1024 * 1024;
/// The most bytes of a MinerU result ZIP downloaded.
pub const MINERU_ZIP_MAX_BYTES: usize = 50 * 1024 * 1024;
/// The most bytes of MinerU Markdown kept (`full.md` in the ZIP, or the agent mode's
/// Markdown download); more is refused, not cut.
pub const MINERU_MARKDOWN_MAX_BYTES: usize = 20 * 1024 * 1024;
/// The most entries a MinerU result ZIP may list.
pub const MINERU_ZIP_MAX_ENTRIES: usize = 100;
/// The most bytes inflated from a MinerU result ZIP, measured while inflating.
pub const MINERU_ZIP_MAX_INFLATED: u64 = 60 * 1024 * 1024;
/// The most bytes of a LlamaParse result (the JSON that carries the Markdown).
pub const LLAMA_PARSE_RESULT_MAX_BYTES: usize = 20 * 1024 * 1024;

/// The hosts the remote parsers' links may point at (upload URLs, result downloads):
/// each one exactly or any subdomain of it. Anything else a provider hands out is
/// refused, unless it is on the operator's own configured base URL.
pub const DOCS_HOSTS: &[&str] = &[
    "api.cloud.llamaindex.ai",
    "mineru.net",
    "oss-mineru.openxlab.org.cn",
    "mineru.oss-cn-shanghai.aliyuncs.com",
    "cdn-mineru.openxlab.org.cn",
];

/// Whether `host` is one of [`DOCS_HOSTS`] or a subdomain of one (case and a trailing
/// dot ignored; `evilmineru.net` and `mineru.net.evil.test` are not).
pub fn is_docs_host(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    DOCS_HOSTS.iter().any(|allowed| {
        host == *allowed
            || host
                .strip_suffix(allowed)
                .is_some_and(|rest| rest.ends_with('.') && rest.len() > 1)
    })
}

/// Who turns the file into text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DocParseProvider {
    /// The edge itself, with no external service (the default).
    #[default]
    Local,
    /// MinerU's cloud API.
    Mineru,
    /// LlamaParse (LlamaIndex cloud).
    LlamaParse,
}

impl DocParseProvider {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Local => "local",
            Self::Mineru => "mineru",
            Self::LlamaParse => "llamaParse",
        }
    }

    /// Whether a remote service parses it (the file leaves the edge).
    pub fn is_remote(self) -> bool {
        self != Self::Local
    }

    /// The BYOK context its credential is sealed for (`docs:mineru`,
    /// `docs:llama-parse`); none for the local parser.
    pub fn credential_context(self) -> Option<String> {
        match self {
            Self::Local => None,
            Self::Mineru => Some(crate::byok::context::docs_mineru()),
            Self::LlamaParse => Some(crate::byok::context::docs_llama_parse()),
        }
    }

    /// Parses the wire spelling (the multipart `provider` field).
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim() {
            "" | "local" => Some(Self::Local),
            "mineru" => Some(Self::Mineru),
            "llamaParse" => Some(Self::LlamaParse),
            _ => None,
        }
    }
}

/// `202` to `POST /api/doc-parse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocParseStarted {
    /// The job's id, for the poll URL.
    pub job_id: String,
    /// The secret every poll and cancel must send in [`JOB_SECRET_HEADER`]. The edge
    /// keeps only its hash.
    pub job_secret: String,
    /// Always [`JobStage::Queued`] on creation.
    pub status: JobStage,
}

/// Where an unfinished job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum JobStage {
    /// Waiting for a free parser.
    Queued,
    /// A parser is working on it.
    Parsing,
}

/// One page of a parsed document (PDFs; other formats are one page).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedPage {
    /// From 1.
    pub number: u32,
    /// Where the page's text starts in the markdown, in bytes.
    pub offset: u64,
    /// False for a page with no text layer (a scan).
    pub has_text: bool,
}

/// A fact about the text the user should see (cuts, scanned pages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ParseNote {
    /// The text was cut at `bytes` (the edge's output limit).
    Truncated {
        /// Bytes kept.
        bytes: u64,
    },
    /// These pages have no text layer; they are scans or images.
    PagesWithoutText {
        /// Page numbers, from 1.
        pages: Vec<u32>,
    },
    /// Something the parser skipped, in words.
    Skipped {
        /// What was skipped.
        what: String,
    },
}

/// A job's failure: a stable code the app renders in the user's language, and a
/// sentence for the log and for a code the app does not know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobFailure {
    /// Stable, snake_case (`parse_no_text_layer`, `parse_timeout`, …).
    pub code: String,
    /// For people; never contains a secret.
    pub message: String,
}

/// `200` to `GET /api/doc-parse/jobs/:id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum DocParseJob {
    /// Not finished; poll again after [`POLL_INTERVAL_MS`].
    Pending {
        /// Where it is.
        stage: JobStage,
    },
    /// Finished; the job is deleted with this answer.
    Completed {
        /// The document's text as Markdown.
        markdown: String,
        /// The type the bytes were found to be (`pdf`, `docx`, …).
        kind: String,
        /// Page boundaries, when the format has pages.
        #[serde(default)]
        pages: Vec<ParsedPage>,
        /// What the user should know about the text.
        #[serde(default)]
        notes: Vec<ParseNote>,
    },
    /// Failed; the job is deleted with this answer.
    Failed {
        /// Why.
        error: JobFailure,
    },
}

/// `200` to `DELETE /api/doc-parse/jobs/:id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocParseDeleted {
    /// Always true.
    pub ok: bool,
    /// Whether a job was deleted.
    pub deleted: bool,
}

/// What a poll does with a job that is not finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// A runner holds the job: answer "parsing" and wait.
    Wait,
    /// Nobody holds it and it has attempts left: (re)start it here.
    Start,
    /// Every runner it had vanished: it fails as interrupted.
    GiveUp,
}

/// The rule for an unfinished job: a live lease means a runner is at work; without one,
/// a job that was started `attempts` times has lost its runner (an instance died or was
/// stopped), and it is started again until [`MAX_ATTEMPTS`], then fails. A job never
/// stays pending without a runner.
pub fn next_step(lease_alive: bool, attempts: u32) -> NextStep {
    if lease_alive {
        NextStep::Wait
    } else if attempts < MAX_ATTEMPTS {
        NextStep::Start
    } else {
        NextStep::GiveUp
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_job_without_a_runner_is_started_again_then_given_up() {
        assert_eq!(next_step(true, 0), NextStep::Wait);
        assert_eq!(next_step(true, MAX_ATTEMPTS), NextStep::Wait);
        assert_eq!(next_step(false, 0), NextStep::Start);
        assert_eq!(next_step(false, MAX_ATTEMPTS - 1), NextStep::Start);
        assert_eq!(next_step(false, MAX_ATTEMPTS), NextStep::GiveUp);
    }

    #[test]
    fn answers_are_tagged_by_status() {
        let pending = DocParseJob::Pending {
            stage: JobStage::Parsing,
        };
        assert_eq!(
            serde_json::to_value(&pending).unwrap(),
            json!({"status": "pending", "stage": "parsing"})
        );
        let done = DocParseJob::Completed {
            markdown: "hello\n\nworld".into(),
            kind: "text".into(),
            pages: vec![],
            notes: vec![ParseNote::Truncated { bytes: 5 }],
        };
        let value = serde_json::to_value(&done).unwrap();
        assert_eq!(value["status"], json!("completed"));
        assert_eq!(value["notes"][0], json!({"kind": "truncated", "bytes": 5}));
        assert_eq!(serde_json::from_value::<DocParseJob>(value).unwrap(), done);
    }

    #[test]
    fn docs_links_go_to_the_parsers_hosts_only() {
        for good in [
            "mineru.net",
            "MinerU.net.",
            "cdn-mineru.openxlab.org.cn",
            "bucket.mineru.oss-cn-shanghai.aliyuncs.com",
            "api.cloud.llamaindex.ai",
        ] {
            assert!(is_docs_host(good), "{good}");
        }
        for bad in [
            "evilmineru.net",
            "mineru.net.evil.test",
            ".mineru.net",
            "oss-cn-shanghai.aliyuncs.com",
            "cloud.llamaindex.ai",
            "127.0.0.1",
            "",
        ] {
            assert!(!is_docs_host(bad), "{bad}");
        }
    }

    #[test]
    fn remote_providers_have_their_own_credential_context() {
        assert_eq!(DocParseProvider::Local.credential_context(), None);
        assert_eq!(
            DocParseProvider::Mineru.credential_context().as_deref(),
            Some("docs:mineru")
        );
        assert_eq!(
            DocParseProvider::LlamaParse.credential_context().as_deref(),
            Some("docs:llama-parse")
        );
        assert!(!DocParseProvider::Local.is_remote());
        assert!(DocParseProvider::Mineru.is_remote());
    }

    #[test]
    fn providers_parse_from_their_wire_spelling_only() {
        for provider in [
            DocParseProvider::Local,
            DocParseProvider::Mineru,
            DocParseProvider::LlamaParse,
        ] {
            assert_eq!(DocParseProvider::parse(provider.as_str()), Some(provider));
        }
        assert_eq!(DocParseProvider::parse(""), Some(DocParseProvider::Local));
        assert_eq!(DocParseProvider::parse("llamaparse"), None);
    }
}
