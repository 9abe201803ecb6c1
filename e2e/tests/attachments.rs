//! Files attached in the composer, in the real build against the provider fixture: text
//! kinds read in the browser reach the model as context (HTML without its scripts and
//! styles), stay on the message across a reload, and refusals (an unknown type, an empty
//! file, an image) are explained with nothing added; a removed file leaves no bytes.

use std::path::{Path, PathBuf};

use hearth_e2e::AppSession;
use hearth_e2e::chat::{last_status, ready, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hearth-e2e-attach-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Chooses `paths` in the composer's file input (as the picker would).
async fn attach(session: &AppSession, paths: &[&Path]) {
    let joined = paths
        .iter()
        .map(|p| p.to_str().expect("a UTF-8 path"))
        .collect::<Vec<_>>()
        .join("\n");
    session
        .wait_for("#composer-attach-input")
        .await
        .send_keys(&joined)
        .await
        .expect("choose the files");
}

/// Waits until the composer shows `count` chips, none of them still reading.
async fn ready_chips(session: &AppSession, count: usize) {
    session
        .wait_until(&format!(
            "document.querySelectorAll('.composer .attachment-chip').length === {count} && \
             !document.querySelector('.composer .attachment-chip--busy')"
        ))
        .await;
}

/// The names of the stored attachment files in OPFS.
async fn stored_files(session: &AppSession) -> Value {
    session
        .js_async(
            "const done = arguments[arguments.length - 1];
             (async () => {
               const root = await navigator.storage.getDirectory();
               let dir;
               try { dir = await root.getDirectoryHandle('attachments'); } catch (e) { return []; }
               const names = [];
               for await (const [name] of dir.entries()) names.push(name);
               return names.sort();
             })().then(done, (e) => done(String(e)));",
            vec![],
        )
        .await
}

fn chat_requests(fixture: &ProviderFixture) -> Vec<Value> {
    fixture
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .map(|r| r.json())
        .collect()
}

#[tokio::test]
async fn text_files_reach_the_model_as_context_and_stay_on_the_message() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let dir = scratch("context");
    let guide = dir.join("guide.md");
    std::fs::write(
        &guide,
        "# Setup\n\nThe secret word is marmalade.\n\n## Later\n\nNothing else.\n",
    )
    .unwrap();
    let page = dir.join("page.html");
    std::fs::write(
        &page,
        "<!doctype html><html><head><style>.x{color:red}</style><script>alert('pwned')</script></head>\
         <body><h1>Fruit</h1><p>The visible fruit is kiwi.</p><noscript>hidden-noscript</noscript></body></html>",
    )
    .unwrap();
    attach(&session, &[&guide, &page]).await;
    ready_chips(&session, 2).await;
    session.screenshot("attachments-composer").await;
    fixture.enqueue(Reply::text("It is marmalade."));
    send(&session, "What is the secret word?").await;
    last_status(&session, "done").await;

    let requests = chat_requests(&fixture);
    let request = requests.last().expect("a chat request");
    let sent = request.to_string();
    assert!(
        sent.contains("marmalade"),
        "the Markdown file's text: {sent}"
    );
    assert!(
        sent.contains("The visible fruit is kiwi."),
        "the page's text: {sent}"
    );
    assert!(
        sent.contains("guide.md"),
        "passages are named after their file"
    );
    for absent in ["alert", "pwned", "color:red", "hidden-noscript", "<p>"] {
        assert!(!sent.contains(absent), "{absent} reached the model: {sent}");
    }
    // The composer is empty again; the question shows its files.
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.composer .attachment-chip').length",
                vec![]
            )
            .await,
        json!(0)
    );
    let names = "return [...document.querySelectorAll('.message--user .attachment-chip__name')].map((e) => e.textContent)";
    assert_eq!(
        session.js(names, vec![]).await,
        json!(["guide.md", "page.html"])
    );
    assert_eq!(
        stored_files(&session).await.as_array().map(Vec::len),
        Some(4)
    );

    // After a reload the message still has them, and a follow-up still sends them.
    session.goto("/").await;
    session
        .wait_for(".conversation-item")
        .await
        .click()
        .await
        .expect("open");
    session
        .wait_until("document.querySelectorAll('.message--user .attachment-chip').length === 2")
        .await;
    fixture.enqueue(Reply::text("Still marmalade."));
    send(&session, "And again?").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 4")
        .await;
    last_status(&session, "done").await;
    let requests = chat_requests(&fixture);
    assert_eq!(requests.len(), 2, "one request per question");
    let follow_up = requests[1].to_string();
    assert!(
        follow_up.contains("marmalade"),
        "earlier files travel with the history"
    );
    session.screenshot("attachments-message").await;
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}

