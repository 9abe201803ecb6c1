//! The database's versions: what each adds, run in order inside the browser's atomic
//! upgrade transaction (see the module above for the versions). A step that rewrites
//! records backs each one up first.

use idb::{Database, ObjectStoreParams};
use wasm_bindgen::JsValue;

use super::{
    BACKUPS, BY_CONVERSATION, BY_SEQ, CONVERSATIONS, KEYS, MESSAGES, SEARCH_JOURNAL, SECRETS,
    SETTINGS,
};

/// Creates what version `version` adds, inside the upgrade `transaction`. A step that
/// rewrites records backs each one up to [`BACKUPS`] first.
pub(super) fn migrate(
    database: &Database,
    transaction: &web_sys::IdbTransaction,
    version: u32,
) -> Result<(), String> {
    let existing = database.store_names();
    let missing = |name: &str| !existing.iter().any(|store| store == name);
    match version {
        1 => {
            for store in [SETTINGS, SECRETS, KEYS] {
                if missing(store) {
                    database
                        .create_object_store(store, ObjectStoreParams::new())
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        2 => {
            for store in [CONVERSATIONS, MESSAGES] {
                if missing(store) {
                    let mut params = ObjectStoreParams::new();
                    params.key_path(Some(idb::KeyPath::new_single("id")));
                    let created = database
                        .create_object_store(store, params)
                        .map_err(|e| e.to_string())?;
                    if store == MESSAGES {
                        created
                            .create_index(
                                BY_CONVERSATION,
                                idb::KeyPath::new_single("conversationId"),
                                None,
                            )
                            .map_err(|e| e.to_string())?;
                    }
                }
            }
        }
        3 => {
            if missing(BACKUPS) {
                database
                    .create_object_store(BACKUPS, ObjectStoreParams::new())
                    .map_err(|e| e.to_string())?;
            }
            reopen_streaming_replies(transaction).map_err(|e| format!("{e:?}"))?;
        }
        4 if missing(SEARCH_JOURNAL) => {
            let mut params = ObjectStoreParams::new();
            params.key_path(Some(idb::KeyPath::new_single("id")));
            database
                .create_object_store(SEARCH_JOURNAL, params)
                .map_err(|e| e.to_string())?
                .create_index(BY_SEQ, idb::KeyPath::new_single("seq"), None)
                .map_err(|e| e.to_string())?;
        }
        _ => {}
    }
    Ok(())
}

/// v3: every message stored as `streaming` (its tab closed or crashed mid-reply) becomes
/// `interrupted`, after a copy of it goes to [`BACKUPS`]. Runs on a cursor inside the
/// upgrade transaction; any failed write (a full disk) aborts the whole upgrade.
fn reopen_streaming_replies(transaction: &web_sys::IdbTransaction) -> Result<(), JsValue> {
    use js_sys::{Object, Reflect};
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::Closure;

    let messages = transaction.object_store(MESSAGES)?;
    let backups = transaction.object_store(BACKUPS)?;
    let request = messages.open_cursor()?;
    let cursor_request = request.clone();
    let abort_on = transaction.clone();
    let on_success = Closure::<dyn FnMut()>::new(move || {
        let step = || -> Result<(), JsValue> {
            let Ok(cursor) = cursor_request
                .result()?
                .dyn_into::<web_sys::IdbCursorWithValue>()
            else {
                return Ok(()); // the end: the cursor result is null
            };
            let record = cursor.value()?;
            let status = Reflect::get(&record, &"status".into())?.as_string();
            if status.as_deref() == Some("streaming") {
                let id = Reflect::get(&record, &"id".into())?
                    .as_string()
                    .unwrap_or_default();
                backups
                    .put_with_key(&record, &JsValue::from_str(&format!("v3:{MESSAGES}:{id}")))?;
                let updated = Object::assign(&Object::new(), record.unchecked_ref());
                Reflect::set(&updated, &"status".into(), &"interrupted".into())?;
                cursor.update(&updated)?;
            }
            cursor.continue_()
        };
        if step().is_err() {
            let _ = abort_on.abort();
        }
    });
    request.set_onsuccess(Some(on_success.as_ref().unchecked_ref()));
    // Lives until the cursor is done; an upgrade runs once.
    on_success.forget();
    Ok(())
}
