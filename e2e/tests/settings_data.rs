//! Settings › Data in Chromium: export writes a real ZIP that import reads back into an
//! emptied browser (delete-all with its confirmation in between), with every attached
//! file byte for byte (hashed in the page before and after); a damaged archive and files
//! that are not exports are refused with nothing changed; and a full disk (a real one: a
//! small tmpfs under the browser profile, filled up) refuses an import whole, records and
//! files, and a new message without losing its text, with the user told what to do.
//! The storage block shows use against the quota, and asks the browser to keep the data
//! (`navigator.storage.persist()`, refused then granted through the browser's own
//! permission), which holds after a reload.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hearth_e2e::attach::{attach, gradient_png, ready_chips};
use hearth_e2e::chat::{last_status, messages, prepare, ready, send};
use hearth_e2e::disk::{FILL_THE_DISK, FREE_THE_DISK, SmallDisk};
use hearth_e2e::export::{carried_hashes, zip_entries};
use hearth_e2e::paths::scratch_dir;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::{AppSession, Browser, Stack};
use serde_json::{Value, json};

/// Opens Settings › Data once it counts the one conversation of two messages the tests
/// make, exports into `downloads` and returns the file.
async fn export(session: &AppSession, downloads: &Path) -> PathBuf {
    session.allow_downloads(downloads).await;
    session.open_settings_tab("data").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 1 · Messages: 2')")
        .await;
    session.click_by_script("#data-export").await;
    hearth_e2e::paths::downloaded(downloads).await
}

/// `dir/name` → SHA-256 of every file in the private file system's `images` and
/// `attachments`, hashed in the page.
async fn stored_file_hashes(session: &AppSession) -> BTreeMap<String, String> {
    hearth_e2e::export::stored_hashes(session, &["images", "attachments"]).await
}

