//! A record kept as one document of the settings store (the skill library, the memory
//! book): read the first time something needs it, never at start; changed on a copy,
//! stored, and only then shown; read again when another tab says it changed (a
//! `BroadcastChannel` per document). The page's one copy lives in a thread-local
//! [`DocumentCell`] owned by no component. Changes made at once in one page (three files
//! added together, each recording its stages) take turns: each starts from the one
//! before, so none is lost.

use std::cell::RefCell;
use std::rc::Rc;
use std::thread::LocalKey;

use leptos::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Db, SETTINGS};

/// The page's copy of one document, and the channel its changes arrive on.
pub struct DocumentCell<T: 'static> {
    value: ArcRwSignal<Option<T>>,
    listening: RefCell<Option<web_sys::BroadcastChannel>>,
    /// Held by the change being made: the next one waits, then starts from its result.
    changing: Rc<futures::lock::Mutex<()>>,
}

impl<T: Send + Sync + 'static> Default for DocumentCell<T> {
    fn default() -> Self {
        Self {
            value: ArcRwSignal::new(None),
            listening: RefCell::new(None),
            changing: Rc::default(),
        }
    }
}

/// Why a document could not be read or changed.
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentError<E> {
    /// The change was refused by the record's own rules (nothing changed).
    Refused(E),
    /// Storage refused the write (nothing changed).
    Storage(String),
    /// The stored record could not be read: nothing is applied, and nothing is written
    /// over it.
    Unreadable(String),
}

/// One settings document: its key, the channel other tabs announce changes on, its cell,
/// and how a stored record is repaired when read.
pub struct SettingsDocument<T: 'static> {
    /// Its key in the settings store.
    pub key: &'static str,
    /// The channel other tabs hear changes on.
    pub channel: &'static str,
    /// The page's copy.
    pub cell: &'static LocalKey<DocumentCell<T>>,
    /// A stored record made to keep the rules (no record is `T::default()`).
    pub repair: fn(T) -> T,
}

impl<T> SettingsDocument<T>
where
    T: Clone + Default + Serialize + DeserializeOwned + Send + Sync + 'static,
{
    /// The document, once read (`None` until then); reading it in a view tracks it.
    pub fn value(&self) -> ArcRwSignal<Option<T>> {
        self.cell.with(|cell| cell.value.clone())
    }

    /// The document, read from storage the first time. A record that cannot be read is
    /// an error, never the default: a change written over it would lose it.
    pub async fn ensure_loaded<E>(&'static self) -> Result<T, DocumentError<E>> {
        if let Some(value) = self.value().get_untracked() {
            return Ok(value);
        }
        self.listen();
        self.reload().await
    }

    async fn reload<E>(&self) -> Result<T, DocumentError<E>> {
        let unreadable = |e: super::StorageError| DocumentError::Unreadable(e.to_string());
        let stored = Db::open()
            .await
            .map_err(unreadable)?
            .get_json::<T>(SETTINGS, self.key)
            .await
            .map_err(unreadable)?;
        let value = (self.repair)(stored.unwrap_or_default());
        self.value().set(Some(value.clone()));
        Ok(value)
    }

    fn listen(&'static self) {
        if self.cell.with(|cell| cell.listening.borrow().is_some()) {
            return;
        }
        let Ok(channel) = web_sys::BroadcastChannel::new(self.channel) else {
            return;
        };
        // Lives as long as the page, like the document.
        gloo_events::EventListener::new(&channel, "message", move |_| {
            leptos::task::spawn_local(async move {
                // Unreadable now: what is shown stays as it was, and the next change
                // reads (and refuses) again.
                let _ = self.reload::<()>().await;
            });
        })
        .forget();
        self.cell
            .with(|cell| *cell.listening.borrow_mut() = Some(channel));
    }

    /// Applies `change` to a copy, stores it, then shows it and tells the other tabs;
    /// what `change` answered. A change made while another is under way waits for it
    /// and starts from its result (two at once would each start from the same copy, and
    /// the later write would lose the earlier change).
    pub async fn change<R, E>(
        &'static self,
        change: impl FnOnce(&mut T) -> Result<R, E>,
    ) -> Result<R, DocumentError<E>> {
        let changing = self.cell.with(|cell| cell.changing.clone());
        let _turn = changing.lock().await;
        let mut next = self.ensure_loaded().await?;
        let answer = change(&mut next).map_err(DocumentError::Refused)?;
        let db = Db::open()
            .await
            .map_err(|e| DocumentError::Storage(e.to_string()))?;
        db.put_json(SETTINGS, self.key, &next)
            .await
            .map_err(|e| DocumentError::Storage(e.to_string()))?;
        self.value().set(Some(next));
        self.cell.with(|cell| {
            if let Some(channel) = cell.listening.borrow().as_ref() {
                let _ = channel.post_message(&wasm_bindgen::JsValue::from_str("changed"));
            }
        });
        Ok(answer)
    }
}
