//! Knowledge collections travel with an export, in Chromium: a collection with a
//! Markdown file and a PDF (its original and its extracted text) is exported beside the
//! conversations, every stored file byte for byte in the ZIP (read with another ZIP
//! implementation); deleted and imported again, it comes back whole, its files byte for
//! byte, and answers a conversation; a second import changes nothing and says so; a
//! library that cannot be read is said on the conversation's chip and fails a question
//! rather than answer without it. An
//! export whose records point a file at another file (a message's attachment) is
//! imported without that record, and the file the ZIP carried for it is not kept. A
//! file's text edited in Settings is stored apart from its original (kept byte for
//! byte), found by its new words, and deleted when the text is extracted again.

use std::path::Path;

use hearth_e2e::AppSession;
use hearth_e2e::chat::{chat_bodies, last_status, ready, send, system_of};
use hearth_e2e::export::{carried_hashes, zip_entries};
use hearth_e2e::knowledge::{create, stored, stored_hashes, use_collection, wait_stage};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

#[path = "../../parse/tests/support/pdf.rs"]
#[allow(dead_code)]
mod pdf;

const ROSES: &str = "# Roses\n\nPrune roses in late winter, just above an outward-facing bud.\n";

/// Chooses `file` in Settings › Data, waits for the plan to name its knowledge, and
/// imports it.
async fn import(session: &AppSession, file: &Path, planned: &str) {
    session.open_settings_tab("data").await;
    session.choose_files("#data-import-file", &[file]).await;
    session
        .wait_until(&format!(
            "document.getElementById('data-import-knowledge')?.textContent.includes({})",
            json!(planned)
        ))
        .await;
    session.click_by_script("#data-import-confirm").await;
}

#[tokio::test]
async fn an_export_carries_the_collections_and_an_import_brings_them_back_byte_for_byte() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let dir = hearth_e2e::paths::scratch_dir("knowledge-custody");
    let roses = dir.join("roses.md");
    std::fs::write(&roses, ROSES).unwrap();
    let manual = dir.join("mower.pdf");
    std::fs::write(
        &manual,
        pdf::text_pdf(&["To sharpen the blade, remove the spark plug lead first."]),
    )
    .unwrap();

    session.open_settings_tab("knowledge").await;
    let garden = create(&session, "Garden", "How we keep the garden.").await;
    session
        .choose_files(&format!("#knowledge-add-{garden}"), &[&roses, &manual])
        .await;
    wait_stage(&session, "roses.md", "ready").await;
    wait_stage(&session, "mower.pdf", "ready").await;
    // The Markdown file's original is its text; the PDF has both.
    let before = stored_hashes(&session).await;
    assert_eq!(before.len(), 3, "{before:?}");

    // The export carries the library and every stored file, byte for byte.
    let downloads = hearth_e2e::paths::scratch_dir("knowledge-custody-export");
    session.allow_downloads(&downloads).await;
    session.open_settings_tab("data").await;
    session.wait_for("#data-export").await;
    session.click_by_script("#data-export").await;
    let file = hearth_e2e::paths::downloaded(&downloads).await;
    session
        .wait_for_toast("Knowledge collections: 1, with 2 files.")
        .await;
    let entries = zip_entries(&file);
    assert_eq!(carried_hashes(&entries), before);
    let records: Value = serde_json::from_slice(&entries["hearth-export.json"]).unwrap();
    let collection = &records["knowledge"]["collections"][0];
    assert_eq!(collection["name"], "Garden");
    assert_eq!(collection["files"].as_array().map(Vec::len), Some(2));

    // Deleted here, then imported: the collection and its files come back whole.
    session.open_settings_tab("knowledge").await;
    session
        .click_by_script(&format!(
            "[data-collection=\"{garden}\"] [data-knowledge-delete]"
        ))
        .await;
    session
        .click_by_script(&format!("[data-knowledge-delete-confirm=\"{garden}\"]"))
        .await;
    session
        .wait_until("document.querySelector('[data-collection]') === null")
        .await;
    assert_eq!(stored(&session).await, Vec::<String>::new());
    import(&session, &file, "1 knowledge collections with 2 files").await;
    session
        .wait_for_toast("Knowledge: collections added 1 · files added 2 · already here 0.")
        .await;
    assert_eq!(stored_hashes(&session).await, before);
    session.open_settings_tab("knowledge").await;
    wait_stage(&session, "roses.md", "ready").await;
    wait_stage(&session, "mower.pdf", "ready").await;
    session.screenshot("knowledge-imported").await;

    // Again: nothing new, and nothing written.
    import(&session, &file, "1 knowledge collections with 2 files").await;
    session
        .wait_for_toast("Knowledge: collections added 0 · files added 0 · already here 2.")
        .await;
    assert_eq!(stored_hashes(&session).await, before);

    // The imported collection answers a conversation from its files.
    session.close_settings().await;
    use_collection(&session, "@gar", "garden", "Garden").await;
    fixture.enqueue(Reply::text("Remove the spark plug lead first [1]."));
    send(&session, "How do I sharpen the mower blade?").await;
    last_status(&session, "done").await;
    let request = chat_bodies(&fixture).last().cloned().unwrap();
    let system = system_of(&request);
    assert!(system.contains("Garden › mower.pdf"), "{system}");
    assert!(system.contains("spark plug lead"), "{system}");

    // A library that cannot be read: the conversation's chip says so (never "deleted"),
    // and a question fails with its reason rather than answer without the collection.
    let broken = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             const open = indexedDB.open('hearth');
             open.onsuccess = () => {
               const tx = open.result.transaction(['settings'], 'readwrite');
               tx.objectStore('settings').put('{not a library', 'knowledge');
               tx.oncomplete = () => done(true);
               tx.onerror = () => done(String(tx.error));
             };",
            vec![],
        )
        .await;
    assert_eq!(broken, json!(true));
    session.reload_app().await;
    session
        .wait_until(&format!(
            "document.querySelector('[data-collection-chip=\"{garden}\"]')?.textContent.includes('the library could not be read')"
        ))
        .await;
    let asked = chat_bodies(&fixture).len();
    send(&session, "And the roses?").await;
    last_status(&session, "error").await;
    assert_eq!(
        chat_bodies(&fixture).len(),
        asked,
        "nothing was sent without it"
    );
    session.screenshot("knowledge-library-unreadable").await;

    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&downloads);
    session.finish().await;
}

