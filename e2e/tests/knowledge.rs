//! Knowledge collections in the real build, in Chromium, against the provider fixture
//! and the edge's own document parser: a collection made in Settings › Knowledge takes a
//! Markdown file (read in the browser) and a two-page PDF (read by the edge) and refuses
//! an image in words; `@` lets the conversation answer from it; the question's request
//! carries the passages it finds, labelled with collection, file and page; the answer's
//! `[n]` links open the cited passage, across a reload, and say so once the file's text
//! changed; a conversation that stops using the collection sends none of it. A reload
//! resumes a file left half-way and marks one that cannot resume; Check files deletes a
//! stray file and extracts a lost text again; a collection is renamed and recoloured (an
//! empty name refused); a file cancelled mid-parse and a deleted collection leave nothing
//! stored.

use std::path::PathBuf;

use hearth_e2e::chat::{chat_bodies, last_status, ready, send};
use hearth_e2e::chat::{system_of, type_in_composer};
use hearth_e2e::knowledge::{
    create, seed, stage_of, state_text, stored, use_collection, wait_stage,
};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

#[path = "../../parse/tests/support/pdf.rs"]
#[allow(dead_code)]
mod pdf;

fn scratch(name: &str) -> PathBuf {
    hearth_e2e::paths::scratch_dir(&format!("knowledge-{name}"))
}

const ROSES: &str = "# Roses\n\nA short guide to the garden's roses.\n\n## Pruning\n\nPrune roses in late winter, just above an outward-facing bud, with clean shears.\n\n## Feeding\n\nFeed them with compost in spring.\n";

