//! Files in the browser's origin-private file system (OPFS): large binary data that does
//! not belong in IndexedDB records, such as generated images (`images/`), attached files
//! and their text (`attachments/`), workspaces' files (`workspace-files/`), the saved
//! search index (`search/`) and knowledge
//! collections (`knowledge/<collection>/<file>/{source,content}`, by path). Names are
//! random and made here; a record refers to a file by its name (or path) only. Every operation is
//! a typed error when OPFS is missing (an old browser, a private window) or full.

use hearth_core::stored_file::FileDir;
use js_sys::Uint8Array;
use leptos::prelude::window;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The directory of generated images.
pub const IMAGES: &str = FileDir::Images.name();
/// The search worker's saved index (written by the worker itself, `hearth-search-worker`).
pub const SEARCH: &str = "search";
/// Files attached to messages: the original as `<id>` (an image as scaled down to be
/// sent), a document's extracted text as `<id>.md`, an image's thumbnail as
/// `<id>.thumb` (the names are `hearth_core::stored_file`'s).
pub const ATTACHMENTS: &str = FileDir::Attachments.name();

/// Workspaces' files: the original as `<id>`, its text as `<id>.md`
/// (`hearth_core::workspace::files`).
pub const WORKSPACE_FILES: &str = hearth_core::workspace::files::FOLDER;

pub use hearth_core::stored_file::{attachment_text_name, attachment_thumbnail_name};

/// Why a file operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileError {
    /// The browser has no private file system here.
    Unavailable,
    /// The storage is full.
    QuotaExceeded,
    /// The file is not there (deleted, or another browser's record).
    Missing,
    /// Anything else, in the browser's words.
    Failed(String),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unavailable => f.write_str("this browser cannot store files for Hearth here"),
            Self::QuotaExceeded => f.write_str("the storage for Hearth is full"),
            Self::Missing => f.write_str("the file is no longer stored"),
            Self::Failed(why) => f.write_str(why),
        }
    }
}

fn failure(error: JsValue) -> FileError {
    let name = js_sys::Reflect::get(&error, &JsValue::from_str("name"))
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    match name.as_str() {
        "QuotaExceededError" => FileError::QuotaExceeded,
        "NotFoundError" => FileError::Missing,
        "SecurityError" | "NotSupportedError" => FileError::Unavailable,
        _ => FileError::Failed(
            js_sys::Reflect::get(&error, &JsValue::from_str("message"))
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or(name),
        ),
    }
}

async fn call(promise: js_sys::Promise) -> Result<JsValue, FileError> {
    JsFuture::from(promise).await.map_err(failure)
}

/// The private file system's root, when this browser has one here.
async fn root() -> Result<web_sys::FileSystemDirectoryHandle, FileError> {
    let storage = window().navigator().storage();
    let has_opfs =
        js_sys::Reflect::has(&storage, &JsValue::from_str("getDirectory")).unwrap_or(false);
    if !has_opfs {
        return Err(FileError::Unavailable);
    }
    call(storage.get_directory())
        .await?
        .dyn_into()
        .map_err(|_| FileError::Unavailable)
}

/// The directory `path` (`a` or `a/b/c`) of the private file system, each level created
/// when `create`.
async fn directory(
    path: &str,
    create: bool,
) -> Result<web_sys::FileSystemDirectoryHandle, FileError> {
    let mut directory = root().await?;
    let options = web_sys::FileSystemGetDirectoryOptions::new();
    options.set_create(create);
    for name in path.split('/').filter(|n| !n.is_empty()) {
        directory = call(directory.get_directory_handle_with_options(name, &options))
            .await?
            .dyn_into()
            .map_err(|_| FileError::Unavailable)?;
    }
    Ok(directory)
}

/// A fresh file name with `extension`.
pub fn new_name(extension: &str) -> String {
    let mut bytes = [0u8; 12];
    if let Ok(crypto) = window().crypto() {
        let _ = crypto.get_random_values_with_u8_array(&mut bytes);
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}.{extension}")
}

/// Writes `bytes` as `dir/name`, whole: a write that fails leaves no partial file.
pub async fn save(dir: &str, name: &str, bytes: &[u8]) -> Result<(), FileError> {
    let directory = directory(dir, true).await?;
    let options = web_sys::FileSystemGetFileOptions::new();
    options.set_create(true);
    let file: web_sys::FileSystemFileHandle =
        call(directory.get_file_handle_with_options(name, &options))
            .await?
            .dyn_into()
            .map_err(|_| FileError::Unavailable)?;
    let written = async {
        let stream: web_sys::FileSystemWritableFileStream = call(file.create_writable())
            .await?
            .dyn_into()
            .map_err(|_| FileError::Unavailable)?;
        let data = Uint8Array::from(bytes);
        call(stream.write_with_js_u8_array(&data).map_err(failure)?).await?;
        // The data is in the file only once the stream closes.
        call(stream.close()).await?;
        Ok(())
    }
    .await;
    if written.is_err() {
        let _ = call(directory.remove_entry(name)).await;
    }
    written
}