#[tokio::test]
async fn an_imported_record_that_points_at_another_file_is_left_out_with_its_file() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let markdown = |id: &str, source: &str| {
        json!({"id": id, "name": format!("{id}.md"), "kind": "markdown", "size": 20,
               "stage": "ready", "passages": 1, "sourcePath": source, "contentPath": source,
               "addedAt": 1.0})
    };
    let records = json!({
        "format": "hearth-export",
        "version": 2,
        "exportedAt": 0.0,
        "knowledge": {"collections": [{"id": "c9", "name": "Imported", "files": [
            markdown("good", "knowledge/c9/good/source"),
            // Its record claims a message's attachment as its own original: deleting
            // the file here would delete that attachment.
            markdown("bad", "attachments/0a1b2c"),
        ]}]},
    })
    .to_string();
    let entries: [(&str, &[u8]); 3] = [
        ("hearth-export.json", records.as_bytes()),
        ("files/knowledge/c9/good/source", b"# Good\n\nKept."),
        ("files/knowledge/c9/bad/source", b"# Bad\n\nNever kept."),
    ];
    let bytes = hearth_core::zip_store::write_all(
        &entries,
        hearth_core::zip_store::DosTime::from_unix_ms(0.0),
    )
    .unwrap();
    let dir = hearth_e2e::paths::scratch_dir("knowledge-custody-hostile");
    let file = dir.join("hostile.zip");
    std::fs::write(&file, bytes).unwrap();

    import(&session, &file, "1 knowledge collections with 2 files").await;
    session
        .wait_for_toast("Knowledge: collections added 1 · files added 1 · already here 0. 1 knowledge collections or files were not imported")
        .await;
    // The left-out record's file, written before the records, is deleted again.
    assert_eq!(stored(&session).await, ["knowledge/c9/good/source"]);
    session.open_settings_tab("knowledge").await;
    wait_stage(&session, "good.md", "ready").await;
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('[data-knowledge-file]').length",
                vec![]
            )
            .await,
        json!(1)
    );
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}

