//! Document-parse jobs: an upload becomes a job ([`DocParse::start`]), any instance can
//! answer its poll ([`DocParse::poll`]) or cancel it ([`DocParse::cancel`]), and a job
//! whose runner vanished is started again or failed, never left pending
//! ([`hearth_core::api::doc_parse::next_step`]).
//!
//! - [`job`]: the record, its keys and its secret;
//! - jobs live in a [`crate::kv::documents::DocumentStore`] (this process, or the
//!   deployment's Redis);
//! - [`runner`]: one job's run on this instance, under a lease;
//! - [`sandbox`]: the worker process and its limits; [`worker`]: the worker itself;
//! - [`local`]: the parsers that need no external service;
//! - [`remote`]: MinerU and LlamaParse, called from this process under the same lease.

pub mod job;
pub mod local;
pub mod remote;
pub mod runner;
pub mod sandbox;
pub mod worker;

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use hearth_core::api::doc_parse::{
    DocParseDeleted, DocParseJob, DocParseProvider, DocParseStarted, JOB_TTL_SECS, JobStage,
    NextStep, next_step,
};
use hearth_core::api::{ApiError, ErrorCode};
use tokio::sync::Semaphore;

use self::job::{JobRecord, Outcome, failure, file_key, lease_key, record_key};
use self::remote::Remote;
use self::sandbox::Sandbox;
use crate::byok::ByokKeys;
use crate::clock::now_ms;
use crate::config::DocParseSettings;
use crate::kv::KvStore;
use crate::kv::documents::{DocumentStore, StoreError};
use crate::safe_fetch::FetchError;

/// Remote parses one instance runs at once (they wait on the network, not the CPU).
pub const REMOTE_SLOTS: usize = 16;

/// An uploaded file to parse.
#[derive(Debug)]
pub struct Upload {
    /// The file's name, a hint only.
    pub name: Option<String>,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Who parses it.
    pub provider: DocParseProvider,
    /// A remote parser's credential, sealed for its context.
    pub credential: Option<hearth_core::byok::Envelope>,
    /// Use the operator's credential for the remote parser.
    pub use_default: bool,
}

/// The document-parse service. Cheap to clone.
#[derive(Clone)]
pub struct DocParse {
    inner: Arc<Inner>,
}

/// What the service and its runners share.
pub struct Inner {
    store: DocumentStore,
    /// This instance's name in leases.
    instance: String,
    slots: Arc<Semaphore>,
    /// Remote parses, apart from the local parser's slots.
    remote_slots: Arc<Semaphore>,
    /// Jobs waiting for or holding a slot here, so repeated polls do not queue one twice.
    queued: std::sync::Mutex<std::collections::HashSet<String>>,
    sandbox: Sandbox,
    remote: Remote,
}

/// The remote parsers the operator gave a key for in `settings` (`/api/config` lists
/// them; the keys stay here).
pub fn deployment_parsers(settings: &DocParseSettings) -> Vec<DocParseProvider> {
    let set = |key: &Option<String>| key.as_deref().is_some_and(|k| !k.trim().is_empty());
    [
        (DocParseProvider::Mineru, set(&settings.mineru_api_token)),
        (
            DocParseProvider::LlamaParse,
            set(&settings.llama_parse_api_key),
        ),
    ]
    .into_iter()
    .filter_map(|(parser, keyed)| keyed.then_some(parser))
    .collect()
}

