//! A file's way into a collection, one stage at a time, each recorded before the next
//! starts so that a reload, a retry or another tab knows where it is:
//!
//! 1. **upload**: the bytes read, the type decided from them (an image is refused: a
//!    collection holds text), the limits checked (`crate::attachments::read`), the
//!    original stored at `knowledge/<collection>/<file>/source`;
//! 2. **parse**: the text extracted from the stored original (in the browser for text
//!    kinds, through the edge's parse job otherwise) and stored at `…/content` (a text
//!    file's content is its source: one path);
//! 3. **index**: the text cut into passages (`hearth_core::chunk`); none means nothing
//!    to find, which is said.
//!
//! A failed stage is recorded with its code where it failed and stops; a cancelled file
//! (its record gone) stops at the next step and its job on the edge is cancelled. The
//! work on a file holds the Web Lock `hearth-knowledge-<file>`.

use hearth_core::attachment::{Reader, bounded_text};
use hearth_core::chunk::{ChunkSettings, chunk};
use hearth_core::filetype::sniff;
use hearth_core::knowledge::transfer::{KnowledgePath, Part};
use hearth_core::knowledge::{Failure, KnowledgeFile, Stage};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{DOCUMENT, change_file, read_text, still_there};
use crate::attachments::read::{Refusal, check_document, document_text, read_bytes};
use crate::files;

/// What every file's lock name starts with.
pub const LOCK_PREFIX: &str = "hearth-knowledge-";

/// The lock held while file `file` is worked on.
pub fn lock_name(file: &str) -> String {
    format!("{LOCK_PREFIX}{file}")
}

/// Starts the way in of `chosen`, added to `collection` as file `id`.
pub(super) fn spawn_upload(collection: String, id: String, chosen: web_sys::File) {
    spawn_local(async move {
        let _lock = crate::locks::claim(&lock_name(&id)).await;
        let next = upload(&collection, &id, chosen).await;
        run_stages(&collection, &id, next).await;
    });
}

/// Runs file `file` of `collection` from `stage` on (a resumed or retried file).
pub(super) fn spawn_from(collection: String, file: String, stage: Stage) {
    spawn_local(async move {
        let _lock = match crate::locks::claim(&lock_name(&file)).await {
            // Another tab works on it.
            crate::locks::Claim::Taken => return,
            other => other,
        };
        run_stages(&collection, &file, Some(stage)).await;
    });
}

/// Runs the stages from `next` until the file is ready, fails or is gone.
async fn run_stages(collection: &str, file: &str, mut next: Option<Stage>) {
    while let Some(stage) = next {
        if !still_there(collection, file) {
            return;
        }
        next = match stage {
            Stage::Parse => parse(collection, file).await,
            Stage::Index => index(collection, file).await,
            Stage::Upload | Stage::Ready => None,
        };
    }
}

/// Records that `stage` failed with `refusal`; nothing runs after it.
async fn fail(collection: &str, file: &str, stage: Stage, refusal: Refusal) -> Option<Stage> {
    let _ = change_file(collection, file, move |f| {
        f.stage = stage;
        f.failure = Some(Failure {
            stage,
            code: refusal.code,
            detail: refusal.detail,
        });
    })
    .await;
    None
}

/// The file's record, as stored now.
fn record(collection: &str, file: &str) -> Option<KnowledgeFile> {
    DOCUMENT.value().with_untracked(|library| {
        library
            .as_ref()?
            .collection(collection)?
            .file(file)
            .cloned()
    })
}

/// Where `part` of file `file` is stored.
fn stored_at(collection: &str, file: &str, part: Part) -> KnowledgePath {
    KnowledgePath::new(collection, file, part)
}

