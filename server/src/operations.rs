//! Edge mutations whose answer can be lost in transit without leaving an unknown: plugin
//! install, uninstall and execute named with `hearth-operation-id`
//! (`core::api::operations`).
//!
//! An operation runs under a lease (`op:<scope>:<id>:lease`, renewed while it runs, let go
//! when it ends or its request is dropped) and leaves a record (`op:<scope>:<id>`) in the
//! [`DocumentStore`] (this process, or Redis when hosted): `running` with its kind while it
//! runs, then its answer, kept for [`KEEP`]. The same id again, on any instance:
//! - after it finished, answers the recorded answer (nothing is done twice);
//! - while another instance runs it, waits for that answer (at most [`WAIT`]);
//! - after the instance running it died (its lease lapsed, no answer): an install or an
//!   uninstall runs again (doing either twice ends the same); a call is refused as
//!   interrupted, since running a tool twice may not.
//!
//! `GET /api/operations/{id}` looks a record up without doing anything.

use std::future::Future;
use std::time::Duration;

use hearth_core::api::operations::{OperationState, valid_client_chosen_id};
use hearth_core::api::{ApiError, ErrorCode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::kv::KvStore;
use crate::kv::documents::{DocumentStore, StoreError};

/// How long a finished operation's answer is kept.
pub const KEEP: Duration = Duration::from_secs(3600);
/// How long a running operation's lease lasts unless renewed.
pub const LEASE: Duration = Duration::from_secs(10);
/// How often the lease is renewed.
const RENEW: Duration = Duration::from_secs(3);
/// How long a repeat waits for the instance running the operation to finish it.
pub const WAIT: Duration = Duration::from_secs(30);
/// How often a repeat looks again.
const POLL: Duration = Duration::from_millis(200);

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// Installs a plugin.
    Install,
    /// Uninstalls a plugin.
    Uninstall,
    /// Runs a plugin's function.
    Execute,
}

impl Kind {
    /// Whether doing it again after an interruption is harmless.
    fn runs_again(self) -> bool {
        matches!(self, Self::Install | Self::Uninstall)
    }
}

/// An answer: its status and JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The body.
    pub body: Value,
}

impl Answer {
    /// The answer to `outcome`: the result with 200, or the error with its status.
    pub fn of(outcome: Result<Value, ApiError>) -> Self {
        match outcome {
            Ok(body) => Self { status: 200, body },
            Err(error) => Self {
                status: error.status_code,
                body: serde_json::to_value(&error).unwrap_or(Value::Null),
            },
        }
    }
}

/// The stored record.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase")]
enum Record {
    Running { kind: Kind },
    Done { status: u16, body: Value },
}

/// The operation service. Cheap to clone.
#[derive(Clone)]
pub struct Operations {
    store: DocumentStore,
}

fn unavailable(error: StoreError) -> ApiError {
    tracing::warn!(%error, "operation store");
    ApiError::new(
        ErrorCode::ServiceUnavailable,
        "The edge's shared store is not answering; try again shortly",
    )
}

fn interrupted() -> ApiError {
    ApiError::new(
        ErrorCode::ServiceUnavailable,
        "The edge stopped while running this call; it may or may not have run, so it is not run again",
    )
    .with_details(serde_json::json!({ "operation": "interrupted" }))
}

fn keys(scope: &str, id: &str) -> Result<(String, String), ApiError> {
    if !valid_client_chosen_id(id) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            "An operation id is 16 to 64 letters, digits or dashes",
        ));
    }
    let record = format!("op:{scope}:{id}");
    let lease = format!("{record}:lease");
    Ok((record, lease))
}

