//! The knowledge index: the passages a question finds in a conversation's collections
//! (`hearth_core::knowledge::ask`). The page sends the question and the files in scope;
//! the texts are read here from the private file system, so neither the reading nor
//! the indexing (hundreds of milliseconds for thousands of files) runs on the page. The
//! index is kept while the files do not change, one for a turn's questions and one for
//! the search palette's (every collection's files), so the two do not rebuild each
//! other's. Each is saved beside the search snapshot once built
//! (`hearth_core::knowledge::saved`), after its answer is posted, and taken back by
//! the next worker (a reload) when its files have not changed since.

use std::cell::RefCell;
use std::collections::HashMap;

use hearth_core::knowledge::ask::{Asked, KeptIndex};
use hearth_core::knowledge::saved::{MAX_SAVED_BYTES, SAVED_FILES};
use js_sys::{Array, Promise};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::{JsFuture, future_to_promise};

use crate::opfs;

/// Which kept index a question uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A turn's question, of its conversation's collections.
    Turn,
    /// The search palette's, of every collection.
    Palette,
}

impl Slot {
    /// The file its index is saved in (`search/…`).
    fn file(self) -> &'static str {
        match self {
            Self::Turn => SAVED_FILES[0],
            Self::Palette => SAVED_FILES[1],
        }
    }

    /// The request's `slot` (`"palette"`; anything else is a turn's).
    pub fn named(name: Option<&str>) -> Self {
        match name {
            Some("palette") => Self::Palette,
            _ => Self::Turn,
        }
    }
}

thread_local! {
    /// The index of the last scope a turn asked.
    static KEPT: RefCell<KeptIndex> = RefCell::default();
    /// The index of the last scope the palette asked.
    static KEPT_PALETTE: RefCell<KeptIndex> = RefCell::default();
}

fn kept(slot: Slot) -> &'static std::thread::LocalKey<RefCell<KeptIndex>> {
    match slot {
        Slot::Turn => &KEPT,
        Slot::Palette => &KEPT_PALETTE,
    }
}

/// Answers `asked` (JSON of an `Asked`) with JSON of an `Answered`, from the index kept
/// for `slot`; `None` when it does not read. Requests run one at a time, so the kept
/// index is taken out meanwhile. The texts are read [`AT_ONCE`] files at a time (each
/// read waits on the file system, not on this thread).
pub async fn passages(asked: &str, slot: Slot) -> Option<String> {
    let asked: Asked = serde_json::from_str(asked).ok()?;
    let mut index = kept(slot).with(RefCell::take);
    if index.passages() == 0
        && let Ok(Some(bytes)) = opfs::load_named(slot.file(), MAX_SAVED_BYTES).await
    {
        index.restore(&bytes);
    }
    let to_read = index.paths_to_read(&asked);
    let built = !to_read.is_empty();
    let texts = RefCell::new(read_all(to_read).await);
    let answered = index
        .answer_reading(&asked, |path| {
            std::future::ready(texts.borrow_mut().remove(&path))
        })
        .await;
    kept(slot).with(|held| held.replace(index));
    if built {
        // After the answer is posted: the question does not wait for the save.
        wasm_bindgen_futures::spawn_local(save(slot));
    }
    serde_json::to_string(&answered).ok()
}

/// Saves the index kept for `slot` (a failed save only means the next worker builds).
async fn save(slot: Slot) {
    let Some(bytes) = kept(slot).with(|held| held.borrow_mut().saved()) else {
        return;
    };
    let _ = opfs::store_named(slot.file(), &bytes).await;
}

/// How many files are read at once.
const AT_ONCE: usize = 32;

/// The texts of `paths` that could be read, by path.
async fn read_all(paths: Vec<String>) -> HashMap<String, String> {
    let mut texts = HashMap::new();
    for batch in paths.chunks(AT_ONCE) {
        let reads: Array = batch
            .iter()
            .map(|path| {
                let path = path.clone();
                future_to_promise(async move {
                    Ok(opfs::read_text(&path)
                        .await
                        .map_or(JsValue::NULL, JsValue::from))
                })
            })
            .collect();
        let Ok(read) = JsFuture::from(Promise::all(&reads)).await else {
            continue;
        };
        for (path, text) in batch.iter().zip(Array::from(&read).iter()) {
            if let Some(text) = text.as_string() {
                texts.insert(path.clone(), text);
            }
        }
    }
    texts
}

/// How many passages the kept indexes hold.
pub fn passages_kept() -> usize {
    KEPT.with(|kept| kept.borrow().passages()) + KEPT_PALETTE.with(|kept| kept.borrow().passages())
}
