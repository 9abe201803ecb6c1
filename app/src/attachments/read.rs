//! One file's way into the draft, in its own lazily loaded chunk: its bytes, its type
//! decided from them (`hearth_core::filetype`), the limits (`hearth_core::attachment`),
//! the original and its text into the browser's file store, and the text itself —
//! decoded here for text kinds, HTML as its readable text (`hearth_core::html_text`, no
//! document is ever built from it), documents through
//! the edge's parse jobs; an image scaled down with a thumbnail (`super::image`). A failed
//! step removes what earlier steps stored. The composer's draft reads the files the user
//! chose; an import of another app's export reads the files its messages carry, the same
//! way.

use hearth_core::api::doc_parse::{DocParseJob, POLL_ATTEMPTS, ParseNote};
use hearth_core::attachment::{
    AttachError, AttachLimits, Attachment, Bounds, Reader, bounded_text, check_add,
};
use hearth_core::filetype::{FileKind, sniff};
use leptos::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::Draft;
use crate::edge::{self, EdgeError};
use crate::files::{
    self, ATTACHMENTS, FileError, attachment_text_name as text_name,
    attachment_thumbnail_name as thumbnail_name,
};

/// How often a parse job is asked about, in ms (faster than the edge's suggested 2 s:
/// the user is watching the chip).
const POLL_MS: i32 = 1_000;

/// Why a file was not added: a stable code and, for some, a detail (a limit, the edge's
/// words).
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// `attach_*` or a parse job's code.
    pub code: String,
    /// A limit in bytes, or the edge's sentence for a code the app does not know.
    pub detail: Option<String>,
}

impl Refusal {
    fn new(code: &str) -> Self {
        Self {
            code: code.to_string(),
            detail: None,
        }
    }
}

impl From<AttachError> for Refusal {
    fn from(error: AttachError) -> Self {
        let detail = match &error {
            AttachError::TooLarge { max } | AttachError::TotalTooLarge { max } => {
                Some(max.to_string())
            }
            AttachError::TooMany { max } => Some(max.to_string()),
            _ => None,
        };
        Self {
            code: error.code().to_string(),
            detail,
        }
    }
}

impl From<FileError> for Refusal {
    fn from(error: FileError) -> Self {
        match error {
            FileError::QuotaExceeded => Self::new("attach_storage_full"),
            other => Self {
                code: "attach_storage_failed".into(),
                detail: Some(other.to_string()),
            },
        }
    }
}

/// Who a file is read for.
#[derive(Clone, Copy)]
pub enum ReadFor {
    /// The composer's draft, which may drop the file while it is read.
    Draft(Draft),
    /// An import, which keeps every file it asks for.
    Import,
}

impl ReadFor {
    fn wants(self, id: &str) -> bool {
        match self {
            Self::Draft(draft) => draft.contains(id),
            Self::Import => true,
        }
    }

    fn parsing(self, id: &str) {
        if let Self::Draft(draft) = self {
            draft.set_parsing(id);
        }
    }

    /// Where its files are kept.
    fn folder(self) -> &'static str {
        match self {
            Self::Draft(draft) => draft.holder().folder(),
            Self::Import => ATTACHMENTS,
        }
    }

    /// How many files and which kinds it takes.
    fn bounds(self) -> Bounds {
        match self {
            Self::Draft(draft) => draft.holder().bounds(),
            Self::Import => Bounds::MESSAGE,
        }
    }
}

/// A file to read.
pub enum Source {
    /// One the user chose.
    Chosen(web_sys::File),
    /// Bytes from an archive, with the file's name.
    Bytes {
        /// The name.
        name: String,
        /// The bytes.
        bytes: Vec<u8>,
    },
}

/// Reads `source` into an attachment with id `id`, next to files of sizes `held`.
#[lazy]
pub async fn prepare(
    reader: ReadFor,
    source: Source,
    id: String,
    held: Vec<u64>,
) -> Result<Attachment, Refusal> {
    let outcome = prepare_now(reader, source, &id, &held).await;
    if outcome.is_err() || !reader.wants(&id) {
        forget_now(reader.folder(), &id).await;
    }
    match outcome {
        Ok(_) if !reader.wants(&id) => Err(Refusal::new("attach_removed")),
        other => other,
    }
}

/// Deletes what was stored for attachment `id` in `folder`.
#[lazy]
pub async fn forget(folder: &'static str, id: String) {
    forget_now(folder, &id).await;
}

/// Copies what is stored for attachment `from` to attachment `to`: the original, its
/// text and an image's thumbnail, those it has. Nothing of `to` is left when a step
/// fails (the original gone: `attach_storage_failed` with the file store's words).
pub(super) async fn copy(from: &str, to: &str) -> Result<(), Refusal> {
    let copied = copy_now(from, to).await;
    if copied.is_err() {
        forget_now(ATTACHMENTS, to).await;
    }
    copied
}

