//! Files attached in the composer, until the message that carries them is sent: the
//! draft's list ([`Draft`]), each file's way from the user's disk to an
//! [`Attachment`] (`read`, in its own lazily loaded chunk: bytes, type by bytes, limits,
//! the original and its text into the browser's file store, the edge's parser for
//! documents, `image` for images), `add` (its lazily loaded entry: the draft's list,
//! refusals in the user's language) and the chips that show them (`chips`, with
//! `thumbnail` for images).
//!
//! An import of another app's export reads the images and files its messages carry
//! through the same `read` (`crate::archive`).
//!
//! Nothing is half-added: a file that fails any step leaves no stored bytes and no chip,
//! only a message in the user's language; a file removed while it is read has its edge
//! job cancelled and its stored bytes deleted.

pub mod add;
pub mod chips;
mod image;
pub mod read;
mod thumbnail;

use hearth_core::attachment::Attachment;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::i18n::I18n;
use crate::ui::toast::Toasts;

/// Where a file of the draft is.
#[derive(Debug, Clone, PartialEq)]
pub enum DraftState {
    /// Its bytes are being read and stored.
    Reading,
    /// The edge is extracting its text.
    Parsing,
    /// Ready to send.
    Ready(Attachment),
}

/// One file of the draft.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftFile {
    /// Its attachment id (also its stored files' names).
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// Where it is.
    pub state: DraftState,
}

/// The composer's attached files.
#[derive(Clone, Copy)]
pub struct Draft {
    files: RwSignal<Vec<DraftFile>>,
    i18n: I18n,
    toasts: Toasts,
}

impl Draft {
    /// An empty draft that reports refusals with `toasts` in `i18n`'s language.
    pub fn new(i18n: I18n, toasts: Toasts) -> Self {
        Self {
            files: RwSignal::new(Vec::new()),
            i18n,
            toasts,
        }
    }

    /// The files (tracked).
    pub fn files(&self) -> Vec<DraftFile> {
        self.files.get()
    }

    /// The files (untracked).
    pub fn files_untracked(&self) -> Vec<DraftFile> {
        self.files.get_untracked()
    }

    /// Whether any file is still being read (tracked).
    pub fn is_busy(&self) -> bool {
        self.files.with(|files| {
            files
                .iter()
                .any(|f| !matches!(f.state, DraftState::Ready(_)))
        })
    }

    /// Whether the draft has a ready image (tracked).
    pub fn has_images(&self) -> bool {
        self.files.with(|files| {
            files
                .iter()
                .any(|f| matches!(&f.state, DraftState::Ready(a) if a.is_image()))
        })
    }

    /// Whether the draft has files (tracked).
    pub fn has_files(&self) -> bool {
        self.files.with(|files| !files.is_empty())
    }

    /// Adds every file that fits, in order; each refusal is shown (the work is in its
    /// own lazily loaded chunk).
    pub fn add_all(&self, files: Vec<web_sys::File>) {
        if !files.is_empty() {
            leptos::task::spawn_local(add::add_files(*self, files));
        }
    }

    /// Adds a copy of `attachment`, a file an earlier message of this chat carries (in
    /// the adding chunk: `add::add_copy`).
    pub fn add_copy(&self, attachment: Attachment) {
        leptos::task::spawn_local(add::add_copy(*self, attachment));
    }

    /// Adds the files of a paste or a drop (`DataTransfer`); whether there were any.
    pub fn add_transfer(&self, transfer: Option<web_sys::DataTransfer>) -> bool {
        let Some(files) = transfer.and_then(|t| t.files()) else {
            return false;
        };
        if files.length() == 0 {
            return false;
        }
        self.add_all(list_files(&files));
        true
    }

    /// Marks `id` as waiting for the edge's parser.
    fn set_parsing(&self, id: &str) {
        self.files.update(|files| {
            if let Some(entry) = files.iter_mut().find(|f| f.id == id) {
                entry.state = DraftState::Parsing;
            }
        });
    }

    /// Whether `id` is still in the draft (not removed meanwhile).
    fn contains(&self, id: &str) -> bool {
        self.files
            .with_untracked(|files| files.iter().any(|f| f.id == id))
    }

    /// Removes `id` (a file still being read stops, and its stored bytes go).
    pub fn remove(&self, id: &str) {
        let ready = self.files.with_untracked(|files| {
            files
                .iter()
                .any(|f| f.id == id && matches!(f.state, DraftState::Ready(_)))
        });
        self.files.update(|files| files.retain(|f| f.id != id));
        if ready {
            let id = id.to_string();
            leptos::task::spawn_local(async move { read::forget(id).await });
        }
    }

    /// Puts back files of a message that was not sent (ready, their bytes still stored),
    /// after any the draft holds; one already in it is not added twice.
    pub fn restore(&self, attachments: Vec<Attachment>) {
        if attachments.is_empty() {
            return;
        }
        self.files.update(|files| {
            for attachment in attachments {
                if files.iter().any(|f| f.id == attachment.id) {
                    continue;
                }
                files.push(DraftFile {
                    id: attachment.id.clone(),
                    name: attachment.name.clone(),
                    size: attachment.size,
                    state: DraftState::Ready(attachment),
                });
            }
        });
    }

    /// The ready files, leaving the draft empty (the message now owns them).
    pub fn take(&self) -> Vec<Attachment> {
        let files = self.files.try_update(std::mem::take).unwrap_or_default();
        files
            .into_iter()
            .filter_map(|f| match f.state {
                DraftState::Ready(attachment) => Some(attachment),
                _ => None,
            })
            .collect()
    }
}

/// The files of an `<input type="file">` change event (the input is then cleared, so
/// the same file can be chosen again).
pub fn input_files(event: &leptos::ev::Event) -> Vec<web_sys::File> {
    let Some(input) = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return Vec::new();
    };
    let files = input
        .files()
        .map(|list| list_files(&list))
        .unwrap_or_default();
    input.set_value("");
    files
}

fn list_files(list: &web_sys::FileList) -> Vec<web_sys::File> {
    (0..list.length())
        .filter_map(|index| list.get(index))
        .collect()
}
