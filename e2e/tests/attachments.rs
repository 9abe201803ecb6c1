//! Files attached in the composer, in the real build against the provider fixture: text
//! kinds read in the browser reach the model as context (HTML without its scripts and
//! styles), stay on the message across a reload, are named on the reply once their text
//! is gone from the browser, and refusals (an unknown type, an empty
//! file, an image that cannot be decoded, a decompression bomb) are explained with
//! nothing added; a removed file leaves no bytes. Images are scaled down in the browser,
//! shown as thumbnails and sent only to a model with vision; a model without vision is
//! named before sending and on the reply. Passages that do not fit the model's context
//! are named on the reply. A deleted message's files go when its Undo lapses, except those
//! an edited question's sibling still holds.

use std::path::{Path, PathBuf};

use hearth_e2e::AppSession;
use hearth_e2e::attach::{attach, gradient_png, ready_chips, stored_files};
use hearth_e2e::chat::{choose_model, click_in_last, last_status, ready, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

fn scratch(name: &str) -> PathBuf {
    hearth_e2e::paths::scratch_dir(&format!("attach-{name}"))
}

/// Reloads the app and opens the first conversation of the list.
async fn reopen(session: &AppSession) {
    session.goto("/").await;
    session.click(".conversation-item").await;
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

    let requests = hearth_e2e::chat::chat_bodies(&fixture);
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
    reopen(&session).await;
    session
        .wait_until("document.querySelectorAll('.message--user .attachment-chip').length === 2")
        .await;
    fixture.enqueue(Reply::text("Still marmalade."));
    send(&session, "And again?").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 4")
        .await;
    last_status(&session, "done").await;
    let requests = hearth_e2e::chat::chat_bodies(&fixture);
    assert_eq!(requests.len(), 2, "one request per question");
    let follow_up = requests[1].to_string();
    assert!(
        follow_up.contains("marmalade"),
        "earlier files travel with the history"
    );
    session.screenshot("attachments-message").await;

    // Texts gone from the browser: the model is told, and the reply names the files.
    session
        .js_async(
            "const done = arguments[arguments.length - 1];
             (async () => {
               const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('attachments');
               const names = [];
               for await (const [name] of dir.entries()) if (name.endsWith('.md')) names.push(name);
               for (const name of names) await dir.removeEntry(name);
               return names.length;
             })().then(done, (e) => done(String(e)));",
            vec![],
        )
        .await;
    fixture.enqueue(Reply::text("I cannot read them now."));
    send(&session, "Once more?").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 6")
        .await;
    last_status(&session, "done").await;
    let third = hearth_e2e::chat::chat_bodies(&fixture)
        .pop()
        .expect("a third request")
        .to_string();
    assert!(!third.contains("The secret word is"), "{third}");
    assert!(!third.contains("The visible fruit is kiwi."), "{third}");
    assert!(
        third.contains("no longer stored in this browser"),
        "{third}"
    );
    let note = session
        .js(
            "return [...document.querySelectorAll('.message--assistant')].pop().querySelector('.message__notes')?.textContent",
            vec![],
        )
        .await;
    assert_eq!(
        note,
        json!(
            "Not sent, no longer stored in this browser: guide.md, page.html. Import an export that holds them to bring them back."
        )
    );
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
    // A PNG header declaring 50,000 × 50,000 pixels: refused before any decoding.
    let bomb = dir.join("bomb.png");
    let mut header = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    header.extend(50_000u32.to_be_bytes());
    header.extend(50_000u32.to_be_bytes());
    header.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    std::fs::write(&bomb, header).unwrap();
    // At most three toasts show at once: the bomb comes second.
    for (files, texts) in [
        (
            vec![&binary, &empty, &image],
            vec![
                "notes.txt is not a kind of file Hearth can read.",
                "empty.md is empty.",
                "pixel.png could not be read as an image.",
            ],
        ),
        (
            vec![&bomb],
            vec!["bomb.png has too many pixels to open safely; the most is 60 megapixels."],
        ),
    ] {
        let paths: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
        attach(&session, &paths).await;
        for text in texts {
            session.wait_for_toast(text).await;
        }
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
    let sent = hearth_e2e::chat::chat_bodies(&fixture)
        .last()
        .unwrap()
        .to_string();
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
    session.wait_for_toast("scan.pdf has no text to read").await;
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
    let sent = hearth_e2e::chat::chat_bodies(&fixture)
        .last()
        .unwrap()
        .to_string();
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
    session.wait_for_toast("Add a model provider").await;
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

/// The image parts (`data:` URLs) of a Chat Completions request, in order.
fn image_urls(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|part| part["type"] == "image_url")
        .filter_map(|part| part["image_url"]["url"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn an_image_is_scaled_down_shown_and_sent_only_to_a_model_that_sees() {
    use base64::Engine as _;
    let fixture = ProviderFixture::start().await;
    fixture.set_listing_fields(
        "fixture-small",
        json!({"architecture": {"input_modalities": ["text", "image"]}}),
    );
    let session = ready(&fixture).await;
    let dir = scratch("image");
    let photo = dir.join("photo.png");
    std::fs::write(&photo, gradient_png(3000, 2000)).unwrap();
    attach(&session, &[&photo]).await;
    ready_chips(&session, 1).await;
    // The chip shows a thumbnail, no larger than 256 pixels, from a blob URL.
    session
        .wait_until(
            "(() => { const img = document.querySelector('.composer .attachment-chip__thumb');
                      return img && img.complete && img.naturalWidth > 0; })()",
        )
        .await;
    let thumb = session
        .js(
            "const img = document.querySelector('.composer .attachment-chip__thumb');
             return [img.naturalWidth, img.naturalHeight, img.src.startsWith('blob:')]",
            vec![],
        )
        .await;
    assert_eq!(thumb, json!([256, 171, true]));
    assert!(
        session
            .js(
                "return document.getElementById('attachment-no-vision') === null",
                vec![]
            )
            .await
            == json!(true),
        "no warning for a model with vision"
    );
    assert_eq!(
        stored_files(&session).await.as_array().map(Vec::len),
        Some(2),
        "the scaled image and its thumbnail"
    );
    session.screenshot("attachments-image").await;
    fixture.enqueue(Reply::text("A gradient."));
    send(&session, "What is in the picture?").await;
    last_status(&session, "done").await;
    let request = hearth_e2e::chat::chat_bodies(&fixture)
        .pop()
        .expect("a chat request");
    let urls = image_urls(&request);
    assert_eq!(urls.len(), 1, "{request}");
    let (mime, data) = urls[0]
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(";base64,"))
        .expect("a data URL");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64");
    let kind = hearth_core::filetype::sniff(&bytes, None).expect("an image");
    assert_eq!(mime, kind.mime(), "the type sent is the bytes' type");
    assert_eq!(
        hearth_core::image_header::dimensions(kind, &bytes),
        Some((2048, 1365)),
        "scaled to the longest side, keeping the shape"
    );
    assert!(bytes.len() as u64 <= hearth_core::attachment::MAX_IMAGE_SEND_BYTES);
    // The message keeps the thumbnail, also after a reload.
    reopen(&session).await;
    session
        .wait_until(
            "(() => { const img = document.querySelector('.message--user .attachment-chip__thumb');
                      return img && img.complete && img.naturalWidth === 256; })()",
        )
        .await;

    // The same conversation with a model that cannot see: told before and after.
    choose_model(&session, "fixture-large").await;
    attach(&session, &[&photo]).await;
    ready_chips(&session, 1).await;
    session.wait_for("#attachment-no-vision").await;
    session.screenshot("attachments-no-vision").await;
    fixture.enqueue(Reply::text("I cannot see it."));
    send(&session, "And now?").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 4")
        .await;
    last_status(&session, "done").await;
    let request = hearth_e2e::chat::chat_bodies(&fixture)
        .pop()
        .expect("a chat request");
    assert!(image_urls(&request).is_empty(), "{request}");
    assert!(
        request
            .to_string()
            .contains(hearth_core::provider::request::IMAGE_OMITTED),
        "{request}"
    );
    let note = session
        .js(
            "return [...document.querySelectorAll('.message--assistant')].pop().querySelector('.message__notes')?.textContent",
            vec![],
        )
        .await;
    assert_eq!(
        note,
        json!("Images not sent: 2. This model cannot see images.")
    );
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}

