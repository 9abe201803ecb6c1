//! Knowledge collections travel with an export, in Chromium: a collection with a
//! Markdown file and a PDF (its original and its extracted text) is exported beside the
//! conversations, every stored file byte for byte in the ZIP (read with another ZIP
//! implementation); deleted and imported again, it comes back whole, its files byte for
//! byte, and answers a conversation; a second import changes nothing and says so; a
//! library that cannot be read is said on the conversation's chip and fails a question
//! rather than answer without it. An
//! export whose records point a file at another file (a message's attachment) is
//! imported without that record, and the file the ZIP carried for it is not kept.

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