async fn counts(session: &AppSession) -> String {
    session
        .js(
            "return document.getElementById('data-counts')?.textContent ?? ''",
            vec![],
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn sidebar_titles(session: &AppSession) -> Value {
    session
        .js(
            "return [...document.querySelectorAll('.conversation-item__title')].map((e) => e.textContent)",
            vec![],
        )
        .await
}

#[tokio::test]
async fn export_delete_all_and_import_bring_everything_back() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(Reply::text("First answer."));
    send(&session, "First question").await;
    last_status(&session, "done").await;
    let before = messages(&session).await;

    let downloads = scratch_dir("export");
    let file = export(&session, &downloads).await;
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("hearth-export-") && name.ends_with(".zip"),
        "{name}"
    );
    let entries = zip_entries(&file);
    assert_eq!(
        entries.keys().collect::<Vec<_>>(),
        ["hearth-export.json"],
        "no files: the messages hold none"
    );
    let records = &entries["hearth-export.json"];
    let exported: Value = serde_json::from_slice(records).unwrap();
    assert_eq!(exported["format"], json!("hearth-export"));
    assert_eq!(exported["version"], json!(2));
    assert_eq!(exported["messages"].as_array().unwrap().len(), 2);
    assert_eq!(exported["providers"][0]["name"], json!("Fixture"));
    let text = String::from_utf8_lossy(records);
    assert!(
        !text.to_lowercase().contains("apikey"),
        "no key field in the export"
    );

    // Delete all asks first; Cancel keeps everything.
    session.click_by_script("#data-delete").await;
    session.wait_for("#data-delete-confirm").await;
    session.click_by_script("#data-delete-cancel").await;
    session.wait_for("#data-delete").await;
    assert!(counts(&session).await.contains("Conversations: 1"));
    hearth_e2e::export::delete_all_conversations(&session).await;
    assert_eq!(sidebar_titles(&session).await, json!([]));

    // A file that is not an export: refused, nothing changes.
    let junk = downloads.join("notes.json");
    std::fs::write(&junk, r#"{"hello": "world"}"#).unwrap();
    session.choose_files("#data-import-file", &[&junk]).await;
    session
        .wait_until(
            "document.getElementById('data-error').textContent.includes('neither a Hearth export')",
        )
        .await;
    assert!(counts(&session).await.contains("Conversations: 0"));

    // The export comes back whole.
    session.choose_files("#data-import-file", &[&file]).await;
    session
        .wait_until("document.getElementById('data-import-summary')?.textContent.includes('conversations 1 · messages 2')")
        .await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 1 · Messages: 2')")
        .await;
    assert_eq!(sidebar_titles(&session).await, json!(["First question"]));
    // Importing the same file again changes nothing: everything is already up to date.
    session.choose_files("#data-import-file", &[&file]).await;
    session
        .wait_until("document.getElementById('data-import-summary')?.textContent.includes('conversations 0 · messages 0 · files 0. Already up to date: 3')")
        .await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("!document.getElementById('data-import-summary')")
        .await;
    session.screenshot("settings-data").await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    session.click(".conversation-item").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 2")
        .await;
    assert_eq!(messages(&session).await, before);
    let _ = std::fs::remove_dir_all(&downloads);
    session.finish().await;
}

/// A copy of the ZIP `bytes` with one byte flipped inside the data of its entry `name`
/// (the first occurrence of the name is its local header; Hearth writes no extra field).
fn damaged(bytes: &[u8], name: &str) -> Vec<u8> {
    let at = bytes
        .windows(name.len())
        .position(|w| w == name.as_bytes())
        .expect("the entry's local header");
    let mut copy = bytes.to_vec();
    copy[at + name.len()] ^= 0x55;
    copy
}

#[tokio::test]
async fn an_export_carries_every_file_and_an_import_gives_them_back_byte_for_byte() {
    let fixture = ProviderFixture::start().await;
    fixture.set_listing_fields(
        "fixture-small",
        json!({"architecture": {"input_modalities": ["text", "image"]}}),
    );
    let session = ready(&fixture).await;
    let dir = scratch_dir("custody");
    let photo = dir.join("photo.png");
    std::fs::write(&photo, gradient_png(600, 400)).unwrap();
    let notes = dir.join("notes.md");
    std::fs::write(&notes, "# Custody\n\nThe words of the attached notes.\n").unwrap();
    attach(&session, &[&photo, &notes]).await;
    ready_chips(&session, 2).await;
    fixture.enqueue(Reply::text("Both kept."));
    send(&session, "Keep these files").await;
    last_status(&session, "done").await;
    // The image and its thumbnail, the document and its text.
    let before = stored_file_hashes(&session).await;
    assert_eq!(before.len(), 4, "{before:?}");

    let downloads = scratch_dir("custody-export");
    let file = export(&session, &downloads).await;
    session
        .wait_until("document.querySelector('.toast')?.textContent.includes('Files: 4')")
        .await;
    // Every file is in the archive, byte for byte, under its directory and name.
    let entries = zip_entries(&file);
    assert_eq!(carried_hashes(&entries), before);
    assert_eq!(entries.len(), 5, "the records and the four files");
    let records: Value = serde_json::from_slice(&entries["hearth-export.json"]).unwrap();
    // Records come out in key order (random ids): find the question.
    let question = records["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .expect("the question");
    assert_eq!(question["attachments"].as_array().map(Vec::len), Some(2));

    hearth_e2e::export::delete_all_conversations(&session).await;
    assert_eq!(
        stored_file_hashes(&session).await,
        BTreeMap::new(),
        "delete-all removes the attached files too"
    );

    // A copy whose last file does not match its checksum: the files before it were
    // written, then removed again; no record is written.
    let zip_bytes = std::fs::read(&file).unwrap();
    let last_file = entries
        .keys()
        .filter(|name| name.starts_with("files/"))
        .max_by_key(|name| {
            zip_bytes
                .windows(name.len())
                .position(|w| w == name.as_bytes())
        })
        .unwrap()
        .clone();
    let broken = dir.join("broken.zip");
    std::fs::write(&broken, damaged(&zip_bytes, &last_file)).unwrap();
    session.choose_files("#data-import-file", &[&broken]).await;
    session
        .wait_until(
            "document.getElementById('data-import-summary')?.textContent.includes('files 4')",
        )
        .await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until(&format!(
            "document.getElementById('data-error').textContent.includes('{last_file} does not match its checksum')"
        ))
        .await;
    assert_eq!(stored_file_hashes(&session).await, BTreeMap::new());
    assert!(
        counts(&session)
            .await
            .contains("Conversations: 0 · Messages: 0")
    );

    // The export itself comes back whole: the same files, byte for byte.
    session.choose_files("#data-import-file", &[&file]).await;
    session
        .wait_until("document.getElementById('data-import-summary')?.textContent.includes('conversations 1 · messages 2 · files 4.')")
        .await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 1 · Messages: 2')")
        .await;
    assert_eq!(stored_file_hashes(&session).await, before);
    // Again: nothing to write, the files included.
    session.choose_files("#data-import-file", &[&file]).await;
    session
        .wait_until("document.getElementById('data-import-summary')?.textContent.includes('files 0. Already up to date: 7')")
        .await;
    session.screenshot("settings-data-files").await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("!document.getElementById('data-import-summary')")
        .await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    session.click(".conversation-item").await;
    // The message shows its thumbnail from the imported file.
    session
        .wait_until(
            "(() => { const img = document.querySelector('.message--user .attachment-chip__thumb');
                      return img && img.complete && img.naturalWidth > 0; })()",
        )
        .await;
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&downloads);
    session.finish().await;
}