#[tokio::test]
async fn passages_that_do_not_fit_the_context_are_named_on_the_reply() {
    let fixture = ProviderFixture::start().await;
    fixture.set_listing_fields(
        "fixture-small",
        json!({"context_length": 8000, "max_tokens": 1000}),
    );
    let session = ready(&fixture).await;
    let dir = scratch("left-out");
    let long = dir.join("long.md");
    let mut text = String::new();
    for section in 0..40 {
        text.push_str(&format!("## Section {section}\n\n"));
        text.push_str(&format!("Paragraph {section} says something worth reading. ").repeat(20));
        text.push_str("\n\n");
    }
    std::fs::write(&long, &text).unwrap();
    attach(&session, &[&long]).await;
    ready_chips(&session, 1).await;
    fixture.enqueue(Reply::text("Partly read."));
    send(&session, "Summarise it").await;
    last_status(&session, "done").await;
    let sent = hearth_e2e::chat::chat_bodies(&fixture)
        .pop()
        .unwrap()
        .to_string();
    assert!(sent.contains("Section 0"), "the first passages are sent");
    assert!(!sent.contains("Section 39"), "the last ones do not fit");
    let note = session
        .js(
            "return document.querySelector('.message--assistant .message__notes')?.textContent ?? ''",
            vec![],
        )
        .await;
    let note = note.as_str().unwrap_or_default().to_string();
    assert!(
        note.starts_with("Left out to fit the model's context: ")
            && note.ends_with(" passages of long.md."),
        "{note}"
    );
    session.screenshot("attachments-left-out").await;
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}

