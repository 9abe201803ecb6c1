//! Files attached in the composer, until the message that carries them is sent, or in
//! a workspace's editor, until it is saved: the draft's list ([`Draft`], for a
//! [`Holder`]: where its files are stored, its bounds), each file's way from the user's
//! disk to an [`Attachment`] (`read`, in its own lazily loaded chunk: bytes, type by
//! bytes, limits, the original and its text into the browser's file store, the edge's
//! parser for documents, `image` for images), `add` (its lazily loaded entry: the
//! draft's list, refusals in the user's language) and the chips that show them
//! (`chips`, with `thumbnail` for images).
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

use hearth_core::attachment::{Attachment, Bounds};
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

/// Who the files of a draft are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// A message (the composer): any kind, images too.
    Message,
    /// A workspace (its editor): documents and text only, in their own folder
    /// (`hearth_core::workspace::files`).
    Workspace,
}

impl Holder {
    /// The folder of the browser's file store its files are kept in.
    pub fn folder(self) -> &'static str {
        match self {
            Self::Message => crate::files::ATTACHMENTS,
            Self::Workspace => crate::files::WORKSPACE_FILES,
        }
    }

    /// How many files, how many bytes and which kinds it takes.
    pub fn bounds(self) -> Bounds {
        match self {
            Self::Message => Bounds::MESSAGE,
            Self::Workspace => hearth_core::workspace::files::BOUNDS,
        }
    }
}

/// The files being attached (the composer's, or a workspace editor's).
#[derive(Clone, Copy)]
pub struct Draft {
    files: RwSignal<Vec<DraftFile>>,
    /// Ids of files a stored holder refers to (a saved workspace's): removing one from
    /// the draft keeps its bytes (saving decides).
    kept: StoredValue<Vec<String>>,
    holder: Holder,
    i18n: I18n,
    toasts: Toasts,
}

impl Draft {
    /// An empty draft of the composer that reports refusals with `toasts` in `i18n`'s
    /// language.
    pub fn new(i18n: I18n, toasts: Toasts) -> Self {
        Self::for_holder(Holder::Message, i18n, toasts)
    }

    /// An empty draft for `holder`.
    pub fn for_holder(holder: Holder, i18n: I18n, toasts: Toasts) -> Self {
        Self {
            files: RwSignal::new(Vec::new()),
            kept: StoredValue::new(Vec::new()),
            holder,
            i18n,
            toasts,
        }
    }

    /// Who its files are for.
    pub fn holder(&self) -> Holder {
        self.holder
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
        self.set_state(id, DraftState::Parsing);
    }

    /// Sets the state of `id` (nothing once the draft is gone: an editor closed while
    /// its files were read).
    fn set_state(&self, id: &str, state: DraftState) {
        self.files.try_update(|files| {
            if let Some(entry) = files.iter_mut().find(|f| f.id == id) {
                entry.state = state;
            }
        });
    }

    /// Whether `id` is still in the draft (not removed meanwhile, the draft not gone).
    fn contains(&self, id: &str) -> bool {
        self.files
            .try_with_untracked(|files| files.iter().any(|f| f.id == id))
            .unwrap_or(false)
    }

    /// Removes `id` (a file still being read stops, and its stored bytes go, unless a
    /// stored holder refers to it: [`Draft::keep`]).
    pub fn remove(&self, id: &str) {
        let ready = self.files.with_untracked(|files| {
            files
                .iter()
                .any(|f| f.id == id && matches!(f.state, DraftState::Ready(_)))
        });
        self.files.update(|files| files.retain(|f| f.id != id));
        let kept = self.kept.with_value(|kept| kept.iter().any(|k| k == id));
        if ready && !kept {
            let (folder, id) = (self.holder.folder(), id.to_string());
            leptos::task::spawn_local(async move { read::forget(folder, id).await });
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

    /// Shows the files a stored holder refers to (a saved workspace's), ready; removing
    /// one keeps its bytes, which are the holder's.
    pub fn keep(&self, attachments: Vec<Attachment>) {
        self.kept
            .update_value(|kept| kept.extend(attachments.iter().map(|a| a.id.clone())));
        self.restore(attachments);
    }

    /// The ready files (untracked), the draft unchanged.
    pub fn ready_untracked(&self) -> Vec<Attachment> {
        self.files.with_untracked(|files| {
            files
                .iter()
                .filter_map(|f| match &f.state {
                    DraftState::Ready(attachment) => Some(attachment.clone()),
                    _ => None,
                })
                .collect()
        })
    }

    /// Empties the draft without deleting anything: files still being read stop and
    /// their bytes go; ready ones are the caller's to keep or forget.
    pub fn clear(&self) {
        self.files.try_update(Vec::clear);
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
