//! A workspace's files in the real build, in Chromium, against the provider fixture and
//! the edge's document parser: added in the workspace's editor by picker (a PDF read by
//! the edge, an image refused with its reason, a file removed before saving leaves no
//! bytes), read into every turn of the workspace's conversations after their own files;
//! a cancelled edit keeps the saved files and drops the added ones, a saved removal
//! deletes the removed file's bytes; deleting every conversation keeps them; they travel
//! in the export and come back with an import; a deleted workspace keeps them while its
//! Undo is offered and loses them after.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hearth_e2e::attach::gradient_png;
use hearth_e2e::chat::{self, chat_bodies};
use hearth_e2e::export::{export_all, import_all, settings_record, stored_hashes, zip_entries};
use hearth_e2e::provider_fixture::ProviderFixture;
use hearth_e2e::workspace::choose_workspace;
use hearth_e2e::{AppSession, Browser};
use serde_json::{Value, json};

#[path = "../../parse/tests/support/pdf.rs"]
#[allow(dead_code)]
mod pdf;

/// The folder of the browser's file store that holds workspaces' files.
const FOLDER: &str = "workspace-files";

/// The stored workspace files, by path, with their hashes.
async fn stored(session: &AppSession) -> BTreeMap<String, String> {
    stored_hashes(session, &[FOLDER]).await
}