/// Stage 1: the original stored; the next stage.
async fn upload(collection: &str, file: &str, chosen: web_sys::File) -> Option<Stage> {
    let refused = |code: &str| Refusal {
        code: code.to_string(),
        detail: None,
    };
    let bytes = match read_bytes(&chosen).await {
        Ok(bytes) => bytes,
        Err(refusal) => return fail(collection, file, Stage::Upload, refusal).await,
    };
    let Ok(kind) = sniff(&bytes, Some(&chosen.name())) else {
        return fail(
            collection,
            file,
            Stage::Upload,
            refused("attach_unknown_type"),
        )
        .await;
    };
    if Reader::of(kind) == Reader::Image {
        return fail(collection, file, Stage::Upload, refused("knowledge_image")).await;
    }
    if let Err(refusal) = check_document(
        kind,
        bytes.len() as u64,
        &[],
        hearth_core::attachment::Bounds::MESSAGE,
    )
    .await
    {
        return fail(collection, file, Stage::Upload, refusal).await;
    }
    let at = stored_at(collection, file, Part::Source);
    let dir = at.folder();
    if let Err(error) = files::save(&dir, at.part.name(), &bytes).await {
        return fail(collection, file, Stage::Upload, error.into()).await;
    }
    let source = at.path();
    let stored = change_file(collection, file, move |f| {
        f.kind = Some(kind);
        f.size = bytes.len() as u64;
        if KnowledgeFile::text_is_source(kind) {
            f.content_path = source.clone();
        }
        f.source_path = source;
        f.stage = Stage::Parse;
    })
    .await;
    match stored {
        Ok(()) => Some(Stage::Parse),
        // Cancelled meanwhile: what this stage stored goes with it.
        Err(_) => {
            let _ = files::remove_all(&dir).await;
            None
        }
    }
}

/// Stage 2: the text extracted from the stored original; the next stage.
async fn parse(collection: &str, file: &str) -> Option<Stage> {
    let record = record(collection, file)?;
    let kind = record.kind?;
    let (dir, name) = files::split_path(&record.source_path);
    let bytes = match files::read(dir, name).await {
        Ok(bytes) => bytes,
        Err(error) => return fail(collection, file, Stage::Parse, error.into()).await,
    };
    let (c, f) = (collection.to_string(), file.to_string());
    let wanted = move || still_there(&c, &f);
    let extracted = match document_text(kind, &bytes, None, &record.name, &wanted).await {
        Ok(extracted) => extracted,
        Err(refusal) => return fail(collection, file, Stage::Parse, refusal).await,
    };
    let (text, cut) = bounded_text(&extracted.text);
    let mut notes = extracted.notes;
    notes.extend(cut);
    let content = if KnowledgeFile::text_is_source(kind) {
        record.source_path.clone()
    } else {
        let at = stored_at(collection, file, Part::Content);
        if let Err(error) = files::save(&at.folder(), at.part.name(), text.as_bytes()).await {
            return fail(collection, file, Stage::Parse, error.into()).await;
        }
        at.path()
    };
    let chars = text.chars().count() as u64;
    let pages = extracted.page_starts;
    let wrote = content != record.source_path;
    let stored = change_file(collection, file, move |f| {
        f.content_path = content;
        f.chars = chars;
        f.notes = notes;
        f.page_starts = pages;
        f.edited = false;
        f.stage = Stage::Index;
    })
    .await;
    match stored {
        Ok(()) => Some(Stage::Index),
        // Cancelled while the text was being extracted: the text written goes too.
        Err(_) => {
            if wrote {
                let at = stored_at(collection, file, Part::Content);
                let _ = files::remove(&at.folder(), at.part.name()).await;
            }
            None
        }
    }
}

/// Stage 3: the text cut into passages; ready, or failed with nothing to find.
async fn index(collection: &str, file: &str) -> Option<Stage> {
    let record = record(collection, file)?;
    let text = match read_text(&record.content_path).await {
        Ok(text) => text,
        Err(error) => return fail(collection, file, Stage::Index, error.into()).await,
    };
    let passages = chunk(
        &text,
        &record.id,
        &record.version.to_string(),
        &record.page_starts,
        ChunkSettings::default(),
    )
    .into_iter()
    .filter(|p| !p.text.trim().is_empty())
    .count();
    if passages == 0 {
        let refusal = Refusal {
            code: "knowledge_no_text".into(),
            detail: None,
        };
        return fail(collection, file, Stage::Index, refusal).await;
    }
    let _ = change_file(collection, file, move |f| {
        f.passages = u32::try_from(passages).unwrap_or(u32::MAX);
        f.stage = Stage::Ready;
    })
    .await;
    None
}