/// The knowledge library's record of file `name`, as stored.
async fn file_record(session: &AppSession, name: &str) -> Value {
    let stored = hearth_e2e::export::settings_record(session, "knowledge").await;
    let library: Value = serde_json::from_str(stored.as_str().expect("a JSON record")).unwrap();
    library["collections"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["files"].as_array().cloned().unwrap_or_default())
        .find(|f| f["name"] == json!(name))
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn an_edited_text_is_stored_apart_from_the_original_found_and_dropped_by_a_new_extraction() {
    let session = AppSession::open(1280, 900).await;
    let roses = hearth_e2e::paths::scratch_dir("knowledge-edit").join("roses.md");
    std::fs::write(&roses, ROSES).unwrap();
    session.open_settings_tab("knowledge").await;
    let garden = create(&session, "Garden", "How we keep the garden.").await;
    session
        .choose_files(&format!("#knowledge-add-{garden}"), &[&roses])
        .await;
    wait_stage(&session, "roses.md", "ready").await;
    let before = stored_hashes(&session).await;
    let source = format!("knowledge/{garden}/");
    assert_eq!(before.len(), 1, "a text file is its own text: {before:?}");

    // The editor shows the text; the edit is saved as a new version, indexed again.
    session
        .click_by_script("[data-knowledge-file='roses.md'] [data-knowledge-edit-text]")
        .await;
    session
        .wait_until("document.getElementById('knowledge-text-area')?.value.includes('Prune roses in late winter') && document.activeElement?.id === 'knowledge-text-area'")
        .await;
    session.screenshot("knowledge-edit-text").await;
    session
        .set_value(
            "#knowledge-text-area",
            "# Roses\n\nDahlias need staking in June, not roses.\n",
        )
        .await;
    session.click_by_script("#knowledge-text-save").await;
    session
        .wait_for_toast("Text saved. The file is being indexed again.")
        .await;
    wait_stage(&session, "roses.md", "ready").await;
    session
        .wait_for("[data-knowledge-file='roses.md'] [data-knowledge-edited]")
        .await;
    let record = file_record(&session, "roses.md").await;
    assert_eq!(
        (
            &record["version"],
            &record["edited"],
            &record["contentPath"]
        ),
        (
            &json!(2),
            &json!(true),
            &json!(format!(
                "knowledge/{garden}/{}/content",
                record["id"].as_str().unwrap()
            ))
        ),
        "{record}"
    );
    // The original is untouched; the edit is a file of its own.
    let after = stored_hashes(&session).await;
    assert_eq!(after.len(), 2, "{after:?}");
    for (path, hash) in &before {
        assert_eq!(after.get(path), Some(hash), "{path} changed");
    }
    assert!(after.keys().all(|p| p.starts_with(&source)));
    session.close_settings().await;

    // The palette finds the edit's words, and never the words it took out.
    session.press_ctrl('k').await;
    session.wait_for(".search-palette__input").await;
    session
        .fill(".search-palette__input", "staking pruning winter")
        .await;
    session
        .wait_until("document.querySelector(\".search-result[data-search-kind='knowledge-file']\")?.textContent.includes('Dahlias need staking')")
        .await;
    assert_eq!(
        session
            .js(
                "return [...document.querySelectorAll('.search-result')].some((r) => r.textContent.includes('Prune'))",
                vec![]
            )
            .await,
        json!(false)
    );
    session.press(&[fantoccini::key::Key::Escape]).await;

    // Extracting again asks first, drops the edit and its file.
    session.open_settings_tab("knowledge").await;
    session
        .click_by_script("[data-knowledge-file='roses.md'] [data-knowledge-reparse]")
        .await;
    session
        .click_by_script("[data-knowledge-file='roses.md'] [data-knowledge-reparse-confirm]")
        .await;
    session
        .wait_until("document.querySelector('[data-knowledge-file=\"roses.md\"]')?.dataset.stage === 'ready' && !document.querySelector('[data-knowledge-file=\"roses.md\"] [data-knowledge-edited]')")
        .await;
    assert_eq!(stored_hashes(&session).await, before);
    let record = file_record(&session, "roses.md").await;
    assert_eq!(
        (&record["version"], &record["edited"]),
        (&json!(3), &json!(false))
    );
    session.assert_no_console_errors().await;
    session.finish().await;
}
