//! The custody of workspaces' stored files (`hearth_core::workspace::files`, in
//! `crate::files::WORKSPACE_FILES`): what a saved change, a cancelled editor or a
//! deletion leaves behind is deleted (a deletion's once its Undo has passed, unless the
//! workspace came back), and once per page the files no workspace refers to that are
//! older than a day (left by a page closed mid-edit or mid-Undo) are swept away.

use std::collections::BTreeSet;

use hearth_core::workspace::files::stored_names;
use hearth_core::workspace::{Workspace, WorkspaceLibrary};

use crate::files::{self, WORKSPACE_FILES};

/// How long after a deletion its files wait for an Undo, in ms (the Undo toast shows
/// for 6 s).
const UNDO_WAIT_MS: i32 = 8_000;
/// How old a file no workspace refers to must be before a sweep deletes it, in ms: an
/// editor open in another tab holds files not saved yet.
const SWEEP_AGE_MS: f64 = 24.0 * 60.0 * 60.0 * 1000.0;

/// The performance mark set each time a deletion's Undo has passed and its files were
/// dealt with (kept or deleted); the tests wait for it rather than for a time.
pub const UNDO_CHECKED_MARK: &str = "hearth:workspace-files:undo-checked";

/// Deletes the stored files `names`; one already gone is not an error, and one that
/// cannot be deleted is left for the sweep (it is then named by no workspace).
pub async fn forget(names: BTreeSet<String>) {
    for name in names {
        let _ = files::remove(WORKSPACE_FILES, &name).await;
    }
}

/// Deletes `removed`'s files once its Undo has passed, unless a workspace (it, put back)
/// refers to them then.
pub fn forget_after_undo(removed: Workspace) {
    if removed.files.is_empty() {
        return;
    }
    leptos::task::spawn_local(async move {
        crate::browser::sleep_ms(UNDO_WAIT_MS).await;
        // A library that cannot be read keeps them (the sweep takes them once it reads).
        if let Ok(library) = super::use_workspaces().ensure_loaded().await {
            let kept = library.stored_files();
            let names = stored_names(&removed.files)
                .into_iter()
                .filter(|name| !kept.contains(name))
                .collect();
            forget(names).await;
        }
        crate::browser::mark(UNDO_CHECKED_MARK);
    });
}

thread_local! {
    static SWEPT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Once per page, with the `library` just read: deletes the stored files no workspace
/// refers to that are older than a day.
pub fn sweep_once(library: &WorkspaceLibrary) {
    if SWEPT.with(|swept| swept.replace(true)) {
        return;
    }
    let kept = library.stored_files();
    leptos::task::spawn_local(async move {
        let Ok(paths) = files::list_all(WORKSPACE_FILES).await else {
            return;
        };
        let now = js_sys::Date::now();
        for path in paths {
            let (_, name) = files::split_path(&path);
            if kept.contains(name) {
                continue;
            }
            let old = files::modified_ms(WORKSPACE_FILES, name)
                .await
                .is_ok_and(|at| now - at > SWEEP_AGE_MS);
            if old {
                let _ = files::remove(WORKSPACE_FILES, name).await;
            }
        }
    });
}