/// Deletes the conversation titled `title` from its sidebar menu.
async fn delete_conversation(session: &AppSession, title: &str) {
    // Marks the item's menu button, for a real click on it.
    let found = session
        .js(
            "document.querySelectorAll('[data-e2e-menu]').forEach((b) => b.removeAttribute('data-e2e-menu'));
             const item = [...document.querySelectorAll('.conversation-item')]
               .find((i) => i.querySelector('.conversation-item__title')?.textContent === arguments[0]);
             if (!item) return false;
             item.querySelector('.menu-anchor .icon-button').setAttribute('data-e2e-menu', '');
             return true;",
            vec![json!(title)],
        )
        .await;
    assert_eq!(found, json!(true), "no conversation titled {title}");
    session.click("[data-e2e-menu]").await;
    // Every item has its menu in the page; the one to use is the marked item's.
    let items = "[...document.querySelector('[data-e2e-menu]').closest('.conversation-item').querySelectorAll('[role=menuitem]')]";
    session
        .wait_until(&format!(
            "{items}.some((b) => b.textContent.includes('Delete'))"
        ))
        .await;
    session
        .js(
            &format!("{items}.find((b) => b.textContent.includes('Delete')).click()"),
            vec![],
        )
        .await;
    session
        .wait_until(&format!(
            "![...document.querySelectorAll('.conversation-item__title')].some((t) => t.textContent === {})",
            json!(title)
        ))
        .await;
}

#[tokio::test]
async fn a_lapsed_undo_takes_only_the_files_no_stored_message_still_holds() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let dir = scratch("lapsed-undo");
    let notes = dir.join("notes.md");
    std::fs::write(
        &notes,
        "# Shared\n\nHeld by a question and its edited sibling.\n",
    )
    .unwrap();
    attach(&session, &[&notes]).await;
    ready_chips(&session, 1).await;
    fixture.enqueue(Reply::text("Read."));
    send(&session, "Question").await;
    last_status(&session, "done").await;
    let stored = stored_files(&session).await;
    assert_eq!(stored.as_array().map(Vec::len), Some(2), "{stored}");
    // The edited question is a sibling holding the same attachment.
    fixture.enqueue(Reply::text("Read again."));
    click_in_last(&session, "user", "Edit").await;
    let editor = session.wait_for(".message__edit-input").await;
    editor.clear().await.expect("clear");
    editor.send_keys("Edited question").await.expect("type");
    session.press(&[fantoccini::key::Key::Enter]).await;
    session
        .wait_until(
            "document.querySelector('.message--user .branch__position')?.textContent === '2/2'",
        )
        .await;
    last_status(&session, "done").await;
    click_in_last(&session, "user", "Delete").await;
    session
        .wait_until(
            "(() => { const q = [...document.querySelectorAll('.message--user')];
                      return q.length === 1 && !q[0].textContent.includes('Edited'); })()",
        )
        .await;

    // A newer delete makes the edited branch's Undo lapse: its files are the first
    // question's too, so they stay.
    session
        .js(
            "document.getElementById('sidebar-new-chat').click()",
            vec![],
        )
        .await;
    fixture.enqueue(Reply::text("Other reply."));
    send(&session, "Other").await;
    last_status(&session, "done").await;
    click_in_last(&session, "user", "Delete").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 0")
        .await;
    // The removal runs in the background: give it time to (wrongly) happen.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(
        stored_files(&session).await,
        stored,
        "the sibling's files stay"
    );

    // Once the conversation's own Undo lapses, its files go.
    delete_conversation(&session, "Question").await;
    delete_conversation(&session, "Other").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while stored_files(&session).await != json!([]) {
        assert!(
            std::time::Instant::now() < deadline,
            "the deleted conversation's files are still stored: {}",
            stored_files(&session).await
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}