#[tokio::test]
async fn refusals_are_explained_and_a_removed_file_leaves_nothing() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let dir = scratch("refusals");
    let binary = dir.join("notes.txt");
    std::fs::write(&binary, [0u8, 159, 146, 150, 0, 1, 2, 255, 254]).unwrap();
    let empty = dir.join("empty.md");
    std::fs::write(&empty, b"").unwrap();
    let image = dir.join("pixel.png");
    std::fs::write(
        &image,
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89",
    )
    .unwrap();
    attach(&session, &[&binary, &empty, &image]).await;
    for text in [
        "notes.txt is not a kind of file Hearth can read.",
        "empty.md is empty.",
        "Images cannot be attached yet; pixel.png was not added.",
    ] {
        session
            .wait_until(&format!(
                "[...document.querySelectorAll('.toast')].some((t) => t.textContent.includes({}))",
                json!(text)
            ))
            .await;
    }
    session
        .wait_until("document.querySelectorAll('.composer .attachment-chip').length === 0")
        .await;

    // A file removed before sending is not sent and not kept.
    let secret = dir.join("secret.md");
    std::fs::write(&secret, "The removed word is zucchini.").unwrap();
    attach(&session, &[&secret]).await;
    ready_chips(&session, 1).await;
    assert_eq!(
        stored_files(&session).await.as_array().map(Vec::len),
        Some(2)
    );
    session
        .click_by_script(".composer .attachment-chip__remove")
        .await;
    session
        .wait_until("document.querySelectorAll('.composer .attachment-chip').length === 0")
        .await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while stored_files(&session).await != json!([]) {
        assert!(
            std::time::Instant::now() < deadline,
            "the removed file's bytes stayed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    fixture.enqueue(Reply::text("Nothing attached."));
    send(&session, "Anything?").await;
    last_status(&session, "done").await;
    let sent = chat_requests(&fixture).last().unwrap().to_string();
    assert!(!sent.contains("zucchini"), "{sent}");
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}

#[path = "../../parse/tests/support/pdf.rs"]
#[allow(dead_code)]
mod pdf;

#[tokio::test]
async fn a_pdf_is_read_by_the_edge_and_a_scan_is_explained() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let dir = scratch("pdf");
    let report = dir.join("report.pdf");
    std::fs::write(
        &report,
        pdf::text_pdf(&[
            "Quarterly revenue grew by nine percent",
            "Costs fell slightly",
        ]),
    )
    .unwrap();
    let scan = dir.join("scan.pdf");
    std::fs::write(&scan, pdf::scanned_pdf(1)).unwrap();
    attach(&session, &[&report, &scan]).await;
    session
        .wait_until(
            "[...document.querySelectorAll('.toast')].some((t) => t.textContent.includes('scan.pdf has no text to read'))",
        )
        .await;
    ready_chips(&session, 1).await;
    assert_eq!(
        session
            .js(
                "return document.querySelector('.composer .attachment-chip__name').textContent",
                vec![]
            )
            .await,
        json!("report.pdf")
    );
    fixture.enqueue(Reply::text("Nine percent."));
    send(&session, "How much did revenue grow?").await;
    last_status(&session, "done").await;
    let sent = chat_requests(&fixture).last().unwrap().to_string();
    assert!(
        sent.contains("Quarterly revenue grew by nine percent"),
        "{sent}"
    );
    assert!(sent.contains("Costs fell slightly"), "{sent}");
    assert_eq!(
        session
            .js(
                "return document.querySelector('.message--user .attachment-chip')?.dataset.kind",
                vec![]
            )
            .await,
        json!("pdf")
    );
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}

#[tokio::test]
async fn without_a_model_the_files_stay_in_the_composer() {
    let session = AppSession::open(1280, 900).await;
    let dir = scratch("no-model");
    let notes = dir.join("notes.md");
    std::fs::write(&notes, "Kept for later.").unwrap();
    attach(&session, &[&notes]).await;
    ready_chips(&session, 1).await;
    send(&session, "Hello").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.toast')].some((t) => t.textContent.includes('Add a model provider'))",
        )
        .await;
    // Neither the text nor the file was taken: both wait for a provider.
    ready_chips(&session, 1).await;
    assert_eq!(
        session
            .js(
                "return document.getElementById('composer-input').value",
                vec![]
            )
            .await,
        json!("Hello")
    );
    assert_eq!(
        stored_files(&session).await.as_array().map(Vec::len),
        Some(2)
    );
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}
