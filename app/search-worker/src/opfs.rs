//! The snapshot file in the origin private file system (`search/conversations.idx`),
//! and the saved knowledge indexes beside it, read and written through sync access
//! handles, which only workers have; and a knowledge file's text read by its path
//! (`knowledge/…`), as the page stored it.
//!
//! Every call into the file system goes through [`call`] (a method looked up by name and
//! applied), so a browser without some part of the API gives an error code rather than a
//! JavaScript exception through the module. Errors are the protocol's short codes:
//! `unavailable` (no OPFS, or no sync access handles), `busy` (another tab's worker holds
//! the file: a sync access handle is exclusive), `quota` and `io`.

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{FileSystemReadWriteOptions, FileSystemSyncAccessHandle};

use crate::file::{self, HEADER_BYTES, MAX_FILE_BYTES};

/// The directory of search files, under the origin's root.
const DIRECTORY: &str = "search";
/// The snapshot of conversations.
const FILE: &str = "conversations.idx";
/// Where a save is written before it is moved over [`FILE`].
const TEMPORARY: &str = "conversations.idx.tmp";

/// A short error code of the protocol.
pub type Code = &'static str;

/// The protocol's code for a failed file-system call.
fn code(error: &JsValue) -> Code {
    let name = Reflect::get(error, &JsValue::from_str("name"))
        .ok()
        .and_then(|name| name.as_string())
        .unwrap_or_default();
    match name.as_str() {
        "NoModificationAllowedError" => "busy",
        "QuotaExceededError" => "quota",
        "SecurityError" | "NotAllowedError" | "TypeError" => "unavailable",
        _ => "io",
    }
}

fn not_found(error: &JsValue) -> bool {
    Reflect::get(error, &JsValue::from_str("name"))
        .ok()
        .and_then(|name| name.as_string())
        .is_some_and(|name| name == "NotFoundError")
}

/// Calls `target.name(...args)` and waits for the promise it returns (a value that is
/// not a promise is taken as it is).
async fn call(target: &JsValue, name: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let method: Function = Reflect::get(target, &JsValue::from_str(name))?
        .dyn_into()
        .map_err(|_| JsValue::from(js_sys::TypeError::new(name)))?;
    let args: Array = args.iter().copied().collect();
    let value = method.apply(target, &args)?;
    match value.dyn_into::<Promise>() {
        Ok(promise) => JsFuture::from(promise).await,
        Err(value) => Ok(value),
    }
}

/// `{create}`, the options of `getDirectoryHandle` and `getFileHandle`.
fn create(create: bool) -> JsValue {
    let options = Object::new();
    let _ = Reflect::set(
        &options,
        &JsValue::from_str("create"),
        &JsValue::from_bool(create),
    );
    options.into()
}

/// The origin's root directory.
async fn root() -> Result<JsValue, Code> {
    let global = js_sys::global();
    let storage = Reflect::get(&global, &JsValue::from_str("navigator"))
        .and_then(|navigator| Reflect::get(&navigator, &JsValue::from_str("storage")))
        .map_err(|_| "unavailable")?;
    if storage.is_undefined() || storage.is_null() {
        return Err("unavailable");
    }
    call(&storage, "getDirectory", &[])
        .await
        .map_err(|_| "unavailable")
}