/// Waits until `count` workspace files are stored (deleting is done in the background).
async fn stored_count(session: &AppSession, count: usize) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let now = stored(session).await;
        if now.len() == count {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{count} stored files expected: {now:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// The names of the editor's file chips.
async fn chips(session: &Browser) -> Value {
    session
        .js(
            "return [...document.querySelectorAll('#workspace-editor-files .attachment-chip__name')].map((e) => e.textContent)",
            vec![],
        )
        .await
}

/// Waits until the editor shows `count` file chips, none still being read.
async fn ready_chips(session: &Browser, count: usize) {
    session
        .wait_until(&format!(
            "document.querySelectorAll('#workspace-editor-files .attachment-chip').length === {count} && \
             !document.querySelector('#workspace-editor-files .attachment-chip--busy')"
        ))
        .await;
}

/// Opens the editor of the only workspace.
async fn edit(session: &AppSession) {
    session.open_settings_tab("workspaces").await;
    session
        .click_by_script("#workspaces-list [data-workspace-edit]")
        .await;
    session.wait_for("#workspace-editor-files").await;
}

/// Removes the editor's file chip named `name`.
async fn remove_chip(session: &Browser, name: &str) {
    session
        .click_by_script(&format!(
            "#workspace-editor-files button[aria-label='Remove {name}']"
        ))
        .await;
}

/// The stored workspace's files' names (the record is JSON text).
async fn saved_names(session: &AppSession) -> Value {
    let text = settings_record(session, "workspaces").await;
    let record: Value = serde_json::from_str(text.as_str().expect("a stored record")).unwrap();
    let files = record["workspaces"][0]["files"].as_array().cloned();
    json!(
        files
            .unwrap_or_default()
            .iter()
            .map(|f| f["name"].clone())
            .collect::<Vec<_>>()
    )
}

/// Whether the last chat request's text contains `text`.
fn last_request_says(fixture: &ProviderFixture, text: &str) -> bool {
    chat_bodies(fixture)
        .last()
        .is_some_and(|r| r.to_string().contains(text))
}

fn scratch() -> PathBuf {
    hearth_e2e::paths::scratch_dir("workspace-files")
}

#[tokio::test]
async fn a_workspaces_files_reach_every_turn_and_their_bytes_follow_the_workspace() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    let dir = scratch();
    let brief = dir.join("brief.md");
    std::fs::write(&brief, "# Brief\n\nThe client's codename is heliotrope.\n").unwrap();
    let report = dir.join("report.pdf");
    std::fs::write(
        &report,
        pdf::text_pdf(&["Settlement talks resume in March"]),
    )
    .unwrap();
    let photo = dir.join("photo.png");
    std::fs::write(&photo, gradient_png(64, 64)).unwrap();
    let scrap = dir.join("scrap.txt");
    std::fs::write(&scrap, "A scrap note, removed before saving.").unwrap();

    // A new workspace with its files: the image is refused with its reason, the PDF is
    // read by the edge, a file removed before saving leaves no bytes behind.
    session.open_settings_tab("workspaces").await;
    session.wait_for("#workspaces-empty").await;
    session.click_by_script("#workspaces-new").await;
    session.fill("#workspace-editor-name", "Legal").await;
    session
        .choose_files("#workspace-editor-file-input", &[&brief, &report, &photo])
        .await;
    session
        .wait_for_toast("photo.png is an image: a workspace keeps documents and text")
        .await;
    ready_chips(&session, 2).await;
    assert_eq!(chips(&session).await, json!(["brief.md", "report.pdf"]));
    session
        .choose_files("#workspace-editor-file-input", &[&scrap])
        .await;
    ready_chips(&session, 3).await;
    assert_eq!(
        stored(&session).await.len(),
        6,
        "three originals, three texts"
    );
    remove_chip(&session, "scrap.txt").await;
    ready_chips(&session, 2).await;
    stored_count(&session, 4).await;
    session
        .js(
            "document.getElementById('workspace-editor-files').scrollIntoView({ block: 'center' })",
            vec![],
        )
        .await;
    session.screenshot("workspace-editor-files").await;
    session.click_by_script("#workspace-editor-save").await;
    session.wait_for_toast("Workspace saved.").await;
    assert_eq!(
        saved_names(&session).await,
        json!(["brief.md", "report.pdf"])
    );
    let saved = stored(&session).await;
    assert_eq!(saved.len(), 4, "{saved:?}");
    let meta = session.text_of("#workspaces-list .plugin-card__meta").await;
    assert!(meta.contains("2 files"), "{meta}");
    let workspace = session
        .js(
            "return document.querySelector('#workspaces-list [data-workspace]').dataset.workspace",
            vec![],
        )
        .await;
    let workspace = workspace.as_str().expect("the card").to_string();
    session.close_settings().await;

    // A conversation in the workspace is answered from its files.
    choose_workspace(&session, &workspace).await;
    chat::ask(&session, "What is the codename?").await;
    assert!(last_request_says(&fixture, "heliotrope"));
    assert!(last_request_says(
        &fixture,
        "Settlement talks resume in March"
    ));
    assert!(last_request_says(&fixture, "brief.md"));
    assert!(!last_request_says(&fixture, "A scrap note"));

    // A cancelled edit keeps the saved files (a removed chip comes back) and drops an
    // added one; a saved removal deletes the removed file's bytes.
    edit(&session).await;
    ready_chips(&session, 2).await;
    remove_chip(&session, "brief.md").await;
    session
        .choose_files("#workspace-editor-file-input", &[&scrap])
        .await;
    ready_chips(&session, 2).await;
    assert_eq!(chips(&session).await, json!(["report.pdf", "scrap.txt"]));
    session.click_by_script("#workspace-editor-cancel").await;
    stored_count(&session, 4).await;
    assert_eq!(stored(&session).await, saved, "the saved files, unchanged");
    edit(&session).await;
    ready_chips(&session, 2).await;
    assert_eq!(chips(&session).await, json!(["brief.md", "report.pdf"]));
    remove_chip(&session, "brief.md").await;
    session.click_by_script("#workspace-editor-save").await;
    session.wait_for_toast("Workspace saved.").await;
    assert_eq!(saved_names(&session).await, json!(["report.pdf"]));
    stored_count(&session, 2).await;
    let kept = stored(&session).await;
    assert!(
        kept.iter()
            .all(|(path, hash)| saved.get(path) == Some(hash))
    );
    session.close_settings().await;
    chat::ask(&session, "And now?").await;
    assert!(!last_request_says(&fixture, "heliotrope"));
    assert!(last_request_says(
        &fixture,
        "Settlement talks resume in March"
    ));

    // Deleting every conversation keeps the workspace's files.
    session.open_settings_tab("data").await;
    hearth_e2e::export::delete_all_conversations(&session).await;
    assert_eq!(stored(&session).await, kept);

    // They travel in the export, byte for byte.
    let (downloads, file) = export_all(&session, "workspace-files-export").await;
    let entries = zip_entries(&file);
    let carried: BTreeMap<String, String> = entries
        .iter()
        .filter_map(|(name, bytes)| {
            let path = name.strip_prefix("files/")?;
            path.starts_with(FOLDER)
                .then(|| (path.to_string(), hearth_e2e::export::sha256_hex(bytes)))
        })
        .collect();
    assert_eq!(carried, kept);

    // Deleted, Undo: still there after the Undo's time; deleted again: gone after it.
    session.open_settings_tab("workspaces").await;
    session
        .click_by_script("#workspaces-list [data-workspace-delete]")
        .await;
    session.wait_for_toast("Workspace “Legal” deleted.").await;
    session
        .js(
            "[...document.querySelectorAll('.toast button')].find((b) => b.textContent === 'Undo').click()",
            vec![],
        )
        .await;
    session.wait_for("#workspaces-list [data-workspace]").await;
    // The app marks each time a deletion's Undo has passed and its files were dealt with.
    let checked = |n: usize| {
        format!(
            "performance.getEntriesByName('hearth:workspace-files:undo-checked').length === {n}"
        )
    };
    session
        .wait_until_within(&checked(1), std::time::Duration::from_secs(20))
        .await;
    assert_eq!(stored(&session).await, kept, "an Undo keeps the files");
    session
        .click_by_script("#workspaces-list [data-workspace-delete]")
        .await;
    session.wait_for("#workspaces-empty").await;
    session
        .wait_until_within(&checked(2), std::time::Duration::from_secs(20))
        .await;
    stored_count(&session, 0).await;

    // The import brings the workspace and its files back, and they are read again.
    import_all(&session, &file).await;
    assert_eq!(stored(&session).await, kept);
    assert_eq!(saved_names(&session).await, json!(["report.pdf"]));
    session.close_settings().await;
    choose_workspace(&session, &workspace).await;
    chat::ask(&session, "After the import?").await;
    assert!(last_request_says(
        &fixture,
        "Settlement talks resume in March"
    ));
    session.assert_no_console_errors().await;
    let _ = std::fs::remove_dir_all(&downloads);
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}