impl DocParse {
    /// The service for these settings, keeping jobs beside `kv`, running workers from
    /// `program` (the `hearth` binary), opening remote parsers' credentials with `byok`.
    pub fn new(
        settings: &DocParseSettings,
        kv: &KvStore,
        program: std::path::PathBuf,
        byok: Option<Arc<ByokKeys>>,
    ) -> Result<Self, FetchError> {
        let wrapper = settings
            .wrapper
            .as_deref()
            .map(|w| w.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        Ok(Self {
            inner: Arc::new(Inner {
                store: DocumentStore::for_kv(kv),
                instance: job::new_id(),
                slots: Arc::new(Semaphore::new(settings.workers.max(1))),
                remote_slots: Arc::new(Semaphore::new(REMOTE_SLOTS)),
                queued: std::sync::Mutex::default(),
                sandbox: Sandbox {
                    program,
                    wrapper,
                    timeout: Duration::from_secs(settings.timeout_secs.max(1)),
                    memory_mib: settings.memory_mib.max(64),
                    max_input_bytes: settings.max_bytes,
                    max_output_bytes: 8 * 1024 * 1024,
                },
                remote: Remote::new(settings, byok)?,
            }),
        })
    }

    /// The largest file accepted.
    pub fn max_bytes(&self) -> u64 {
        self.inner.sandbox.max_input_bytes
    }

    /// Whether jobs are shared between instances.
    pub fn is_shared(&self) -> bool {
        self.inner.store.is_shared()
    }

    /// Creates a job for `upload` and starts it here.
    ///
    /// A remote parser's upload is checked before anything is stored or sent: its type,
    /// its credential (opened once to check it, then kept sealed), and its provider's
    /// rules ([`Remote::admit`]).
    pub async fn start(&self, upload: Upload) -> Result<DocParseStarted, ApiError> {
        if !upload.provider.is_remote() && (upload.credential.is_some() || upload.use_default) {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                "The local parser takes no credential",
            )
            .with_details(serde_json::json!({ "field": "credential" })));
        }
        if upload.bytes.len() as u64 > self.inner.sandbox.max_input_bytes {
            return Err(ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!(
                    "The file is larger than {} bytes",
                    self.inner.sandbox.max_input_bytes
                ),
            )
            .with_details(
                serde_json::json!({ "limitBytes": self.inner.sandbox.max_input_bytes }),
            ));
        }
        if upload.bytes.is_empty() {
            return Err(ApiError::new(ErrorCode::BadRequest, "The file is empty"));
        }
        let kind = if upload.provider.is_remote() {
            remote::kind_of(&upload.bytes, upload.name.as_deref(), upload.provider)
        } else {
            local::kind_of(&upload.bytes, upload.name.as_deref())
        }
        .map_err(|why| ApiError::new(ErrorCode::FileTypeUnsupported, why))?;
        let credential = if upload.provider.is_remote() {
            self.inner.remote.admit(
                upload.provider,
                upload.credential,
                upload.use_default,
                upload.bytes.len() as u64,
            )?
        } else {
            job::Credential::None
        };
        let id = job::new_id();
        let (secret, secret_hash) = job::new_secret();
        let record = JobRecord {
            id: id.clone(),
            secret_hash,
            provider: upload.provider,
            name: upload.name,
            kind,
            size: upload.bytes.len() as u64,
            created_ms: now_ms(),
            attempts: 0,
            outcome: None,
            credential,
        };
        let file = base64::engine::general_purpose::STANDARD.encode(&upload.bytes);
        let ttl = Duration::from_secs(JOB_TTL_SECS);
        let store = &self.inner.store;
        store
            .put(&file_key(&id), &file, ttl)
            .await
            .map_err(store_error)?;
        if let Err(error) = self.inner.save(&record).await {
            let _ = store.delete(&file_key(&id)).await;
            return Err(store_error(error));
        }
        runner::spawn(&self.inner, &id);
        Ok(DocParseStarted {
            job_id: id,
            job_secret: secret,
            status: JobStage::Queued,
        })
    }

    /// The job's state for its owner. A finished job answers once and is deleted; an
    /// unfinished one without a runner is started here or failed.
    pub async fn poll(&self, id: &str, secret: Option<&str>) -> Result<DocParseJob, ApiError> {
        let record = self.authorised(id, secret).await?;
        if record.outcome.is_some() {
            self.remove(id).await.map_err(store_error)?;
            return Ok(record.answer(JobStage::Parsing));
        }
        let held = self
            .inner
            .store
            .is_held(&lease_key(id))
            .await
            .map_err(store_error)?;
        match next_step(held, record.attempts) {
            NextStep::Wait => Ok(record.answer(JobStage::Parsing)),
            NextStep::Start => {
                runner::spawn(&self.inner, id);
                Ok(record.answer(if record.attempts == 0 {
                    JobStage::Queued
                } else {
                    JobStage::Parsing
                }))
            }
            NextStep::GiveUp => {
                self.remove(id).await.map_err(store_error)?;
                let failed = JobRecord {
                    outcome: Some(Outcome::Failed {
                        error: failure(
                            "parse_interrupted",
                            "The parser stopped before finishing (the server restarted); upload the file again",
                        ),
                    }),
                    ..record
                };
                Ok(failed.answer(JobStage::Parsing))
            }
        }
    }

    /// Deletes the job (a runner anywhere stops within a few seconds).
    pub async fn cancel(
        &self,
        id: &str,
        secret: Option<&str>,
    ) -> Result<DocParseDeleted, ApiError> {
        self.authorised(id, secret).await?;
        self.remove(id).await.map_err(store_error)?;
        Ok(DocParseDeleted {
            ok: true,
            deleted: true,
        })
    }

    async fn authorised(&self, id: &str, secret: Option<&str>) -> Result<JobRecord, ApiError> {
        let not_found = || {
            ApiError::new(
                ErrorCode::NotFound,
                "No such parse job (it may have expired)",
            )
        };
        if !job::is_valid_id(id) {
            return Err(not_found());
        }
        let record = self
            .inner
            .load(id)
            .await
            .map_err(store_error)?
            .ok_or_else(not_found)?;
        match secret {
            Some(secret) if record.accepts(secret) => Ok(record),
            _ => Err(ApiError::new(
                ErrorCode::DocumentJobForbidden,
                "This job's secret is missing or wrong",
            )),
        }
    }

    async fn remove(&self, id: &str) -> Result<(), StoreError> {
        let store = &self.inner.store;
        store.delete(&record_key(id)).await?;
        store.delete(&file_key(id)).await
    }
}

impl Inner {
    /// The record of job `id`, if it exists.
    pub async fn load(&self, id: &str) -> Result<Option<JobRecord>, StoreError> {
        Ok(self
            .store
            .get(&record_key(id))
            .await?
            .and_then(|text| serde_json::from_str(&text).ok()))
    }

    /// Stores `record` for what is left of its lifetime.
    pub async fn save(&self, record: &JobRecord) -> Result<(), StoreError> {
        let age = Duration::from_millis(now_ms().saturating_sub(record.created_ms));
        let ttl = Duration::from_secs(JOB_TTL_SECS)
            .saturating_sub(age)
            .max(Duration::from_secs(1));
        let text = serde_json::to_string(record).unwrap_or_default();
        self.store.put(&record_key(&record.id), &text, ttl).await
    }
}

fn store_error(error: StoreError) -> ApiError {
    match error {
        StoreError::Full => ApiError::new(
            ErrorCode::DocumentJobsFull,
            "The edge holds as many documents as it can; try again shortly",
        )
        .with_retry_after(10),
        StoreError::Kv(error) => {
            tracing::error!(%error, "the parse job store failed");
            ApiError::new(
                ErrorCode::ServiceUnavailable,
                "The deployment's shared store is unavailable; try again shortly",
            )
        }
    }
}