/// The text of the file at `path` (folders and name, `/` between), read as UTF-8 (a
/// byte-order mark dropped); `missing` when it is not there.
pub async fn read_text(path: &str) -> Result<String, Code> {
    let mut directory = root().await?;
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    let failed = |error: JsValue| {
        if not_found(&error) {
            "missing"
        } else {
            code(&error)
        }
    };
    for part in parts {
        directory = call(
            &directory,
            "getDirectoryHandle",
            &[&JsValue::from_str(part), &create(false)],
        )
        .await
        .map_err(failed)?;
    }
    let handle = call(
        &directory,
        "getFileHandle",
        &[&JsValue::from_str(name), &create(false)],
    )
    .await
    .map_err(failed)?;
    let file = call(&handle, "getFile", &[]).await.map_err(failed)?;
    let text = call(&file, "text", &[]).await.map_err(failed)?;
    let text = text.as_string().ok_or("io")?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// The search directory, created when `make` (else `None` when there is none).
async fn directory(make: bool) -> Result<Option<JsValue>, Code> {
    let root = root().await?;
    match call(
        &root,
        "getDirectoryHandle",
        &[&JsValue::from_str(DIRECTORY), &create(make)],
    )
    .await
    {
        Ok(directory) => Ok(Some(directory)),
        Err(error) if not_found(&error) => Ok(None),
        Err(error) => Err(code(&error)),
    }
}

/// The file `name` of `directory`, created when `make` (else `None` when there is none).
async fn file_handle(directory: &JsValue, name: &str, make: bool) -> Result<Option<JsValue>, Code> {
    match call(
        directory,
        "getFileHandle",
        &[&JsValue::from_str(name), &create(make)],
    )
    .await
    {
        Ok(handle) => Ok(Some(handle)),
        Err(error) if not_found(&error) => Ok(None),
        Err(error) => Err(code(&error)),
    }
}

/// An open sync access handle, closed when dropped (which lets other tabs in).
struct Access(FileSystemSyncAccessHandle);

impl Drop for Access {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// How long to wait before each new attempt to open a file another worker holds: a save
/// or an open holds it for milliseconds, so two tabs starting together both get in.
const RETRIES_MS: [i32; 5] = [20, 50, 100, 250, 500];

/// Resolves after `ms` milliseconds.
async fn sleep(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        let global = js_sys::global();
        let set_timeout = Reflect::get(&global, &JsValue::from_str("setTimeout"))
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok());
        let scheduled =
            set_timeout.is_some_and(|f| f.call2(&global, &resolve, &JsValue::from(ms)).is_ok());
        if !scheduled {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Opens `handle` (for reading only when `read_only`, which browsers that know the mode
/// let several workers do at once); `busy` while another worker holds it, after a few
/// short waits.
async fn open(handle: &JsValue, read_only: bool) -> Result<Access, Code> {
    let options = Object::new();
    if read_only {
        let _ = Reflect::set(
            &options,
            &JsValue::from_str("mode"),
            &JsValue::from_str("read-only"),
        );
    }
    let mut waits = RETRIES_MS.iter();
    loop {
        // A browser without sync access handles has no such method: `unavailable`.
        match call(handle, "createSyncAccessHandle", &[&options]).await {
            Ok(access) => return Ok(Access(access.unchecked_into())),
            Err(error) => match (code(&error), waits.next()) {
                ("busy", Some(&ms)) => sleep(ms).await,
                (code, _) => return Err(code),
            },
        }
    }
}

fn at(offset: usize) -> FileSystemReadWriteOptions {
    let options = FileSystemReadWriteOptions::new();
    options.set_at(offset as f64);
    options
}

impl Access {
    fn size(&self) -> Result<usize, Code> {
        let size = self.0.get_size().map_err(|e| code(&e))?;
        Ok(size as usize)
    }

    /// Up to `len` bytes from the start (fewer when the file is shorter).
    fn read(&self, len: usize) -> Result<Vec<u8>, Code> {
        let mut bytes = vec![0; len];
        let mut done = 0;
        while done < len {
            let read = self
                .0
                .read_with_u8_array_and_options(&mut bytes[done..], &at(done))
                .map_err(|e| code(&e))? as usize;
            if read == 0 {
                break;
            }
            done += read;
        }
        bytes.truncate(done);
        Ok(bytes)
    }

    /// Makes the file exactly `bytes`, flushed to disk.
    fn write(&self, bytes: &[u8]) -> Result<(), Code> {
        let mut done = 0;
        while done < bytes.len() {
            let written = self
                .0
                .write_with_u8_array_and_options(&bytes[done..], &at(done))
                .map_err(|e| code(&e))? as usize;
            if written == 0 {
                return Err("io");
            }
            done += written;
        }
        self.0
            .truncate_with_f64(bytes.len() as f64)
            .map_err(|e| code(&e))?;
        self.0.flush().map_err(|e| code(&e))
    }
}

/// The saved file's bytes, or `None` when there is none (or it is empty).
pub async fn load() -> Result<Option<Vec<u8>>, Code> {
    load_named(FILE, MAX_FILE_BYTES).await
}

/// The bytes of the search directory's file `name`, or `None` when there is none (or it
/// is empty); `tooLarge` past `max` bytes.
pub async fn load_named(name: &str, max: usize) -> Result<Option<Vec<u8>>, Code> {
    let Some(directory) = directory(false).await? else {
        return Ok(None);
    };
    let Some(handle) = file_handle(&directory, name, false).await? else {
        return Ok(None);
    };
    let access = open(&handle, true).await?;
    let size = access.size()?;
    if size == 0 {
        return Ok(None);
    }
    if size > max {
        return Err("tooLarge");
    }
    access.read(size).map(Some)
}

/// Makes the search directory's file `name` exactly `bytes` (a write torn by a crash is
/// found by the reader's checks: the file is a cache).
pub async fn store_named(name: &str, bytes: &[u8]) -> Result<(), Code> {
    let directory = directory(true).await?.ok_or("io")?;
    let handle = file_handle(&directory, name, true).await?.ok_or("io")?;
    open(&handle, false).await?.write(bytes)
}

/// What a save did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// The file now holds this many bytes.
    Written(usize),
    /// The file covers more (another tab saved it) and was kept.
    Newer(u64),
}

/// Whether file handles can be moved (renamed), to replace the file in one step.
/// (Chromium defines `move` on `FileSystemFileHandle`, not on `FileSystemHandle`.)
fn can_move() -> bool {
    Reflect::get(
        &js_sys::global(),
        &JsValue::from_str("FileSystemFileHandle"),
    )
    .and_then(|class| Reflect::get(&class, &JsValue::from_str("prototype")))
    .and_then(|prototype| Reflect::get(&prototype, &JsValue::from_str("move")))
    .is_ok_and(|method| method.is_function())
}

/// Writes `bytes` to the temporary file and moves it over the snapshot file.
async fn replace_by_move(directory: &JsValue, bytes: &[u8]) -> Result<(), Code> {
    let temporary = file_handle(directory, TEMPORARY, true).await?.ok_or("io")?;
    open(&temporary, false).await?.write(bytes)?;
    call(&temporary, "move", &[directory, &JsValue::from_str(FILE)])
        .await
        .map(drop)
        .map_err(|error| code(&error))
}

/// Saves the file made of `covers` and `snapshot()`, unless the file there covers more.
/// `snapshot` runs only once the file is known to be replaced.
pub async fn store(covers: u64, snapshot: impl FnOnce() -> Vec<u8>) -> Result<Stored, Code> {
    let directory = directory(true).await?.ok_or("io")?;
    let current = match file_handle(&directory, FILE, false).await? {
        Some(handle) => file::covers(&open(&handle, true).await?.read(HEADER_BYTES)?).unwrap_or(0),
        None => 0,
    };
    if !file::may_replace(current, covers) {
        return Ok(Stored::Newer(current));
    }
    let bytes = file::encode(covers, &snapshot());
    if can_move() {
        match replace_by_move(&directory, &bytes).await {
            Ok(()) => return Ok(Stored::Written(bytes.len())),
            // Out of space: writing in place needs as much.
            Err("quota") => {
                let _ = call(&directory, "removeEntry", &[&JsValue::from_str(TEMPORARY)]).await;
                return Err("quota");
            }
            Err(_) => {
                let _ = call(&directory, "removeEntry", &[&JsValue::from_str(TEMPORARY)]).await;
            }
        }
    }
    // In place: a write torn by a crash fails the snapshot's checksum on the next open.
    let handle = file_handle(&directory, FILE, true).await?.ok_or("io")?;
    open(&handle, false).await?.write(&bytes)?;
    Ok(Stored::Written(bytes.len()))
}

/// Deletes the saved file (and a temporary one left by an interrupted save).
pub async fn delete() -> Result<(), Code> {
    let Some(directory) = directory(false).await? else {
        return Ok(());
    };
    let _ = call(&directory, "removeEntry", &[&JsValue::from_str(TEMPORARY)]).await;
    match call(&directory, "removeEntry", &[&JsValue::from_str(FILE)]).await {
        Ok(_) => Ok(()),
        Err(error) if not_found(&error) => Ok(()),
        Err(error) => Err(code(&error)),
    }
}