async fn copy_now(from: &str, to: &str) -> Result<(), Refusal> {
    let original = files::read(ATTACHMENTS, from).await?;
    files::save(ATTACHMENTS, to, &original).await?;
    for (source, target) in [
        (text_name(from), text_name(to)),
        (thumbnail_name(from), thumbnail_name(to)),
    ] {
        match files::read(ATTACHMENTS, &source).await {
            Ok(bytes) => files::save(ATTACHMENTS, &target, &bytes).await?,
            Err(FileError::Missing) => {}
            Err(other) => return Err(other.into()),
        }
    }
    Ok(())
}

async fn forget_now(folder: &str, id: &str) {
    let _ = files::remove(folder, id).await;
    let _ = files::remove(folder, &text_name(id)).await;
    let _ = files::remove(folder, &thumbnail_name(id)).await;
}

async fn prepare_now(
    reader_for: ReadFor,
    source: Source,
    id: &str,
    held: &[u64],
) -> Result<Attachment, Refusal> {
    let (name, bytes, chosen) = match source {
        Source::Chosen(file) => (file.name(), read_bytes(&file).await?, Some(file)),
        Source::Bytes { name, bytes } => (name, bytes, None),
    };
    let kind = sniff(&bytes, Some(&name)).map_err(|_| Refusal::new("attach_unknown_type"))?;
    let (bounds, folder) = (reader_for.bounds(), reader_for.folder());
    let (text, mut notes) = match Reader::of(kind) {
        Reader::Image if bounds.images => {
            return prepare_image(id, name, kind, bytes, held).await;
        }
        reader => {
            check_document(kind, bytes.len() as u64, held, bounds).await?;
            files::save(folder, id, &bytes).await?;
            if reader == Reader::Edge {
                reader_for.parsing(id);
            }
            let upload = chosen.map(web_sys::Blob::from);
            let extracted =
                document_text(kind, &bytes, upload, &name, &|| reader_for.wants(id)).await?;
            (extracted.text, extracted.notes)
        }
    };
    let (text, cut) = bounded_text(&text);
    notes.extend(cut);
    files::save(folder, &text_name(id), text.as_bytes()).await?;
    Ok(Attachment {
        id: id.to_string(),
        name,
        kind,
        size: bytes.len() as u64,
        text_chars: text.chars().count() as u64,
        notes,
        pixels: None,
    })
}

/// Limits for what the browser reads itself (the edge is not involved), in a holder of
/// `bounds`.
fn browser_limits(bounds: Bounds) -> AttachLimits {
    AttachLimits {
        edge_parser: false,
        edge_max_bytes: 0,
        bounds,
    }
}

/// Whether a document of `kind` and `size` bytes may be read next to files of sizes
/// `held` in a holder of `bounds`: within the limits, and for a kind the browser does not
/// read, with the edge's parser there and taking its size.
pub async fn check_document(
    kind: FileKind,
    size: u64,
    held: &[u64],
    bounds: Bounds,
) -> Result<(), Refusal> {
    let limits = match Reader::of(kind) {
        Reader::Edge => {
            let config = edge::fetch_config().await.ok();
            AttachLimits {
                edge_parser: config
                    .as_ref()
                    .is_some_and(|c| c.capabilities.document_parse),
                edge_max_bytes: config.map_or(0, |c| c.document_parse_max_bytes),
                bounds,
            }
        }
        _ => browser_limits(bounds),
    };
    check_add(held, kind, size, limits)?;
    Ok(())
}

/// A document's text, what the user should know about it, and where its pages start.
pub struct Extracted {
    /// The text (Markdown for parsed documents).
    pub text: String,
    /// Cuts and scanned pages.
    pub notes: Vec<ParseNote>,
    /// Where pages 1, 2, … start in `text`, in bytes (empty without pages).
    pub page_starts: Vec<u64>,
}

/// The text of the document `bytes` of `kind` named `name`: decoded here for text kinds
/// (HTML as its readable text), through the edge's parse job otherwise (`upload` is the
/// file to send, made from the bytes when `None`); the job is cancelled once `wanted`
/// says the file is no longer wanted.
pub async fn document_text(
    kind: FileKind,
    bytes: &[u8],
    upload: Option<web_sys::Blob>,
    name: &str,
    wanted: &dyn Fn() -> bool,
) -> Result<Extracted, Refusal> {
    if Reader::of(kind) != Reader::Edge {
        return Ok(Extracted {
            text: browser_text(kind, bytes),
            notes: Vec::new(),
            page_starts: Vec::new(),
        });
    }
    let upload = match upload {
        Some(upload) => upload,
        None => blob_of(bytes)?,
    };
    edge_text(&upload, name, wanted).await
}

