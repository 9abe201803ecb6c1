//! Choosing who parses documents (Settings › Knowledge › Document parsing), in the real
//! build, in Chromium, with the edge's LlamaParse base pointed at a stand-in speaking its
//! v2 API (`hearth_e2e::parse_stand_in`). LlamaParse without a key is refused in words
//! before a file leaves the browser; with the user's key (sealed for the edge) an
//! attached PDF is read by it, and the model gets its text; back on the edge's own
//! parser, nothing more goes to the service.

use hearth_e2e::AppSession;
use hearth_e2e::attach::{attach, ready_chips};
use hearth_e2e::chat::{chat_bodies, last_status, prepare, send};
use hearth_e2e::parse_stand_in::{PAGES, ParseStandIn};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::json;

#[path = "../../parse/tests/support/pdf.rs"]
#[allow(dead_code)]
mod pdf;

const KEY: &str = "llx-e2e-parse-key-3f9a";

/// Chooses `parser` in Settings › Knowledge (typing `key` when given) and saves.
async fn choose(session: &AppSession, parser: &str, key: Option<&str>) {
    session.open_settings_tab("knowledge").await;
    session.wait_for("#parsing-form[data-loaded=true]").await;
    session
        .wait_for("#parsing-parser")
        .await
        .select_by_value(parser)
        .await
        .expect("a parser");
    if let Some(key) = key {
        session.fill("#parsing-api-key", key).await;
    }
    session.click_by_script("#parsing-save").await;
    session.wait_for_toast("Document parsing saved.").await;
}

async fn verdict(session: &AppSession, text: &str) {
    session
        .wait_until(&format!(
            "document.getElementById('parsing-verdict')?.textContent === {}",
            json!(text)
        ))
        .await;
}

#[tokio::test]
async fn a_chosen_remote_parser_reads_the_attached_pdf_with_the_users_key() {
    let parser = ParseStandIn::start();
    let base = parser.url();
    let session =
        AppSession::open_with_env(1280, 900, &[("HEARTH_LLAMA_PARSE_BASE_URL", &base)]).await;
    let fixture = ProviderFixture::start().await;
    prepare(&session, &fixture, None).await;
    let dir = hearth_e2e::paths::scratch_dir("document-parsing");
    let report = dir.join("report.pdf");
    std::fs::write(
        &report,
        pdf::text_pdf(&["Quarterly revenue grew by nine percent"]),
    )
    .unwrap();

    // LlamaParse with no key: the form says so, and an attachment is refused here.
    choose(&session, "llamaParse", None).await;
    verdict(
        &session,
        "This parser needs a key: add yours, or choose another parser.",
    )
    .await;
    assert!(
        session
            .text_of("#parsing-leaves")
            .await
            .contains("uploaded to LlamaParse"),
        "the user is told the file leaves"
    );
    session.close_settings().await;
    attach(&session, &[&report]).await;
    session
        .wait_for_toast("report.pdf was not sent: the chosen document parser needs a key")
        .await;
    assert!(parser.keys().is_empty(), "nothing reached the service");

    // With the user's key: the service reads the file; the model reads the service's text.
    choose(&session, "llamaParse", Some(KEY)).await;
    verdict(&session, "Ready: documents are parsed as chosen.").await;
    assert!(
        session.text_of("#parsing-form").await.contains("Saved key"),
        "the key is shown masked"
    );
    session.screenshot("document-parsing-settings").await;
    session.close_settings().await;
    attach(&session, &[&report]).await;
    ready_chips(&session, 1).await;
    fixture.enqueue(Reply::text("Quinces, apparently."));
    send(&session, "What does it say?").await;
    last_status(&session, "done").await;
    let sent = chat_bodies(&fixture).last().expect("a request").to_string();
    assert!(sent.contains(PAGES[0]) && sent.contains(PAGES[1]), "{sent}");
    assert!(
        !sent.contains("Quarterly revenue"),
        "the edge's own parser was not used: {sent}"
    );
    assert_eq!(
        parser.keys(),
        [KEY],
        "the key went to the service, and only once"
    );
    // The edge names the upload by its kind alone: the user's file name stays here.
    assert_eq!(parser.files(), ["document.pdf"]);

    // Back on the edge's own parser: the text is the PDF's, and the service hears nothing.
    choose(&session, "local", None).await;
    verdict(&session, "Ready: documents are parsed as chosen.").await;
    session.close_settings().await;
    attach(&session, &[&report]).await;
    ready_chips(&session, 1).await;
    fixture.enqueue(Reply::text("Nine percent."));
    send(&session, "And now?").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)?.textContent.includes('Nine percent.')",
        )
        .await;
    last_status(&session, "done").await;
    let sent = chat_bodies(&fixture).last().expect("a request").to_string();
    assert!(
        sent.contains("Quarterly revenue grew by nine percent"),
        "{sent}"
    );
    assert_eq!(parser.files().len(), 1, "nothing more was uploaded");
    let _ = std::fs::remove_dir_all(&dir);
    session.assert_no_console_errors().await;
    session.finish().await;
}