/// The stored file `dir/name`.
pub async fn blob(dir: &str, name: &str) -> Result<web_sys::Blob, FileError> {
    let directory = directory(dir, false).await?;
    let file: web_sys::FileSystemFileHandle = call(directory.get_file_handle(name))
        .await?
        .dyn_into()
        .map_err(|_| FileError::Missing)?;
    call(file.get_file())
        .await?
        .dyn_into()
        .map_err(|_| FileError::Missing)
}

/// When `dir/name` was last written, ms since the epoch.
pub async fn modified_ms(dir: &str, name: &str) -> Result<f64, FileError> {
    let file = blob(dir, name).await?;
    js_sys::Reflect::get(&file, &JsValue::from_str("lastModified"))
        .ok()
        .and_then(|m| m.as_f64())
        .ok_or(FileError::Missing)
}

/// An object URL of `dir/name` (revoke it with `Url::revoke_object_url` when done).
pub async fn object_url(dir: &str, name: &str) -> Result<String, FileError> {
    web_sys::Url::create_object_url_with_blob(&blob(dir, name).await?).map_err(failure)
}

/// The bytes of `dir/name`.
pub async fn read(dir: &str, name: &str) -> Result<Vec<u8>, FileError> {
    let buffer = call(blob(dir, name).await?.array_buffer()).await?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Whether `dir/name` is stored.
pub async fn exists(dir: &str, name: &str) -> Result<bool, FileError> {
    match blob(dir, name).await {
        Ok(_) => Ok(true),
        Err(FileError::Missing) => Ok(false),
        Err(error) => Err(error),
    }
}

/// Removes `dir/name`; a file already gone is not an error.
pub async fn remove(dir: &str, name: &str) -> Result<(), FileError> {
    let directory = match directory(dir, false).await {
        Ok(directory) => directory,
        Err(FileError::Missing) => return Ok(()),
        Err(error) => return Err(error),
    };
    match call(directory.remove_entry(name)).await {
        Ok(_) | Err(FileError::Missing) => Ok(()),
        Err(error) => Err(error),
    }
}

/// Removes the directory `dir` (`a` or `a/b`) and everything in it; one already gone is
/// not an error.
pub async fn remove_all(dir: &str) -> Result<(), FileError> {
    let (parent, name) = match dir.rsplit_once('/') {
        Some((parent, name)) => (parent, name),
        None => ("", dir),
    };
    let parent = match directory(parent, false).await {
        Ok(parent) => parent,
        Err(FileError::Missing | FileError::Unavailable) => return Ok(()),
        Err(error) => return Err(error),
    };
    let options = web_sys::FileSystemRemoveOptions::new();
    options.set_recursive(true);
    match call(parent.remove_entry_with_options(name, &options)).await {
        Ok(_) | Err(FileError::Missing) => Ok(()),
        Err(error) => Err(error),
    }
}

/// Every file under the directory `dir`, as paths from the root (`dir/a/b`); none when
/// the directory is not there.
pub async fn list_all(dir: &str) -> Result<Vec<String>, FileError> {
    let mut found = Vec::new();
    let mut pending = vec![dir.trim_end_matches('/').to_string()];
    while let Some(path) = pending.pop() {
        let handle = match directory(&path, false).await {
            Ok(handle) => handle,
            Err(FileError::Missing) => continue,
            Err(error) => return Err(error),
        };
        for (name, is_directory) in entries(&handle).await? {
            let child = format!("{path}/{name}");
            if is_directory {
                pending.push(child);
            } else {
                found.push(child);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The names in `directory`, each with whether it is a directory (its async iterator,
/// walked through `entries()`).
async fn entries(
    directory: &web_sys::FileSystemDirectoryHandle,
) -> Result<Vec<(String, bool)>, FileError> {
    use js_sys::{Function, Promise, Reflect};
    let unavailable = |_| FileError::Unavailable;
    let entries: Function = Reflect::get(directory, &JsValue::from_str("entries"))
        .map_err(unavailable)?
        .dyn_into()
        .map_err(|_| FileError::Unavailable)?;
    let iterator = entries.call0(directory).map_err(failure)?;
    let next: Function = Reflect::get(&iterator, &JsValue::from_str("next"))
        .map_err(unavailable)?
        .dyn_into()
        .map_err(|_| FileError::Unavailable)?;
    let mut out = Vec::new();
    loop {
        let step: Promise = next
            .call0(&iterator)
            .map_err(failure)?
            .dyn_into()
            .map_err(|_| FileError::Unavailable)?;
        let step = call(step).await?;
        if Reflect::get(&step, &JsValue::from_str("done"))
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true)
        {
            break;
        }
        let pair = js_sys::Array::from(
            &Reflect::get(&step, &JsValue::from_str("value")).map_err(unavailable)?,
        );
        let name = pair.get(0).as_string().unwrap_or_default();
        let kind = Reflect::get(&pair.get(1), &JsValue::from_str("kind"))
            .ok()
            .and_then(|k| k.as_string());
        out.push((name, kind.as_deref() == Some("directory")));
    }
    Ok(out)
}

/// The directory and name of a stored path (`knowledge/c/f/source` →
/// `knowledge/c/f`, `source`).
pub fn split_path(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}
