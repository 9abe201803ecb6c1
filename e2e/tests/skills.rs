//! Skills in the real build, in Chromium, against the provider fixture: a built-in skill
//! installed from the catalogue reaches the request's system prompt and is named on the
//! reply; an edited built-in and a custom skill reach it too, and a skill turned off
//! never does; with auto-selection the model chooses through `select_text_skills` and
//! only its (valid) choice is applied; a scripted `SKILL.md` is refused by its rule and a
//! text one imported; a catalogue whose request fails shows the error (or the saved copy,
//! or the English fallback), never an empty list; the catalogue follows the language.

use hearth_e2e::chat;
use hearth_e2e::chat::system_of;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::{AppSession, paths};
use serde_json::{Value, json};

/// The names of the tools a chat request offered.
fn tools_of(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// In Settings › Skills (open), installs the catalogue's `id` and waits for its card.
async fn install(session: &AppSession, id: &str) {
    session
        .click_by_script(&format!(
            "#skills-catalog [data-catalog-skill='{id}'] [data-skill-install]"
        ))
        .await;
    session
        .wait_for(&format!("#skills-installed [data-skill='{id}']"))
        .await;
}

/// Whether the installed skill `id`'s switch is on.
async fn is_active(session: &AppSession, id: &str) -> bool {
    session
        .js(
            "return document.querySelector(`[data-skill='${arguments[0]}'] [data-skill-active]`).checked",
            vec![json!(id)],
        )
        .await
        .as_bool()
        .unwrap_or(false)
}

/// The last message's skills line: its text and the ids it names.
async fn applied_skills(session: &AppSession) -> (String, String) {
    session
        .wait_until("!![...document.querySelectorAll('.message')].at(-1)?.querySelector('.message__skills')")
        .await;
    let found = session
        .js(
            "const p = [...document.querySelectorAll('.message')].at(-1).querySelector('.message__skills');
             return [p.textContent, p.dataset.skills];",
            vec![],
        )
        .await;
    (
        found[0].as_str().unwrap_or_default().to_string(),
        found[1].as_str().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn installed_edited_and_custom_skills_shape_the_request_and_an_inactive_one_never_does() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;

    // No skills: the request and the reply say nothing about skills.
    chat::ask(&session, "Hello there").await;
    let first = chat::chat_bodies(&fixture);
    assert!(!system_of(&first[0]).contains("skill"), "{first:?}");
    assert!(
        session
            .js("return !document.querySelector('.message__skills')", vec![])
            .await
            .as_bool()
            .unwrap()
    );

    session.open_settings_tab("skills").await;
    session.wait_for("#skills-installed-empty").await;
    install(&session, "code-review").await;
    assert!(
        is_active(&session, "code-review").await,
        "installing turns it on"
    );
    assert_eq!(
        session.text_of("#skills-active-count").await,
        "1 of 20 active"
    );
    session
        .wait_for("[data-catalog-skill='code-review'] [data-catalog-installed]")
        .await;
    session.screenshot("skills-settings").await;
    session.close_settings().await;

    chat::ask(&session, "Please review fn add(a: i32) -> i32 { a - 1 }").await;
    let requests = chat::chat_bodies(&fixture);
    let system = system_of(requests.last().unwrap());
    assert!(
        system.contains("<skill id=\"code-review\" title=\"Code review\">\n# Code review"),
        "{system}"
    );
    let (applied, _) = applied_skills(&session).await;
    assert!(applied.contains("Skills applied: Code review"), "{applied}");
    assert!(!applied.contains("chosen by the model"));

    // Edit the built-in: the edit is what the next request carries.
    session.open_settings_tab("skills").await;
    session
        .click_by_script("[data-skill='code-review'] [data-skill-edit]")
        .await;
    session
        .fill(
            "#skill-editor-content",
            "Review code like a careful pirate: flag every off-by-one.",
        )
        .await;
    session.click_by_script("#skill-editor-save").await;
    session
        .wait_until("document.querySelector(\"[data-skill='code-review'] [data-skill-badge]\")?.textContent === 'Edited'")
        .await;

    // A refused save says which rule and changes nothing.
    session.click_by_script("#skills-new").await;
    session.fill("#skill-editor-title", "Haiku mode").await;
    session.click_by_script("#skill-editor-save").await;
    session
        .wait_until(
            "document.getElementById('skill-editor-error').textContent.includes('Write the skill')",
        )
        .await;
    session
        .fill(
            "#skill-editor-content",
            "Answer only in haiku: three lines, five, seven and five syllables.",
        )
        .await;
    session.click_by_script("#skill-editor-save").await;
    session
        .wait_for("#skills-installed [data-skill='custom-haiku-mode']")
        .await;
    assert!(is_active(&session, "custom-haiku-mode").await);
    session.screenshot("skills-custom").await;
    session.close_settings().await;

    chat::ask(&session, "Check my loop").await;
    let system = system_of(chat::chat_bodies(&fixture).last().unwrap());
    assert!(system.contains("careful pirate"), "{system}");
    assert!(system.contains("<skill id=\"custom-haiku-mode\" title=\"Haiku mode\">"));
    assert!(
        !system.contains("# Code review"),
        "the edit replaced the text"
    );

    // Restore the original; turn the custom one off: it never reaches a request.
    session.open_settings_tab("skills").await;
    session
        .click_by_script("[data-skill='code-review'] [data-skill-reset]")
        .await;
    session
        .wait_until("!document.querySelector(\"[data-skill='code-review'] [data-skill-badge]\")")
        .await;
    session
        .click_by_script("[data-skill='custom-haiku-mode'] [data-skill-active]")
        .await;
    session
        .wait_until(
            "document.getElementById('skills-active-count').textContent === '1 of 20 active'",
        )
        .await;
    session.close_settings().await;

    // Kept across a reload.
    session.reload_app().await;
    chat::choose_model(&session, "fixture-small").await;
    chat::ask(&session, "One more").await;
    let system = system_of(chat::chat_bodies(&fixture).last().unwrap());
    assert!(system.contains("# Code review"), "{system}");
    assert!(!system.contains("careful pirate"));
    assert!(
        !system.contains("haiku"),
        "an inactive skill never reaches a request"
    );
    session.finish().await;
}

#[tokio::test]
async fn with_auto_selection_the_model_chooses_among_the_active_skills() {
    let fixture = ProviderFixture::start().await;
    fixture.set_tool_models(true);
    let session = chat::ready(&fixture).await;
    session.open_settings_tab("skills").await;
    for id in ["proofread", "translate", "code-review"] {
        install(&session, id).await;
    }
    session.click_by_script("#skills-auto").await;
    session
        .wait_until("document.getElementById('skills-auto').checked")
        .await;
    session.close_settings().await;

    // The choice names one active skill, one unknown id and one skill that is not
    // installed: only the active one applies.
    fixture.enqueue(Reply::text("").tool_call(
        "select_text_skills",
        r#"{"skill_ids": ["translate", "made-up", "brainstorm"]}"#,
    ));
    fixture.enqueue(Reply::text("Bonjour tout le monde."));
    chat::ask(&session, "Translate 'hello everyone' into French").await;

    let requests = chat::chat_bodies(&fixture);
    assert_eq!(requests.len(), 2, "one choice, one answer");
    assert_eq!(tools_of(&requests[0]), ["select_text_skills"]);
    let choice = system_of(&requests[0]);
    for id in ["proofread", "translate", "code-review"] {
        assert!(choice.contains(&format!("- {id}: ")), "{choice}");
    }
    let enum_ids = &requests[0]["tools"][0]["function"]["parameters"]["properties"]["skill_ids"]["items"]
        ["enum"];
    assert_eq!(enum_ids, &json!(["proofread", "translate", "code-review"]));
    let system = system_of(&requests[1]);
    assert!(system.contains("<skill id=\"translate\""), "{system}");
    assert!(!system.contains("<skill id=\"proofread\""));
    assert!(!system.contains("brainstorm"));
    assert!(!tools_of(&requests[1]).contains(&"select_text_skills".to_string()));
    let (applied, ids) = applied_skills(&session).await;
    assert!(applied.contains("(chosen by the model)"), "{applied}");
    assert_eq!(ids, "translate");

    // A model that chooses nothing: the answer comes without skills.
    fixture.enqueue(Reply::text("").tool_call("select_text_skills", r#"{"skill_ids": []}"#));
    fixture.enqueue(Reply::text("Sure."));
    chat::ask(&session, "What time is it?").await;
    let requests = chat::chat_bodies(&fixture);
    assert_eq!(requests.len(), 4);
    assert!(!system_of(&requests[3]).contains("<skill"));
    session.finish().await;
}

#[tokio::test]
async fn skill_files_are_imported_as_text_and_scripted_ones_refused_by_their_rule() {
    let session = AppSession::open(1280, 900).await;
    session.open_settings_tab("skills").await;
    let dir = paths::scratch_dir("skills-import");

    let scripted = dir.join("fill-form.md");
    std::fs::write(
        &scripted,
        "---\nname: fill-form\ndescription: Fills PDF forms.\n---\n\nRun `python scripts/fill.py form.pdf` first.\n",
    )
    .unwrap();
    session.choose_files("#skills-import", &[&scripted]).await;
    session
        .wait_for_toast("instructions run scripts/fill.py")
        .await;

    let tools = dir.join("git-helper.md");
    std::fs::write(
        &tools,
        "---\nname: git-helper\ndescription: Uses git.\nallowed-tools: Bash(git:*)\n---\n\nCommit often.\n",
    )
    .unwrap();
    session.choose_files("#skills-import", &[&tools]).await;
    session
        .wait_for_toast("Refused: needs external tools")
        .await;
    session.wait_for("#skills-installed-empty").await;

    // A folder with a reference and an unnamed script, zipped the usual way (deflated).
    let zip_path = dir.join("meeting-minutes.zip");
    {
        use std::io::Write;
        let file = std::fs::File::create(&zip_path).unwrap();
        let mut zip = zip::ZipWriter::new(file);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let entries: [(&str, &str); 3] = [
            (
                "meeting-minutes/SKILL.md",
                "---\nname: meeting-minutes\ndescription: >\n  Turns raw notes into minutes.\nmetadata:\n  title: Meeting minutes\n  category: writing\n---\n\n# Meeting minutes\n\nList decisions first, then actions with owners.\n",
            ),
            (
                "meeting-minutes/references/template.md",
                "Decisions / Actions / Open questions",
            ),
            ("meeting-minutes/scripts/export.py", "print('export')"),
        ];
        for (name, text) in entries {
            zip.start_file(name, options).unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap();
    }
    session.choose_files("#skills-import", &[&zip_path]).await;
    session
        .wait_for_toast("Meeting minutes imported and turned on")
        .await;
    session.wait_for_toast("Not kept: scripts/export.py").await;
    let card = session
        .text_of("#skills-installed [data-skill='meeting-minutes']")
        .await;
    assert!(card.contains("Imported"), "{card}");
    assert!(is_active(&session, "meeting-minutes").await);
    session
        .click_by_script("[data-skill='meeting-minutes'] [data-skill-edit]")
        .await;
    let content = session
        .js(
            "return document.getElementById('skill-editor-content').value",
            vec![],
        )
        .await;
    let content = content.as_str().unwrap();
    assert!(
        content.contains("## Reference: references/template.md"),
        "{content}"
    );
    assert!(!content.contains("print('export')"));
    session.finish().await;
}

async fn catalogue_state(session: &AppSession) -> String {
    session.text_of("#skills-catalog-state").await
}

async fn catalogue_count(session: &AppSession) -> u64 {
    session
        .js(
            "return document.querySelectorAll('#skills-catalog [data-catalog-skill]').length",
            vec![],
        )
        .await
        .as_u64()
        .unwrap()
}

#[tokio::test]
async fn a_catalogue_that_cannot_be_fetched_says_so_and_never_shows_an_empty_list() {
    let session = AppSession::open(1280, 900).await;
    session
        .cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": hearth_e2e::catalogue::FAILING_CATALOGUES }),
        )
        .await;
    session
        .js(
            "localStorage.setItem('fail-skills', '/data/skills/')",
            vec![],
        )
        .await;
    session.reload_app().await;

    // Nothing fetched, nothing saved: the error with Try again, not an empty catalogue.
    session.open_settings_tab("skills").await;
    let state = catalogue_state(&session).await;
    assert!(
        state.contains("Catalogue unavailable (HTTP 503)"),
        "{state}"
    );
    assert_eq!(catalogue_count(&session).await, 0);
    session.screenshot("skills-catalogue-failed").await;

    // Back: the fresh catalogue, no state line; it is saved as it arrives.
    session
        .js("localStorage.removeItem('fail-skills')", vec![])
        .await;
    session.click_by_script("#skills-catalog-retry").await;
    session
        .wait_until("!document.getElementById('skills-catalog-state') && document.querySelectorAll('#skills-catalog [data-catalog-skill]').length >= 30")
        .await;
    let fresh = catalogue_count(&session).await;

    // Failing again, the saved copy is shown and says so.
    session
        .js(
            "localStorage.setItem('fail-skills', '/data/skills/')",
            vec![],
        )
        .await;
    session.close_settings().await;
    session.open_settings_tab("skills").await;
    session
        .wait_until("document.getElementById('skills-catalog-state')?.textContent.includes('showing the copy from')")
        .await;
    assert_eq!(catalogue_count(&session).await, fresh);

    // In Japanese, with only the Japanese catalogue failing and nothing saved for it: the
    // English one, said to be a fallback; the sentence is Japanese.
    session
        .js(
            "localStorage.setItem('fail-skills', '/data/skills/ja/')",
            vec![],
        )
        .await;
    session.open_settings_tab("general").await;
    session
        .wait_for("#settings-language")
        .await
        .select_by_value("ja")
        .await
        .expect("choose Japanese");
    session
        .wait_until("document.documentElement.lang === 'ja'")
        .await;
    session.open_settings_tab("skills").await;
    session
        .wait_until("document.getElementById('skills-catalog-state')?.textContent.includes('英語のカタログを表示しています')")
        .await;
    assert!(
        session
            .text_of("[data-catalog-skill='code-review']")
            .await
            .contains("Code review")
    );

    // And with the Japanese catalogue reachable, its own titles.
    session
        .js("localStorage.removeItem('fail-skills')", vec![])
        .await;
    session.click_by_script("#skills-catalog-retry").await;
    session
        .wait_until("document.querySelector(\"[data-catalog-skill='code-review']\")?.textContent.includes('コードレビュー')")
        .await;
    install(&session, "translate").await;
    let card = session.text_of("[data-skill='translate']").await;
    assert!(card.contains("翻訳"), "{card}");
    session.screenshot("skills-settings-ja").await;
    session.finish().await;
}

#[tokio::test]
async fn skills_travel_in_the_export_and_come_back_with_an_import() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    chat::ask(&session, "Hello").await;
    session.open_settings_tab("skills").await;
    install(&session, "summarise").await;
    session.click_by_script("#skills-new").await;
    session.fill("#skill-editor-title", "House style").await;
    session
        .fill("#skill-editor-content", "Write dates as 3 December 2026.")
        .await;
    session.click_by_script("#skill-editor-save").await;
    session
        .wait_for("#skills-installed [data-skill='custom-house-style']")
        .await;

    let (downloads, file) = hearth_e2e::export::export_all(&session, "skills-export").await;
    let exported = hearth_e2e::export::records(&file);
    let ids: Vec<&str> = exported["skills"]["installed"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids, ["summarise", "custom-house-style"]);
    assert_eq!(
        exported["skills"]["active"],
        json!(["summarise", "custom-house-style"])
    );

    // Both removed here, then the export imported: both back, and on.
    session.open_settings_tab("skills").await;
    for id in ["summarise", "custom-house-style"] {
        session
            .click_by_script(&format!("[data-skill='{id}'] [data-skill-remove]"))
            .await;
    }
    session.wait_for("#skills-installed-empty").await;
    hearth_e2e::export::import_all(&session, &file).await;
    session.open_settings_tab("skills").await;
    session
        .wait_for("#skills-installed [data-skill='custom-house-style']")
        .await;
    assert!(is_active(&session, "summarise").await);
    assert!(is_active(&session, "custom-house-style").await);
    let _ = std::fs::remove_dir_all(&downloads);
    session.finish().await;
}

#[tokio::test]
async fn a_damaged_library_is_said_and_never_written_over() {
    let session = AppSession::open(1280, 900).await;
    // The library record as another version (or a damaged disk) left it: not readable.
    hearth_e2e::export::put_settings_record(&session, "skills", "{\"installed\": 7").await;
    session.reload_app().await;
    session.open_settings_tab("skills").await;
    session.wait_for_toast("Skills unreadable").await;
    // A change is refused rather than written over the record.
    session
        .click_by_script("#skills-catalog [data-catalog-skill='proofread'] [data-skill-install]")
        .await;
    // Done when the definition was fetched and the button is no longer busy.
    session
        .wait_until("performance.getEntriesByType('resource').some((e) => e.name.endsWith('/data/skills/en/proofread.md'))
                     && document.querySelector(\"[data-catalog-skill='proofread'] [data-skill-install]\")?.getAttribute('aria-busy') === 'false'")
        .await;
    let stored = hearth_e2e::export::settings_record(&session, "skills").await;
    assert_eq!(
        stored,
        json!("{\"installed\": 7"),
        "the record is untouched"
    );
    assert!(
        session
            .js(
                "return !document.querySelector(\"#skills-installed [data-skill]\")",
                vec![]
            )
            .await
            .as_bool()
            .unwrap()
    );
    session.finish().await;
}