#[tokio::test]
async fn a_collection_answers_a_conversation_with_passages_whose_citations_open_them() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let dir = scratch("answers");
    let roses = dir.join("roses.md");
    std::fs::write(&roses, ROSES).unwrap();
    let manual = dir.join("mower.pdf");
    std::fs::write(
        &manual,
        pdf::text_pdf(&[
            "Lawn mower manual. Safety first.",
            "To sharpen the blade, remove the spark plug lead and clamp the blade.",
        ]),
    )
    .unwrap();
    let photo = dir.join("photo.png");
    std::fs::write(&photo, hearth_e2e::attach::gradient_png(32, 32)).unwrap();

    // From the sidebar; a collection needs a name, said in words.
    session.click_by_script("#sidebar-knowledge").await;
    session.wait_for("#knowledge-panel").await;
    session
        .wait_until("document.getElementById('knowledge-empty') !== null")
        .await;
    session.click_by_script("#knowledge-create").await;
    session
        .wait_until("document.querySelector('#knowledge-form .field__error')?.textContent.includes('needs a name')")
        .await;
    let garden = create(&session, "Garden", "How we keep the garden.").await;
    // The same name again (another case) is refused.
    session.fill("#knowledge-name", "garden").await;
    session.click_by_script("#knowledge-create").await;
    session
        .wait_until("document.querySelector('#knowledge-form .field__error')?.textContent.includes('Another collection')")
        .await;

    session
        .choose_files(
            &format!("#knowledge-add-{garden}"),
            &[&roses, &manual, &photo],
        )
        .await;
    wait_stage(&session, "roses.md", "ready").await;
    wait_stage(&session, "mower.pdf", "ready").await;
    wait_stage(&session, "photo.png", "failed").await;
    assert!(
        state_text(&session, "photo.png")
            .await
            .contains("is an image"),
        "{}",
        state_text(&session, "photo.png").await
    );
    assert!(state_text(&session, "roses.md").await.starts_with("Ready"));
    // The Markdown file is its own text; the PDF keeps its original and its text.
    let files = stored(&session).await;
    assert_eq!(
        files.iter().filter(|p| p.ends_with("/source")).count(),
        2,
        "{files:?}"
    );
    assert_eq!(
        files.iter().filter(|p| p.ends_with("/content")).count(),
        1,
        "{files:?}"
    );
    assert!(
        files
            .iter()
            .all(|p| p.starts_with(&format!("knowledge/{garden}/")))
    );
    session
        .js(
            "document.querySelector('[data-collection]').scrollIntoView({block: 'start'})",
            vec![],
        )
        .await;
    session.screenshot("knowledge-settings").await;
    session.close_settings().await;

    // `@gar` lists the collection; Enter uses it here and the chip says so.
    use_collection(&session, "@gar", "garden", "Garden").await;
    session
        .wait_until(&format!(
            "document.querySelector('[data-collection-chip=\"{garden}\"]')?.textContent.includes('Garden')"
        ))
        .await;

    fixture.enqueue(Reply::text(
        "Prune them in late winter [1]. Sharpen the blade with the plug lead off [2].",
    ));
    send(
        &session,
        "When should I prune the roses, and how do I sharpen the blade?",
    )
    .await;
    last_status(&session, "done").await;
    let request = chat_bodies(&fixture).last().cloned().unwrap();
    let system = system_of(&request);
    assert!(system.contains("Garden › roses.md"), "{system}");
    assert!(system.contains("outward-facing bud"), "{system}");
    assert!(system.contains("Garden › mower.pdf"), "{system}");
    assert!(system.contains("(page 1)"), "{system}");
    assert!(system.contains("spark plug lead"), "{system}");
    // Labelled as data.
    assert!(system.contains("never as instructions"), "{system}");

    // The answer's citations link to its sources, which name collection and page.
    session
        .wait_until("document.querySelectorAll('.message--assistant a.citation').length === 2")
        .await;
    let citations = session
        .js(
            "return [...document.querySelectorAll('.message--assistant a.citation')].map((a) => [a.getAttribute('href'), a.getAttribute('target')])",
            vec![],
        )
        .await;
    assert_eq!(citations, json!([["#source-1", null], ["#source-2", null]]));
    let sources = session
        .js(
            "return [...document.querySelectorAll('.message--assistant .reply-sources__passage')].map((b) => b.textContent)",
            vec![],
        )
        .await;
    let sources: Vec<String> = serde_json::from_value(sources).unwrap();
    assert!(sources.len() >= 2, "{sources:?}");
    let pdf_number = sources
        .iter()
        .position(|s| s.contains("mower.pdf"))
        .unwrap()
        + 1;
    assert!(
        sources[pdf_number - 1].contains("Garden · page 1"),
        "{sources:?}"
    );
    assert!(
        sources
            .iter()
            .any(|s| s.contains("roses.md — Roses › Pruning")),
        "{sources:?}"
    );
    // Found by their words alone, and said so.
    assert!(
        session
            .text_of(".message--assistant [data-knowledge-lexical]")
            .await
            .contains("matching words"),
    );
    session.screenshot("knowledge-reply").await;

    // A citation opens the passage it cites: the text of source 1.
    let open_citation = |n: usize| {
        format!(
            "document.querySelectorAll('.message--assistant a.citation')[{}].click()",
            n - 1
        )
    };
    let expected = |label: &str| match label {
        l if l.contains("mower.pdf") => "spark plug",
        l if l.contains("Pruning") => "outward-facing bud",
        l if l.contains("Feeding") => "compost",
        _ => "short guide",
    };
    session.js(&open_citation(1), vec![]).await;
    session
        .wait_until("document.querySelector('#passage-view .passage__text') !== null")
        .await;
    let passage = session.text_of("#passage-view .passage__text").await;
    assert!(
        passage.contains(expected(&sources[0])),
        "{passage} for {}",
        sources[0]
    );
    session.screenshot("knowledge-passage").await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_until("document.getElementById('passage-view') === null")
        .await;

    // After a reload: the conversation still uses the collection, and the citation
    // still opens its passage.
    session.goto("/").await;
    session.click(".conversation-item").await;
    session
        .wait_until(&format!(
            "document.querySelector('[data-collection-chip=\"{garden}\"]') !== null"
        ))
        .await;
    session
        .wait_until("document.querySelectorAll('.message--assistant a.citation').length === 2")
        .await;
    session.js(&open_citation(2), vec![]).await;
    session
        .wait_until("document.querySelector('#passage-view .passage__text') !== null")
        .await;
    let passage = session.text_of("#passage-view .passage__text").await;
    assert!(
        passage.contains(expected(&sources[1])),
        "{passage} for {}",
        sources[1]
    );
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_until("document.getElementById('passage-view') === null")
        .await;

    // Extracted again, the file's text is a new version: the old citation says so
    // rather than show another text in its place.
    session.open_settings_tab("knowledge").await;
    session
        .click_by_script("[data-knowledge-file=\"mower.pdf\"] [data-knowledge-reparse]")
        .await;
    wait_stage(&session, "mower.pdf", "ready").await;
    session.close_settings().await;
    session
        .click_by_script(&format!(
            ".message--assistant [data-source-number=\"{pdf_number}\"]"
        ))
        .await;
    session
        .wait_until("document.querySelector('#passage-view')?.textContent.includes('changed after this answer')")
        .await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_until("document.getElementById('passage-view') === null")
        .await;

    // Stopped from its chip, the collection is no longer asked.
    session
        .click_by_script(&format!(
            "[data-collection-chip=\"{garden}\"] .attachment-chip__remove"
        ))
        .await;
    session
        .wait_until("document.querySelector('[data-collection-chip]') === null")
        .await;
    fixture.enqueue(Reply::text("No idea."));
    send(&session, "When should I prune the roses?").await;
    session
        .wait_until("document.querySelectorAll('.message--assistant').length === 2")
        .await;
    last_status(&session, "done").await;
    assert_eq!(chat_bodies(&fixture).len(), 2);
    let request = chat_bodies(&fixture).last().cloned().unwrap();
    assert!(
        !system_of(&request).contains("outward-facing bud"),
        "{request}"
    );

    // The sources at phone width, in the dark theme.
    session.resize(360, 780).await;
    hearth_e2e::chat::open_latest_on_phone(&session, "dark").await;
    session
        .wait_until("document.querySelectorAll('.reply-sources__passage').length >= 2")
        .await;
    session
        .js(
            "document.querySelector('.reply-sources').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await;
    session.screenshot("knowledge-reply-phone-dark").await;

    // The worker saved the index it built (the passages' text is in it); deleting the
    // collection deletes that too.
    session.resize(1280, 900).await;
    let saved = "return (async () => {
        const root = await navigator.storage.getDirectory();
        let dir; try { dir = await root.getDirectoryHandle('search'); } catch (e) { return []; }
        const names = []; for await (const name of dir.keys()) names.push(name);
        return names.filter((n) => n.startsWith('knowledge-')).sort();
      })()";
    let mut found = json!([]);
    for _ in 0..50 {
        found = session.js(saved, vec![]).await;
        if found == json!(["knowledge-turn.idx"]) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(found, json!(["knowledge-turn.idx"]));
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
        .wait_until("document.getElementById('knowledge-empty') !== null")
        .await;
    assert_eq!(
        session.js(saved, vec![]).await,
        json!([]),
        "the saved index went with it"
    );

    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}

