//! Settings › Data in Chromium: export writes a real file that import reads back into an
//! emptied browser (delete-all with its confirmation in between), files that are not
//! exports are refused with nothing changed, and a full disk (a real one: a small tmpfs
//! under the browser profile, filled up) refuses an import whole and a new message
//! without losing its text, with the user told what to do.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hearth_e2e::chat::{last_status, messages, prepare, ready, send};
use hearth_e2e::disk::{FILL_THE_DISK, FREE_THE_DISK, SmallDisk};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::{AppSession, Browser, Stack};
use serde_json::{Value, json};

/// A fresh folder for this test's downloads and files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hearth-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Waits for the one finished download in `dir`.
async fn downloaded(dir: &Path) -> PathBuf {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let done: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("read downloads")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        if let [file] = done.as_slice() {
            return file.clone();
        }
        assert!(Instant::now() < deadline, "no download appeared in {dir:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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

async fn choose_file(session: &AppSession, path: &Path) {
    session
        .wait_for("#data-import-file")
        .await
        .send_keys(path.to_str().expect("a UTF-8 path"))
        .await
        .expect("choose the file");
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

    let downloads = scratch("export");
    session
        .cdp(
            "Browser.setDownloadBehavior",
            json!({"behavior": "allow", "downloadPath": downloads.to_str().unwrap()}),
        )
        .await;
    session.open_settings_tab("data").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 1 · Messages: 2')")
        .await;
    session.click_by_script("#data-export").await;
    let file = downloaded(&downloads).await;
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("hearth-export-") && name.ends_with(".json"),
        "{name}"
    );
    let exported: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(exported["format"], json!("hearth-export"));
    assert_eq!(exported["messages"].as_array().unwrap().len(), 2);
    assert_eq!(exported["providers"][0]["name"], json!("Fixture"));
    let text = std::fs::read_to_string(&file).unwrap();
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
    session.click_by_script("#data-delete").await;
    session.click_by_script("#data-delete-confirm").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 0 · Messages: 0')")
        .await;
    assert_eq!(sidebar_titles(&session).await, json!([]));

    // A file that is not an export: refused, nothing changes.
    let junk = downloads.join("notes.json");
    std::fs::write(&junk, r#"{"hello": "world"}"#).unwrap();
    choose_file(&session, &junk).await;
    session
        .wait_until(
            "document.getElementById('data-error').textContent.includes('not a Hearth export')",
        )
        .await;
    assert!(counts(&session).await.contains("Conversations: 0"));

    // The export comes back whole.
    choose_file(&session, &file).await;
    session
        .wait_until("document.getElementById('data-import-summary')?.textContent.includes('conversations 1 · messages 2')")
        .await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 1 · Messages: 2')")
        .await;
    assert_eq!(sidebar_titles(&session).await, json!(["First question"]));
    // Importing the same file again changes nothing: everything is already up to date.
    choose_file(&session, &file).await;
    session
        .wait_until("document.getElementById('data-import-summary')?.textContent.includes('conversations 0 · messages 0. Already up to date: 3')")
        .await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("!document.getElementById('data-import-summary')")
        .await;
    session.screenshot("settings-data").await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_for(".conversation-item")
        .await
        .click()
        .await
        .expect("open the imported conversation");
    session
        .wait_until("document.querySelectorAll('.message').length === 2")
        .await;
    assert_eq!(messages(&session).await, before);
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

/// How long a write refused by the full disk may take to fail: alone about a second, but
/// once past the generic 15 s bound while a full test run kept both cores busy.
const FULL_DISK_BOUND: std::time::Duration = std::time::Duration::from_secs(60);

#[tokio::test]
async fn a_full_disk_refuses_an_import_whole_and_says_what_to_do() {
    let disk = SmallDisk::mount(96);
    let stack = Stack::start();
    let browser = Browser::open_with(&stack, 1280, 900, &[disk.profile_flag()]).await;
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
    let outside = scratch("quota-file");
    let file_outside = outside.join("big.json");
    std::fs::write(&file_outside, &export).unwrap();
    choose_file(&session, &file_outside).await;
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

    // A message sent on the full disk: the user is told, and the text is not lost. The
    // refused import may have let the database give space back: fill what it freed, so
    // the message's few hundred bytes cannot fit.
    let refused = session.js(FILL_THE_DISK, vec![]).await;
    assert!(
        refused.as_array().is_some_and(|r| !r.is_empty()),
        "the disk is full again: {refused}"
    );
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog')?.open")
        .await;
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
    assert_eq!(sidebar_titles(&session).await, json!([]));

    // With room again, the same text sends and the same file imports.
    session.js(FREE_THE_DISK, vec![]).await;
    fixture.enqueue(Reply::text("Stored this time."));
    session
        .js("document.getElementById('composer-input').focus()", vec![])
        .await;
    session.press(&[fantoccini::key::Key::Enter]).await;
    last_status(&session, "done").await;
    // The title is written after the reply, in the background.
    session
        .wait_until("document.querySelector('.conversation-item__title')?.textContent === 'Kept despite a full disk'")
        .await;
    assert_eq!(
        sidebar_titles(&session).await,
        json!(["Kept despite a full disk"])
    );
    session.open_settings_tab("data").await;
    choose_file(&session, &file_outside).await;
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
