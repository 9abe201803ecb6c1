//! Runs one job to its end on this instance: waits for a free slot (the local parser's,
//! or the remote parsers' own), takes the job's lease (so no other instance runs it at
//! the same time), counts the attempt, parses (in the sandbox, or at the remote parser
//! from this process) while renewing the lease, and stores the outcome. A lease that
//! cannot be renewed, or a job deleted meanwhile (cancelled from any instance), stops
//! the parse: the worker is killed, or the remote exchange and its polling are dropped.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;

use super::Inner;
use super::job::{JobRecord, Outcome, failure, file_key, lease_key, record_key};

/// How long a lease lasts without renewal: an instance that dies leaves its job to be
/// taken over after at most this long.
pub const LEASE_TTL: Duration = Duration::from_secs(10);
/// How often a runner renews its lease and checks the job still exists.
pub const RENEW_EVERY: Duration = Duration::from_secs(2);

/// Starts a run of job `id` here, unless one is already waiting or running here.
pub fn spawn(inner: &Arc<Inner>, id: &str) {
    let fresh = inner
        .queued
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .insert(id.to_string());
    if fresh {
        let inner = inner.clone();
        let id = id.to_string();
        tokio::spawn(async move {
            run(&inner, &id).await;
            inner
                .queued
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .remove(&id);
        });
    }
}

/// Runs job `id` here unless another runner holds it.
async fn run(inner: &Arc<Inner>, id: &str) {
    let remote = match inner.load(id).await {
        Ok(Some(record)) if record.outcome.is_none() => record.provider.is_remote(),
        Ok(_) => return,
        Err(error) => {
            tracing::error!(%error, "loading a parse job");
            return;
        }
    };
    let slots = if remote {
        &inner.remote_slots
    } else {
        &inner.slots
    };
    let Ok(_slot) = slots.clone().acquire_owned().await else {
        return;
    };
    let lease = lease_key(id);
    match inner.store.claim(&lease, &inner.instance, LEASE_TTL).await {
        Ok(true) => {}
        Ok(false) => return,
        Err(error) => {
            tracing::error!(%error, "claiming a parse job");
            return;
        }
    }
    if let Err(error) = run_claimed(inner, id).await {
        tracing::error!(%error, "running a parse job");
    }
    if let Err(error) = inner.store.release(&lease, &inner.instance).await {
        tracing::warn!(%error, "releasing a parse job");
    }
}

async fn run_claimed(inner: &Inner, id: &str) -> Result<(), crate::kv::documents::StoreError> {
    let Some(mut record) = inner.load(id).await? else {
        return Ok(());
    };
    if record.outcome.is_some() {
        return Ok(());
    }
    record.attempts += 1;
    inner.save(&record).await?;
    let file = inner.store.get(&file_key(id)).await?;
    let bytes = file.and_then(|text| {
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .ok()
    });
    let outcome = match bytes {
        None => Outcome::Failed {
            error: failure(
                "parse_input_missing",
                "The uploaded file is no longer stored; upload it again",
            ),
        },
        Some(bytes) => {
            let parse = async {
                if record.provider.is_remote() {
                    inner.remote.parse(&record, bytes).await
                } else {
                    inner.sandbox.parse(bytes, record.name.as_deref()).await
                }
            };
            tokio::select! {
                outcome = parse => outcome,
                () = lost(inner, id) => return Ok(()),
            }
        }
    };
    // Cancelled while the worker finished: nothing to store.
    let Some(current) = inner.load(id).await? else {
        return Ok(());
    };
    let record = JobRecord {
        outcome: Some(outcome),
        ..current
    };
    inner.save(&record).await?;
    inner.store.delete(&file_key(id)).await?;
    Ok(())
}

/// Resolves when the runner must stop: its lease is gone or the job was deleted.
async fn lost(inner: &Inner, id: &str) {
    let lease = lease_key(id);
    loop {
        tokio::time::sleep(RENEW_EVERY).await;
        let renewed = inner
            .store
            .renew(&lease, &inner.instance, LEASE_TTL)
            .await
            .unwrap_or(false);
        let exists = inner
            .store
            .get(&record_key(id))
            .await
            .map(|r| r.is_some())
            .unwrap_or(true);
        if !renewed || !exists {
            tracing::info!(renewed, exists, "a parse job stopped");
            return;
        }
    }
}