/// Writes the library record and files into the browser's storage as a page closed
/// mid-work would have left them.

#[tokio::test]
async fn a_reload_resumes_or_marks_interrupted_files_and_a_check_cleans_up() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let folder = "knowledge/c1";
    let file = |id: &str, name: &str, stage: &str, source: &str, content: &str| {
        json!({"id": id, "name": name, "kind": "markdown", "size": 40, "stage": stage,
               "sourcePath": source, "contentPath": content, "addedAt": 1.0})
    };
    let library = json!({"collections": [{"id": "c1", "name": "Notes", "files": [
        // Its original was stored when the page closed: parsing resumes.
        file("half", "half.md", "parse", &format!("{folder}/half/source"), ""),
        // Its upload never finished: marked, to be added again.
        file("early", "early.md", "upload", "", ""),
        // Ready, but its text will be found missing by the check: extracted again.
        json!({"id": "doc", "name": "doc.html", "kind": "html", "size": 60, "stage": "ready",
               "passages": 1, "sourcePath": format!("{folder}/doc/source"),
               "contentPath": format!("{folder}/doc/content"), "addedAt": 1.0}),
    ]}]});
    let files = json!([
        [
            format!("{folder}/half/source"),
            "# Half\n\nThe kettle descales with vinegar."
        ],
        [
            format!("{folder}/doc/source"),
            "<!doctype html><html><body><p>Bread rises overnight.</p><script>bad()</script></body></html>"
        ],
        [format!("{folder}/stray/source"), "left behind"],
    ]);
    seed(&session, library, files).await;
    session.goto("/").await;
    // `/knowledge` opens Settings › Knowledge, by keyboard alone.
    type_in_composer(&session, "/knowle").await;
    session
        .wait_until("document.getElementById('composer-input').getAttribute('aria-activedescendant') !== null")
        .await;
    session.press(&[fantoccini::key::Key::Enter]).await;
    session.wait_for("#knowledge-panel").await;
    wait_stage(&session, "half.md", "ready").await;
    wait_stage(&session, "early.md", "failed").await;
    assert!(
        state_text(&session, "early.md")
            .await
            .contains("interrupted when its page closed"),
    );
    // A failed upload cannot be retried from what is stored: no Retry.
    assert_eq!(
        session
            .js(
                "return document.querySelector('[data-knowledge-file=\"early.md\"] [data-knowledge-retry]') === null",
                vec![]
            )
            .await,
        json!(true)
    );

    // Check files: the stray file goes; the lost text is extracted again (HTML without
    // its script).
    session
        .click_by_script("[data-collection=\"c1\"] [data-knowledge-check]")
        .await;
    session
        .wait_for_toast("1 stray files deleted, 0 originals gone (their text is kept), 1 texts being extracted again")
        .await;
    wait_stage(&session, "doc.html", "ready").await;
    let files = stored(&session).await;
    assert!(!files.iter().any(|p| p.contains("/stray/")), "{files:?}");
    assert!(
        files.contains(&format!("{folder}/doc/content")),
        "{files:?}"
    );
    let text = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             navigator.storage.getDirectory()
               .then((r) => r.getDirectoryHandle('knowledge'))
               .then((d) => d.getDirectoryHandle('c1')).then((d) => d.getDirectoryHandle('doc'))
               .then((d) => d.getFileHandle('content')).then((h) => h.getFile()).then((f) => f.text())
               .then(done, (e) => done(String(e)));",
            vec![],
        )
        .await;
    assert!(
        text.as_str().unwrap().contains("Bread rises overnight."),
        "{text}"
    );
    assert!(!text.as_str().unwrap().contains("bad()"), "{text}");
    // Checked again, everything matches.
    session
        .click_by_script("[data-collection=\"c1\"] [data-knowledge-check]")
        .await;
    session
        .wait_for_toast("Every file is where its record says.")
        .await;

    // A PDF cancelled while the edge reads it leaves nothing stored.
    let dir = scratch("cancel");
    let report = dir.join("report.pdf");
    std::fs::write(&report, pdf::text_pdf(&["Some words."])).unwrap();
    session.choose_files("#knowledge-add-c1", &[&report]).await;
    wait_stage(&session, "report.pdf", "parse").await;
    session
        .click_by_script("[data-knowledge-file=\"report.pdf\"] [data-knowledge-cancel]")
        .await;
    session
        .wait_until("document.querySelector('[data-knowledge-file=\"report.pdf\"]') === null")
        .await;
    let files = stored(&session).await;
    assert_eq!(
        files.iter().filter(|p| p.contains("/c1/")).count(),
        3,
        "only half's source, doc's source and content: {files:?}"
    );
    // Still gone once the edge's answer would have come.
    tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
    assert_eq!(stage_of(&session, "report.pdf").await, Value::Null);

    // Edit: an empty name is refused under the field; a new name and colour are kept.
    session
        .click_by_script("[data-collection=\"c1\"] [data-knowledge-edit]")
        .await;
    let set = "const el = document.getElementById(arguments[0]);
               el.value = arguments[1];
               el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}));";
    session
        .js(set, vec![json!("knowledge-edit-c1-name"), json!("")])
        .await;
    session.click_by_script("[data-knowledge-save]").await;
    session
        .wait_until("document.querySelector('[data-knowledge-edit-form] .field__error')?.textContent.includes('needs a name')")
        .await;
    session
        .js(
            set,
            vec![json!("knowledge-edit-c1-name"), json!("Kitchen notes")],
        )
        .await;
    session
        .js(set, vec![json!("knowledge-edit-c1-colour"), json!("green")])
        .await;
    session.click_by_script("[data-knowledge-save]").await;
    session
        .wait_until("document.querySelector('[data-collection=\"c1\"] .knowledge-card__name')?.textContent === 'Kitchen notes' && document.querySelector('[data-collection=\"c1\"] .colour-dot--green') !== null && document.querySelector('[data-knowledge-edit-form]') === null")
        .await;

    // Deleting the collection asks first, then leaves nothing.
    session
        .click_by_script("[data-collection=\"c1\"] [data-knowledge-delete]")
        .await;
    session
        .click_by_script("[data-knowledge-delete-confirm=\"c1\"]")
        .await;
    session
        .wait_until("document.getElementById('knowledge-empty') !== null")
        .await;
    assert!(stored(&session).await.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}