/// An export of one conversation with `count` messages of about 1 KB each.
fn big_export(count: usize) -> String {
    let conversation =
        json!({"id": "big", "title": "Big import", "createdAt": 1.0, "updatedAt": 1.0, "rev": 1});
    let messages: Vec<Value> = (0..count)
        .map(|i| {
            json!({
                "id": format!("big-{i:05}"),
                "conversationId": "big",
                "parentId": if i == 0 { Value::Null } else { json!(format!("big-{:05}", i - 1)) },
                "role": if i % 2 == 0 { "user" } else { "assistant" },
                "content": format!("{i} {}", "lorem ipsum dolor sit amet ".repeat(40)),
                "status": "done",
                "createdAt": i as f64,
                "updatedAt": i as f64,
                "rev": 1,
            })
        })
        .collect();
    json!({
        "format": "hearth-export",
        "version": 1,
        "exportedAt": 0.0,
        "conversations": [conversation],
        "messages": messages,
    })
    .to_string()
}

/// A ZIP export (written with the app's own format code) of a small conversation and
/// `files` attachment files of `size` random bytes each, which do not compress.
fn export_with_files(files: usize, size: usize) -> Vec<u8> {
    use hearth_core::zip_store::{DosTime, write_all};
    let records = big_export(2).replace("\"version\":1", "\"version\":2");
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let carried: Vec<(String, Vec<u8>)> = (0..files)
        .map(|i| {
            let bytes = (0..size)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect();
            (format!("files/attachments/0a0b0c{i}"), bytes)
        })
        .collect();
    let mut entries: Vec<(&str, &[u8])> = vec![("hearth-export.json", records.as_bytes())];
    entries.extend(carried.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    write_all(&entries, DosTime::from_unix_ms(0.0)).unwrap()
}

/// How long a write refused by the full disk may take to fail: alone about a second, but
/// once past the generic 15 s bound while a full test run kept both cores busy.
const FULL_DISK_BOUND: std::time::Duration = std::time::Duration::from_secs(60);

#[tokio::test]
async fn a_full_disk_refuses_an_import_whole_and_says_what_to_do() {
    let disk = SmallDisk::mount(96);
    let stack = Stack::start_with_profiles_under(&disk.dir);
    let browser = Browser::open(&stack, 1280, 900).await;
    browser.open_app("/").await;
    let session = AppSession { browser, stack };
    let fixture = ProviderFixture::start().await;
    prepare(&session, &fixture, None).await;
    let export = big_export(3_000);
    session.open_settings_tab("data").await;
    session
        .wait_until(
            "document.getElementById('data-counts')?.textContent.includes('Conversations: 0')",
        )
        .await;
    let refused = session.js(FILL_THE_DISK, vec![]).await;
    assert_eq!(
        refused,
        json!([
            "QuotaExceededError",
            "QuotaExceededError",
            "QuotaExceededError",
            "QuotaExceededError",
            "QuotaExceededError"
        ]),
        "the disk filled up"
    );
    // The file lives off the full disk.
    let outside = scratch_dir("quota-file");
    let file_outside = outside.join("big.json");
    std::fs::write(&file_outside, &export).unwrap();
    session
        .choose_files("#data-import-file", &[&file_outside])
        .await;
    session.wait_for("#data-import-confirm").await;
    session.click_by_script("#data-import-confirm").await;
    // A write refused by a full disk: the browser takes a while to say so under load.
    session
        .wait_until_within(
            "document.getElementById('data-error').textContent.includes('storage for Hearth is full')",
            FULL_DISK_BOUND,
        )
        .await;
    // Not half-applied: no conversation and no message was written.
    session.open_settings_tab("general").await;
    session.open_settings_tab("data").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 0 · Messages: 0')")
        .await;
    assert_eq!(sidebar_titles(&session).await, json!([]));

    // An archive with files: refused as a whole too, no file left behind.
    let with_files = outside.join("with-files.zip");
    std::fs::write(&with_files, export_with_files(2, 600_000)).unwrap();
    // Choosing a file clears the last error; the one awaited below is this import's.
    session
        .choose_files("#data-import-file", &[&with_files])
        .await;
    session.wait_for("#data-import-confirm").await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until_within(
            "document.getElementById('data-error').textContent.includes('storage for Hearth is full')",
            FULL_DISK_BOUND,
        )
        .await;
    assert_eq!(stored_file_hashes(&session).await, BTreeMap::new());
    session.open_settings_tab("general").await;
    session.open_settings_tab("data").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 0 · Messages: 0')")
        .await;

    // A message sent on the full disk: the user is told, and neither the text nor the
    // file attached before the disk filled is lost. The disk is filled again after the
    // file is in, so the message's few hundred bytes cannot fit.
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog')?.open")
        .await;
    // The file is attached with room to store it (the filler is freed, then put back).
    session.js(FREE_THE_DISK, vec![]).await;
    let note = outside.join("note.txt");
    std::fs::write(&note, "A note that must not be lost.\n").unwrap();
    attach(&session, &[note.as_path()]).await;
    ready_chips(&session, 1).await;
    let refused = session.js(FILL_THE_DISK, vec![]).await;
    assert!(
        refused.as_array().is_some_and(|r| !r.is_empty()),
        "the disk is full again: {refused}"
    );
    send(&session, "Kept despite a full disk").await;
    session
        .wait_until_within(
            "document.querySelector('.storage-banner')?.textContent.includes('storage for Hearth is full')",
            FULL_DISK_BOUND,
        )
        .await;
    session
        .wait_until(
            "document.getElementById('composer-input').value === 'Kept despite a full disk'",
        )
        .await;
    ready_chips(&session, 1).await;
    assert!(
        session
            .js("return document.querySelector('.composer .attachment-chip')?.textContent.includes('note.txt')", vec![])
            .await
            .as_bool()
            .unwrap_or(false),
        "the attached file is back in the composer"
    );
    assert_eq!(sidebar_titles(&session).await, json!([]));

    // With room again, the same text sends and the same file imports.
    session.js(FREE_THE_DISK, vec![]).await;
    fixture.enqueue(Reply::text("Stored this time."));
    session
        .js("document.getElementById('composer-input').focus()", vec![])
        .await;
    session.press(&[fantoccini::key::Key::Enter]).await;
    last_status(&session, "done").await;
    session
        .wait_until("document.querySelector('.message--user .attachment-chips--message')?.textContent.includes('note.txt') && !document.querySelector('.composer .attachment-chip')")
        .await;
    // The title is written after the reply, in the background.
    session
        .wait_until("document.querySelector('.conversation-item__title')?.textContent === 'Kept despite a full disk'")
        .await;
    assert_eq!(
        sidebar_titles(&session).await,
        json!(["Kept despite a full disk"])
    );
    session.open_settings_tab("data").await;
    session
        .choose_files("#data-import-file", &[&file_outside])
        .await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 2 · Messages: 3002')")
        .await;
    let titles = sidebar_titles(&session).await;
    assert!(
        titles.as_array().unwrap().contains(&json!("Big import")),
        "{titles}"
    );
    let _ = std::fs::remove_dir_all(&outside);
    // The refused writes are logged by the browser as errors; that is the point.
    session.browser.close().await;
    drop(disk);
}

/// Lets or refuses this site's `navigator.storage.persist()`, as the browser decides it.
async fn persistent_storage(session: &AppSession, setting: &str) {
    session
        .cdp(
            "Browser.setPermission",
            json!({
                "permission": {"name": "persistent-storage"},
                "setting": setting,
                "origin": session.origin(),
            }),
        )
        .await;
}

#[tokio::test]
async fn storage_use_is_shown_and_keeping_the_data_is_asked_for_and_kept() {
    let session = AppSession::open(1280, 900).await;
    persistent_storage(&session, "denied").await;
    session.open_settings_tab("data").await;
    session
        .wait_until("/^Using \\S+ \\S+ of \\S+ \\S+ available to this site\\.$/.test(document.getElementById('data-usage')?.textContent)")
        .await;
    session
        .wait_until("document.getElementById('data-persisted')?.textContent.includes('may clear this data')")
        .await;
    let quota = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             navigator.storage.estimate().then((e) => done(e.quota), () => done(0));",
            vec![],
        )
        .await
        .as_f64()
        .unwrap_or_default();
    assert!(quota > 0.0, "the browser reports a quota");
    // textContent, as the wait below compares it.
    let before = session
        .js(
            "return document.getElementById('data-usage').textContent",
            vec![],
        )
        .await;
    assert!(
        before.as_str().is_some_and(|t| t.starts_with("Using ")),
        "{before}"
    );

    // Refused: the user is told, and asking stays possible.
    session.click_by_script("#data-persist-ask").await;
    session
        .wait_until("document.querySelector('.toasts')?.textContent.includes('The browser declined for now')")
        .await;
    session.wait_for("#data-persist-ask").await;

    // Granted: said, the button goes, and it holds after a reload.
    persistent_storage(&session, "granted").await;
    session.click_by_script("#data-persist-ask").await;
    session
        .wait_until("document.querySelector('.toasts')?.textContent.includes('will keep Hearth')")
        .await;
    session
        .wait_until("document.getElementById('data-persisted')?.textContent.includes('has promised to keep')")
        .await;
    session
        .wait_until("!document.getElementById('data-persist-ask')")
        .await;

    // Importing about a megabyte of messages shows in the use and the meter.
    let dir = scratch_dir("persist");
    let big = dir.join("big.json");
    std::fs::write(&big, big_export(800)).unwrap();
    session.choose_files("#data-import-file", &[&big]).await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Messages: 800')")
        .await;
    session
        .wait_until(&format!(
            "document.getElementById('data-usage')?.textContent !== {before}"
        ))
        .await;
    let meter = session
        .js("return document.querySelector('.data-meter').value", vec![])
        .await
        .as_f64()
        .unwrap_or_default();
    assert!(meter > 0.0 && meter < 1.0, "meter {meter}");
    session.screenshot("settings-data-storage").await;

    session.reload_app().await;
    let kept = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             navigator.storage.persisted().then(done, () => done(null));",
            vec![],
        )
        .await;
    assert_eq!(kept, json!(true));
    session.open_settings_tab("data").await;
    session
        .wait_until("document.getElementById('data-persisted')?.textContent.includes('has promised to keep')")
        .await;
    assert!(
        session
            .js(
                "return !document.getElementById('data-persist-ask')",
                vec![]
            )
            .await
            .as_bool()
            .unwrap_or(false)
    );
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}
