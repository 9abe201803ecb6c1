//! One job as the store keeps it ([`JobRecord`], JSON at `doc-parse:<id>`), the keys of
//! its file and lease beside it, and its secret: random, handed out once, kept only as a
//! SHA-256 hash and compared in constant time.

use base64::Engine as _;
use hearth_core::api::doc_parse::{
    DocParseJob, DocParseProvider, JobFailure, JobStage, ParseNote, ParsedPage,
};
use hearth_core::byok::Envelope;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::signing::random_bytes;

/// A job in the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobRecord {
    /// Its id.
    pub id: String,
    /// SHA-256 of its secret, base64url.
    pub secret_hash: String,
    /// Who parses it.
    pub provider: DocParseProvider,
    /// The uploaded file's name, a hint only.
    pub name: Option<String>,
    /// The type its bytes were found to be.
    pub kind: String,
    /// The file's size in bytes.
    pub size: u64,
    /// Milliseconds since the Unix epoch when it was created.
    pub created_ms: u64,
    /// How many times a runner started it.
    pub attempts: u32,
    /// How it ended, once it has.
    pub outcome: Option<Outcome>,
    /// The remote parser's credential (none for the local parser).
    #[serde(default)]
    pub credential: Credential,
}

/// The credential a remote parse runs with. An envelope stays sealed in the store and is
/// opened only when the job runs; the operator's default is looked up then too, so no
/// plaintext secret is ever written to the store.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "envelope")]
pub enum Credential {
    /// None (the local parser, or MinerU's token-free agent mode).
    #[default]
    None,
    /// The operator's (`HEARTH_MINERU_API_TOKEN`, `HEARTH_LLAMA_PARSE_API_KEY`).
    Default,
    /// The user's, sealed for the provider's context (`docs:mineru`,
    /// `docs:llama-parse`).
    Envelope(Envelope),
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "result")]
pub enum Outcome {
    /// The text.
    Completed {
        /// Markdown.
        markdown: String,
        /// Page boundaries.
        pages: Vec<ParsedPage>,
        /// What the user should know.
        notes: Vec<ParseNote>,
    },
    /// The failure.
    Failed {
        /// Why.
        error: JobFailure,
    },
}

impl JobRecord {
    /// The answer a poll gives for this record (`stage` when it is not finished).
    pub fn answer(&self, stage: JobStage) -> DocParseJob {
        match &self.outcome {
            None => DocParseJob::Pending { stage },
            Some(Outcome::Completed {
                markdown,
                pages,
                notes,
            }) => DocParseJob::Completed {
                markdown: markdown.clone(),
                kind: self.kind.clone(),
                pages: pages.clone(),
                notes: notes.clone(),
            },
            Some(Outcome::Failed { error }) => DocParseJob::Failed {
                error: error.clone(),
            },
        }
    }

    /// Whether `secret` is this job's, compared in constant time.
    pub fn accepts(&self, secret: &str) -> bool {
        hash_secret(secret)
            .as_bytes()
            .ct_eq(self.secret_hash.as_bytes())
            .into()
    }
}

/// A failure with `code` and `message`.
pub fn failure(code: &str, message: impl Into<String>) -> JobFailure {
    JobFailure {
        code: code.to_string(),
        message: message.into(),
    }
}

/// A new job id (128 random bits, base64url).
pub fn new_id() -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&random_bytes()[..16])
}

/// A new secret (256 random bits, base64url) and its hash.
pub fn new_secret() -> (String, String) {
    let secret = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random_bytes());
    let hash = hash_secret(&secret);
    (secret, hash)
}

fn hash_secret(secret: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(secret.as_bytes()))
}

/// Whether `id` could be a job id (so a malformed one never reaches the store).
pub fn is_valid_id(id: &str) -> bool {
    id.len() == 22
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The record's key.
pub fn record_key(id: &str) -> String {
    format!("doc-parse:{id}")
}

/// The key of the uploaded file (base64).
pub fn file_key(id: &str) -> String {
    format!("doc-parse:{id}:file")
}

/// The key of the runner's lease.
pub fn lease_key(id: &str) -> String {
    format!("doc-parse:{id}:lease")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(secret_hash: String) -> JobRecord {
        JobRecord {
            id: new_id(),
            secret_hash,
            provider: DocParseProvider::Local,
            name: None,
            kind: "text".into(),
            size: 1,
            created_ms: 0,
            attempts: 0,
            outcome: None,
            credential: Credential::None,
        }
    }

    #[test]
    fn only_the_jobs_own_secret_is_accepted() {
        let (secret, hash) = new_secret();
        let job = record(hash);
        assert!(job.accepts(&secret));
        assert!(!job.accepts(""));
        assert!(!job.accepts(&secret[1..]));
        assert!(!job.accepts(&job.secret_hash));
        let (other, _) = new_secret();
        assert!(!job.accepts(&other));
    }

    #[test]
    fn ids_are_random_and_checked_before_use() {
        let (a, b) = (new_id(), new_id());
        assert_ne!(a, b);
        assert!(is_valid_id(&a));
        assert!(!is_valid_id("../../etc"));
        assert!(!is_valid_id(&format!("{a}x")));
        assert!(!is_valid_id("aaaaaaaaaaaaaaaaaaaaa:"));
    }

    #[test]
    fn a_record_round_trips_and_answers_by_its_outcome() {
        let (_, hash) = new_secret();
        let mut job = record(hash);
        assert_eq!(
            job.answer(JobStage::Queued),
            DocParseJob::Pending {
                stage: JobStage::Queued
            }
        );
        job.outcome = Some(Outcome::Failed {
            error: failure("parse_timeout", "too slow"),
        });
        let text = serde_json::to_string(&job).unwrap();
        assert!(
            !text.contains("secret\""),
            "only the hash is stored: {text}"
        );
        let back: JobRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, job);
        assert_eq!(
            serde_json::to_value(&job).unwrap()["credential"],
            serde_json::json!({"kind": "none"})
        );
        // A record written before credentials existed still reads.
        let mut old = serde_json::to_value(&job).unwrap();
        old.as_object_mut().unwrap().remove("credential");
        let back: JobRecord = serde_json::from_value(old).unwrap();
        assert_eq!(back.credential, Credential::None);
        assert!(matches!(
            back.answer(JobStage::Queued),
            DocParseJob::Failed { .. }
        ));
    }
}