/// An image: scaled down, kept with its thumbnail.
async fn prepare_image(
    id: &str,
    name: String,
    kind: FileKind,
    bytes: Vec<u8>,
    held: &[u64],
) -> Result<Attachment, Refusal> {
    let size = bytes.len() as u64;
    check_add(held, kind, size, browser_limits(Bounds::MESSAGE))?;
    let image = super::image::prepare(kind, bytes).await?;
    files::save(ATTACHMENTS, id, &image.bytes).await?;
    files::save(ATTACHMENTS, &thumbnail_name(id), &image.thumbnail).await?;
    Ok(Attachment {
        id: id.to_string(),
        name,
        kind: image.kind,
        size,
        text_chars: 0,
        notes: Vec::new(),
        pixels: Some(image.pixels),
    })
}

/// `bytes` as a blob, to be sent to the edge.
fn blob_of(bytes: &[u8]) -> Result<web_sys::Blob, Refusal> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(|_| Refusal::new("attach_unreadable"))
}

pub(crate) async fn read_bytes(file: &web_sys::File) -> Result<Vec<u8>, Refusal> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| Refusal::new("attach_unreadable"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The text of a text kind: UTF-8 without a byte-order mark; HTML without its markup.
fn browser_text(kind: FileKind, bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if kind == FileKind::Html {
        hearth_core::html_text::html_text(text)
    } else {
        text.to_string()
    }
}

/// Why an upload to the edge's parser did not start.
enum Upload {
    /// Before it was sent (the chosen parser cannot be used).
    Refused(Refusal),
    /// The edge's answer.
    Edge(EdgeError),
}

impl crate::envelope::EdgeKeyRefusal for Upload {
    fn edge_key_refused(&self) -> bool {
        matches!(self, Self::Edge(error) if error.edge_key_refused())
    }
}

/// The text of a document, from the edge's parser; the job is cancelled when the file
/// is no longer `wanted` meanwhile.
async fn edge_text(
    file: &web_sys::Blob,
    name: &str,
    wanted: &dyn Fn() -> bool,
) -> Result<Extracted, Refusal> {
    // The user's key (for a remote parser) is sealed again if the edge's key changed.
    let started = crate::envelope::with_sealed(async |sealer| {
        let fields = crate::documents::upload_fields(&sealer)
            .await
            .map_err(|code| Upload::Refused(Refusal::new(code)))?;
        edge::start_doc_parse(file, name, &fields.form_fields())
            .await
            .map_err(Upload::Edge)
    })
    .await
    .map_err(|failed| match failed {
        Upload::Refused(refusal) => refusal,
        Upload::Edge(error) => edge_refusal(error),
    })?;
    for _ in 0..POLL_ATTEMPTS * 2 {
        if !wanted() {
            let _ = edge::cancel_doc_parse(&started.job_id, &started.job_secret).await;
            return Err(Refusal::new("attach_removed"));
        }
        crate::browser::sleep_ms(POLL_MS).await;
        match edge::poll_doc_parse(&started.job_id, &started.job_secret)
            .await
            .map_err(edge_refusal)?
        {
            DocParseJob::Pending { .. } => continue,
            DocParseJob::Completed {
                markdown,
                notes,
                pages,
                ..
            } => {
                return Ok(Extracted {
                    text: markdown,
                    notes,
                    page_starts: pages.iter().map(|p| p.offset).collect(),
                });
            }
            DocParseJob::Failed { error } => {
                return Err(Refusal {
                    code: error.code,
                    detail: Some(error.message),
                });
            }
        }
    }
    let _ = edge::cancel_doc_parse(&started.job_id, &started.job_secret).await;
    Err(Refusal::new("parse_timeout"))
}

fn edge_refusal(error: EdgeError) -> Refusal {
    match error {
        EdgeError::Unreachable => Refusal::new("attach_unreachable"),
        EdgeError::Offline => Refusal::new("attach_offline"),
        EdgeError::Api(api) => {
            let code = match api.code {
                hearth_core::api::ErrorCode::FileTypeUnsupported => "attach_unknown_type",
                hearth_core::api::ErrorCode::PayloadTooLarge => "attach_too_large",
                _ => "attach_parse_failed",
            };
            Refusal {
                code: code.to_string(),
                detail: api
                    .details
                    .as_ref()
                    .and_then(|d| d["limitBytes"].as_u64())
                    .map(|n| n.to_string())
                    .or(Some(api.error)),
            }
        }
        EdgeError::Unexpected(status) => Refusal {
            code: "attach_parse_failed".into(),
            detail: Some(format!("HTTP {status}")),
        },
    }
}