fn token() -> String {
    let mut bytes = [0u8; 16];
    let _ = getrandom::fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Lets the lease go when the operation ends or its request is dropped mid-way (the
/// client hung up): a repeat need not wait for it to lapse.
struct Held {
    store: DocumentStore,
    lease: String,
    token: String,
}

impl Drop for Held {
    fn drop(&mut self) {
        let (store, lease, token) = (
            self.store.clone(),
            std::mem::take(&mut self.lease),
            std::mem::take(&mut self.token),
        );
        tokio::spawn(async move {
            let _ = store.release(&lease, &token).await;
        });
    }
}

impl Operations {
    /// The service keeping records beside `kv`.
    pub fn new(kv: &KvStore) -> Self {
        Self {
            store: DocumentStore::for_kv(kv),
        }
    }

    async fn record(&self, key: &str) -> Result<Option<Record>, ApiError> {
        let text = self.store.get(key).await.map_err(unavailable)?;
        Ok(text.and_then(|text| serde_json::from_str(&text).ok()))
    }

    /// Runs `work` as `scope`'s operation `id` of `kind` (or simply runs it, unnamed), as
    /// the module says; the answer to give.
    pub async fn once<F>(
        &self,
        scope: &str,
        id: Option<&str>,
        kind: Kind,
        work: F,
    ) -> Result<Answer, ApiError>
    where
        F: Future<Output = Result<Value, ApiError>>,
    {
        let Some(id) = id else {
            return Ok(Answer::of(work.await));
        };
        let (key, lease) = keys(scope, id)?;
        let token = token();
        let waiting_since = tokio::time::Instant::now();
        loop {
            let before = self.record(&key).await?;
            if let Some(Record::Done { status, body }) = before {
                return Ok(Answer { status, body });
            }
            if self
                .store
                .claim(&lease, &token, LEASE)
                .await
                .map_err(unavailable)?
            {
                let held = Held {
                    store: self.store.clone(),
                    lease: lease.clone(),
                    token: token.clone(),
                };
                if matches!(before, Some(Record::Running { kind }) if !kind.runs_again()) {
                    return Err(interrupted());
                }
                let running = serde_json::to_string(&Record::Running { kind }).unwrap_or_default();
                self.store
                    .put(&key, &running, KEEP)
                    .await
                    .map_err(unavailable)?;
                let answer = Answer::of(self.renewing(work, &lease, &token).await);
                let done = Record::Done {
                    status: answer.status,
                    body: answer.body.clone(),
                };
                if let Err(error) = self
                    .store
                    .put(
                        &key,
                        &serde_json::to_string(&done).unwrap_or_default(),
                        KEEP,
                    )
                    .await
                {
                    tracing::warn!(%error, "an operation's answer was not recorded");
                }
                drop(held);
                return Ok(answer);
            }
            // Another request runs it: wait for its answer, or for its lease to lapse.
            if waiting_since.elapsed() >= WAIT {
                return Err(ApiError::new(
                    ErrorCode::ServiceUnavailable,
                    "This operation is still running; ask again shortly",
                )
                .with_details(serde_json::json!({ "operation": "running" })));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Runs `work`, renewing the lease meanwhile.
    async fn renewing<F>(&self, work: F, lease: &str, token: &str) -> Result<Value, ApiError>
    where
        F: Future<Output = Result<Value, ApiError>>,
    {
        let mut work = std::pin::pin!(work);
        loop {
            tokio::select! {
                outcome = &mut work => return outcome,
                () = tokio::time::sleep(RENEW) => {
                    let _ = self.store.renew(lease, token, LEASE).await;
                }
            }
        }
    }

    /// Where `scope`'s operation `id` is; a typed 404 when it is not known (it never
    /// arrived, or finished more than [`KEEP`] ago).
    pub async fn look_up(&self, scope: &str, id: &str) -> Result<OperationState, ApiError> {
        let unknown = || {
            ApiError::new(
                ErrorCode::NotFound,
                "No operation is known under this id (it never arrived, or ended long ago)",
            )
        };
        // An id no operation can have is simply not known.
        let (key, lease) = keys(scope, id).map_err(|_| unknown())?;
        match self.record(&key).await? {
            None => Err(unknown()),
            Some(Record::Done { status, body }) => Ok(OperationState::Done { status, body }),
            Some(Record::Running { .. }) => {
                if self.store.is_held(&lease).await.map_err(unavailable)? {
                    Ok(OperationState::Running)
                } else {
                    Ok(OperationState::Interrupted)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ID: &str = "0123456789abcdef";

    #[tokio::test]
    async fn a_named_operation_runs_once_and_its_answer_is_kept() {
        let operations = Operations::new(&KvStore::memory());
        let runs = std::sync::atomic::AtomicUsize::new(0);
        let work = || async {
            runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(json!({"installed": 1}))
        };
        let first = operations
            .once("local", Some(ID), Kind::Install, work())
            .await
            .unwrap();
        let again = operations
            .once("local", Some(ID), Kind::Install, work())
            .await
            .unwrap();
        assert_eq!(first, again);
        assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(
            operations.look_up("local", ID).await.unwrap(),
            OperationState::Done {
                status: 200,
                body: json!({"installed": 1})
            }
        );
        // Another scope does not see it.
        assert_eq!(
            operations.look_up("client:b", ID).await.unwrap_err().code,
            ErrorCode::NotFound
        );
        // Unnamed work simply runs.
        operations
            .once("local", None, Kind::Install, work())
            .await
            .unwrap();
        assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn errors_are_answers_too_and_ids_are_checked() {
        let operations = Operations::new(&KvStore::memory());
        let refused = || async { Err(ApiError::new(ErrorCode::BadRequest, "no such plugin")) };
        let answer = operations
            .once("local", Some(ID), Kind::Uninstall, refused())
            .await
            .unwrap();
        assert_eq!(answer.status, 400);
        assert_eq!(answer.body["code"], "BAD_REQUEST");
        let error = operations
            .once("local", Some("short"), Kind::Uninstall, refused())
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::BadRequest);
    }

    #[tokio::test]
    async fn a_call_dropped_mid_way_is_interrupted_and_not_run_again_but_an_install_is() {
        let operations = Operations::new(&KvStore::memory());
        for (kind, runs_again) in [(Kind::Execute, false), (Kind::Install, true)] {
            let id = format!("{kind:?}-0123456789abcdef");
            let slow = operations.once("local", Some(&id), kind, async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                Ok(json!(null))
            });
            // The request is dropped while it runs (the client hung up).
            assert!(
                tokio::time::timeout(Duration::from_millis(100), slow)
                    .await
                    .is_err()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert_eq!(
                operations.look_up("local", &id).await.unwrap(),
                OperationState::Interrupted
            );
            let again = operations
                .once("local", Some(&id), kind, async { Ok(json!("ran")) })
                .await;
            if runs_again {
                assert_eq!(again.unwrap().body, json!("ran"));
            } else {
                let error = again.unwrap_err();
                assert_eq!(error.details.unwrap()["operation"], "interrupted");
            }
        }
    }
}
