//! Prompt templates and the composer's `/` menu in the real build, in Chromium, against
//! the provider fixture: a template made in Settings (its mistakes said by line and by
//! rule) is found by `/` and chosen by keyboard; its form checks every typed variable,
//! and the filled text is what the provider receives. The menu runs the composer's own
//! commands, turns a skill on and off, closes with Escape, and a slash text nothing
//! matches is sent as typed. Versions come back with Restore, a deleted template with
//! Undo.

use fantoccini::key::Key;
use hearth_e2e::AppSession;
use hearth_e2e::chat::{self, last_status};
use hearth_e2e::chat::{composer_text, type_in_composer};
use hearth_e2e::process::Guard;
use hearth_e2e::provider_fixture::ProviderFixture;
use hearth_e2e::tool_peers::{
    fill_mcp_install, install, mcp_everything, mcp_revision_server, mcp_url, peer_stats,
};
use serde_json::{Value, json};

/// The commands the menu lists, in order.
async fn listed(session: &AppSession) -> Vec<String> {
    session
        .js(
            "return [...document.querySelectorAll('#slash-menu [role=option]')].map((o) => o.dataset.slashCommand)",
            vec![],
        )
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// The option the composer points at (`aria-activedescendant`), by its command.
async fn active_command(session: &AppSession) -> Value {
    session
        .js(
            "const id = document.getElementById('composer-input').getAttribute('aria-activedescendant');
             return id ? document.getElementById(id)?.dataset.slashCommand ?? null : null;",
            vec![],
        )
        .await
}

const TRANSLATE: &str = "Translate into {{language:choice:French|German}}:\n\n{{text:paragraph}}\n\nBy {{due:date}}, in {{words:number}} words at most.";

#[tokio::test]
async fn a_template_is_found_by_slash_filled_by_keyboard_and_its_text_is_what_is_sent() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    session.open_settings_tab("templates").await;
    session.wait_for("#templates-empty").await;
    session.click_by_script("#templates-new").await;
    session
        .fill("#template-editor-title", "Translate text")
        .await;
    // The command follows the title until one is written.
    session
        .wait_until("document.getElementById('template-editor-command').value === 'translate-text'")
        .await;

    // A mistake is said as it is typed, by line; Save refuses it and keeps nothing.
    session
        .fill("#template-editor-body", "Dear team,\nPlease {{oops")
        .await;
    session
        .wait_until("document.getElementById('template-editor-read').textContent.includes('Line 2: a variable is opened but not closed')")
        .await;
    session.click_by_script("#template-editor-save").await;
    session
        .wait_until(
            "document.getElementById('template-editor-error').textContent.includes('Line 2')",
        )
        .await;
    // The composer's own commands cannot be taken.
    session.fill("#template-editor-body", TRANSLATE).await;
    session.fill("#template-editor-command", "/New").await;
    session.click_by_script("#template-editor-save").await;
    session
        .wait_until("document.getElementById('template-editor-error').textContent.includes(\"/new is one of the message box's own commands\")")
        .await;
    assert_eq!(
        session.text_of("#template-editor-read").await,
        "Variables: language (choice), text (paragraph), due (date), words (number)"
    );
    session.fill("#template-editor-command", "translate").await;
    session.click_by_script("#template-editor-save").await;
    session
        .wait_for("#templates-list [data-template] [data-template-command]")
        .await;
    assert_eq!(
        session.text_of("[data-template-command]").await,
        "/translate"
    );
    session.screenshot("templates-settings").await;
    session.close_settings().await;

    // `/tra` lists it first (then the built-in translator assistant, once its catalogue
    // is here); the text area points at it; Enter opens its form.
    type_in_composer(&session, "/tra").await;
    session
        .wait_for("#slash-menu [data-slash-command='translator']")
        .await;
    assert_eq!(listed(&session).await, vec!["translate", "translator"]);
    assert_eq!(active_command(&session).await, json!("translate"));
    assert_eq!(
        session
            .js(
                "return document.getElementById('composer-input').getAttribute('aria-controls')",
                vec![]
            )
            .await,
        json!("slash-menu")
    );
    session.screenshot("templates-slash-menu").await;
    session.press(&[Key::Enter]).await;
    session.wait_for("#template-form").await;
    session
        .wait_until("document.activeElement?.id === 'template-field-0'")
        .await;
    assert_eq!(composer_text(&session).await, "", "nothing was sent");
    assert!(chat::user_texts(&fixture).is_empty());

    // Insert with nothing filled in: every field says why, focus goes to the first.
    session.click_by_script("#template-form-insert").await;
    session
        .wait_until("[...document.querySelectorAll('#template-form .field__error')].filter((e) => e.textContent === 'Required.').length === 4")
        .await;
    assert_eq!(session.focused().await, "template-field-0");

    // Filled by keyboard (the date through its value: its typed form is the locale's).
    session
        .wait_for("#template-field-0")
        .await
        .select_by_value("German")
        .await
        .expect("choose German");
    session
        .fill("#template-field-1", "Good morning, everyone.")
        .await;
    session
        .js(
            "const d = document.getElementById('template-field-2');
             d.value = '2026-12-24'; d.dispatchEvent(new Event('input', {bubbles: true}));",
            vec![],
        )
        .await;
    session.fill("#template-field-3", "300").await;
    // Each field was checked again as it changed: nothing is marked now.
    session
        .wait_until("[...document.querySelectorAll('#template-form .field__error')].every((e) => e.textContent === '')")
        .await;
    session.screenshot("templates-form").await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("!document.getElementById('template-form')")
        .await;
    let filled =
        "Translate into German:\n\nGood morning, everyone.\n\nBy 2026-12-24, in 300 words at most.";
    assert_eq!(composer_text(&session).await, filled);
    assert_eq!(session.focused().await, "composer-input");
    session.press(&[Key::Enter]).await;
    last_status(&session, "done").await;
    assert_eq!(chat::user_texts(&fixture), vec![filled.to_string()]);
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn the_slash_menu_runs_the_composers_own_commands_and_switches_skills_by_keyboard() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;

    // A slash alone lists the composer's commands, then the assistants (once their
    // catalogue is here); arrows move and wrap.
    type_in_composer(&session, "/").await;
    session
        .wait_for("#slash-menu [data-slash-command='interview-coach']")
        .await;
    assert_eq!(
        listed(&session).await,
        vec![
            "new",
            "temporary",
            "clear",
            "search",
            "templates",
            "skills",
            "knowledge",
            "writing-partner",
            "code-reviewer",
            "data-analyst",
            "translator",
            "study-tutor",
            "planner",
            "email-helper",
            "research-reader",
            "brainstormer",
            "interview-coach"
        ]
    );
    assert_eq!(active_command(&session).await, json!("new"));
    session.press(&[Key::Down]).await;
    assert_eq!(active_command(&session).await, json!("temporary"));
    session.press(&[Key::Down]).await;
    assert_eq!(active_command(&session).await, json!("clear"));
    session.press(&[Key::Up, Key::Up, Key::Up]).await;
    assert_eq!(active_command(&session).await, json!("interview-coach"));

    // Escape closes it and keeps the text; a slash text nothing matches is sent as typed.
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.getElementById('slash-menu')")
        .await;
    assert_eq!(composer_text(&session).await, "/");
    session
        .wait_for("#composer-input")
        .await
        .send_keys("zzz")
        .await
        .unwrap();
    session.wait_for("#slash-menu-empty").await;
    session.press(&[Key::Enter]).await;
    last_status(&session, "done").await;
    assert_eq!(chat::user_texts(&fixture), vec!["/zzz".to_string()]);
    // A path is not a command.
    type_in_composer(&session, "/usr/bin is").await;
    assert_eq!(
        session
            .js("return !document.getElementById('slash-menu')", vec![])
            .await,
        json!(true)
    );
    session
        .wait_for("#composer-input")
        .await
        .clear()
        .await
        .unwrap();

    // /new leaves the conversation for a new chat.
    type_in_composer(&session, "/new").await;
    session
        .wait_until("document.getElementById('composer-input').getAttribute('aria-activedescendant') !== null")
        .await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("document.querySelectorAll('.message').length === 0")
        .await;
    assert_eq!(composer_text(&session).await, "");

    // /search opens the search palette.
    type_in_composer(&session, "/sea").await;
    session
        .wait_until("document.getElementById('composer-input').getAttribute('aria-activedescendant') !== null")
        .await;
    session.press(&[Key::Tab]).await;
    session
        .wait_until("document.querySelector('.search-palette__input') === document.activeElement")
        .await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog.dialog--search')?.open")
        .await;

    // A skill is listed with its state, and choosing it switches it.
    session.open_settings_tab("skills").await;
    session
        .click_by_script("#skills-catalog [data-catalog-skill='code-review'] [data-skill-install]")
        .await;
    session
        .wait_for("#skills-installed [data-skill='code-review']")
        .await;
    session.close_settings().await;
    type_in_composer(&session, "/code").await;
    session
        .wait_for("#slash-menu [data-slash-command='code-review']")
        .await;
    assert!(
        session
            .text_of("[data-slash-command='code-review']")
            .await
            .contains("Skill · on")
    );
    session.press(&[Key::Enter]).await;
    session.wait_for_toast("“Code review” is off.").await;
    type_in_composer(&session, "/code").await;
    session
        .wait_until("document.querySelector(\"[data-slash-command='code-review']\")?.textContent.includes('Skill · off')")
        .await;
    session.press(&[Key::Escape]).await;
    session
        .wait_for("#composer-input")
        .await
        .clear()
        .await
        .unwrap();
    session.open_settings_tab("skills").await;
    assert_eq!(
        session
            .js("return document.querySelector(\"[data-skill='code-review'] [data-skill-active]\").checked", vec![])
            .await,
        json!(false)
    );
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn earlier_versions_come_back_with_restore_and_a_deleted_template_with_undo() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    session.open_settings_tab("templates").await;
    session.click_by_script("#templates-new").await;
    session.fill("#template-editor-title", "Standup").await;
    session
        .fill("#template-editor-body", "Yesterday: {{done}}")
        .await;
    session.click_by_script("#template-editor-save").await;
    session.wait_for("[data-template]").await;
    for body in ["Done: {{done}}", "Done: {{done}}\nNext: {{next}}"] {
        session
            .click_by_script("[data-template] [data-template-edit]")
            .await;
        session.fill("#template-editor-body", body).await;
        session.click_by_script("#template-editor-save").await;
        session
            .wait_until(&format!(
                "document.querySelector('[data-template] .template-card__body')?.textContent === {}",
                json!(body)
            ))
            .await;
    }
    assert_eq!(
        session.text_of("[data-template-versions]").await,
        "Earlier versions (2)"
    );
    session.click_by_script("[data-template-versions]").await;
    // Newest first: the version at index 0 is the first text.
    session
        .click_by_script("[data-template-version='0'] [data-template-restore]")
        .await;
    session
        .wait_until("document.querySelector('[data-template] .template-card__body')?.textContent === 'Yesterday: {{done}}'")
        .await;
    assert_eq!(
        session.text_of("[data-template-versions]").await,
        "Earlier versions (2)"
    );

    // Deleted, then back with Undo, command and versions included.
    session
        .click_by_script("[data-template] [data-template-delete]")
        .await;
    session.wait_for("#templates-empty").await;
    session.click_by_script(".toast .toast__action").await;
    session.wait_for("[data-template]").await;
    assert_eq!(session.text_of("[data-template-command]").await, "/standup");
    // Kept across a reload.
    session.reload_app().await;
    session.open_settings_tab("templates").await;
    session.wait_for("[data-template]").await;
    assert_eq!(
        session.text_of("[data-template-versions]").await,
        "Earlier versions (2)"
    );
    session.close_settings().await;

    // At phone width in the dark theme, the menu and the form fit above the composer.
    session
        .js("localStorage.setItem('hearth.theme', 'dark')", vec![])
        .await;
    session.resize(390, 844).await;
    session.reload_app().await;
    type_in_composer(&session, "/stand").await;
    session
        .wait_for("#slash-menu [data-slash-command='standup']")
        .await;
    let fits = "(() => { const r = document.querySelector('.slash-menu').getBoundingClientRect();
        return r.left >= 0 && r.right <= innerWidth && r.top >= 0; })()";
    session.wait_until(fits).await;
    session.screenshot("templates-slash-menu-phone-dark").await;
    session.press(&[Key::Enter]).await;
    session.wait_for("#template-form").await;
    session.wait_until(fits).await;
    session.screenshot("templates-form-phone-dark").await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.getElementById('template-form')")
        .await;
    assert_eq!(session.focused().await, "composer-input");
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn templates_travel_in_the_export_versions_included_and_come_back_with_an_import() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    chat::send(&session, "Hello").await;
    last_status(&session, "done").await;
    session.open_settings_tab("templates").await;
    session.click_by_script("#templates-new").await;
    session.fill("#template-editor-title", "Bug report").await;
    session
        .fill("#template-editor-body", "Steps: {{steps:paragraph}}")
        .await;
    session.click_by_script("#template-editor-save").await;
    session.wait_for("[data-template]").await;
    session
        .click_by_script("[data-template] [data-template-edit]")
        .await;
    session
        .fill(
            "#template-editor-body",
            "Steps: {{steps:paragraph}}\nSeen on: {{seen:date}}",
        )
        .await;
    session.click_by_script("#template-editor-save").await;
    session.wait_for("[data-template-versions]").await;

    let (downloads, file) = hearth_e2e::export::export_all(&session, "templates-export").await;
    let exported = hearth_e2e::export::records(&file);
    let template = &exported["templates"]["templates"][0];
    assert_eq!(template["command"], json!("bug-report"));
    assert_eq!(
        template["versions"][0]["body"],
        json!("Steps: {{steps:paragraph}}")
    );

    // Deleted here, then the export imported: back, with its earlier version.
    session.open_settings_tab("templates").await;
    session
        .click_by_script("[data-template] [data-template-delete]")
        .await;
    session.wait_for("#templates-empty").await;
    hearth_e2e::export::import_all(&session, &file).await;
    session.open_settings_tab("templates").await;
    session.wait_for("[data-template]").await;
    assert_eq!(
        session.text_of("[data-template-command]").await,
        "/bug-report"
    );
    assert_eq!(
        session.text_of("[data-template-versions]").await,
        "Earlier versions (1)"
    );
    let _ = std::fs::remove_dir_all(&downloads);
    session.finish().await;
}

/// The command of the menu's option whose command ends with `suffix`, once listed.
async fn command_ending(session: &AppSession, suffix: &str) -> String {
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('#slash-menu [role=option]')].some((o) => o.dataset.slashCommand.endsWith({}))",
            json!(suffix)
        ))
        .await;
    listed(session)
        .await
        .into_iter()
        .find(|c| c.ends_with(suffix))
        .expect("listed")
}

#[tokio::test]
async fn an_mcp_servers_prompts_are_offered_by_slash_with_their_arguments_asked() {
    let everything = mcp_everything();
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    install(&session, "mcp", &mcp_url(&everything), "MCP server").await;
    session.close_settings().await;

    // The server's prompts are listed once asked; one with arguments opens the form.
    type_in_composer(&session, "/args").await;
    let command = command_ending(&session, ":args-prompt").await;
    assert!(
        session
            .text_of(&format!("[data-slash-command='{command}']"))
            .await
            .contains("Arguments Prompt"),
    );
    session
        .fill("#composer-input", &format!("/{command}"))
        .await;
    session
        .wait_until(&format!(
            "document.getElementById('composer-input').getAttribute('aria-activedescendant') !== null && {}",
            "document.querySelector('#slash-menu [role=option]')?.dataset.slashCommand.endsWith(':args-prompt')"
        ))
        .await;
    session.press(&[Key::Enter]).await;
    session.wait_for("#template-form").await;
    assert_eq!(
        session.text_of("label[for='template-field-0']").await,
        "city"
    );
    assert_eq!(
        session.text_of("label[for='template-field-1']").await,
        "state (optional)"
    );
    // What the server says of an argument is its hint, as text.
    assert_eq!(
        session.text_of("#template-field-0-hint").await,
        "Name of the city"
    );
    // Only the required argument must be given.
    session.click_by_script("#template-form-insert").await;
    session.screenshot("templates-mcp-prompt-form").await;
    session
        .wait_until("document.getElementById('template-field-0-error').textContent === 'Required.'")
        .await;
    assert_eq!(session.text_of("#template-field-1-error").await, "");
    session.fill("#template-field-0", "Paris").await;
    session.fill("#template-field-1", "Texas").await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("!document.getElementById('template-form')")
        .await;
    assert_eq!(
        composer_text(&session).await,
        "What's weather in Paris, Texas?"
    );
    assert_eq!(session.focused().await, "composer-input");
    session.press(&[Key::Enter]).await;
    last_status(&session, "done").await;
    assert_eq!(
        chat::user_texts(&fixture),
        vec!["What's weather in Paris, Texas?".to_string()]
    );

    // A prompt the server refuses says why in the form and keeps the values; a text
    // resource in a prompt comes in as text.
    type_in_composer(&session, "/resource").await;
    let command = command_ending(&session, ":resource-prompt").await;
    session
        .fill("#composer-input", &format!("/{command}"))
        .await;
    session
        .wait_until("document.querySelector('#slash-menu [role=option]')?.dataset.slashCommand.endsWith(':resource-prompt')")
        .await;
    session.press(&[Key::Enter]).await;
    session.wait_for("#template-form").await;
    session.fill("#template-field-0", "Nope").await;
    session.fill("#template-field-1", "1").await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("document.getElementById('template-form-failure').textContent.includes('The prompt could not be got')")
        .await;
    assert_eq!(
        session
            .js(
                "return document.getElementById('template-field-1').value",
                vec![]
            )
            .await,
        json!("1")
    );
    // The refused request is the only thing the page logged.
    let logged: Vec<String> = session
        .console_errors()
        .await
        .into_iter()
        .map(|e| e.message)
        .collect();
    assert!(
        logged.len() == 1 && logged[0].contains("/api/mcp/prompts") && logged[0].contains("502"),
        "{logged:?}"
    );
    session.fill("#template-field-0", "Text").await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("!document.getElementById('template-form')")
        .await;
    let text = composer_text(&session).await;
    assert!(
        text.starts_with("This prompt includes the Text resource with id: 1.")
            && text.contains("\n\nResource 1: This is a plaintext resource"),
        "{text}"
    );

    // A prompt without arguments: its form is Insert alone, focused.
    session.fill("#composer-input", "/").await;
    type_in_composer(&session, "simple").await;
    command_ending(&session, ":simple-prompt").await;
    session
        .wait_until("document.querySelector('#slash-menu [role=option]')?.dataset.slashCommand.endsWith(':simple-prompt')")
        .await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("document.activeElement?.id === 'template-form-insert'")
        .await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("document.getElementById('composer-input').value === 'This is a simple prompt without arguments.'")
        .await;
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn an_mcp_resource_chosen_with_at_joins_the_message_as_an_attachment() {
    let everything = mcp_everything();
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;

    // An `@` naming nothing the chat can reach says so, and offers no resource.
    type_in_composer(&session, "Ask @john").await;
    session
        .wait_until("document.getElementById('slash-menu-empty')?.textContent.includes('@john')")
        .await;
    session
        .wait_for("#composer-input")
        .await
        .clear()
        .await
        .unwrap();

    install(&session, "mcp", &mcp_url(&everything), "MCP server").await;
    session.close_settings().await;

    // An address is not a mention; the last word starting with `@` is.
    type_in_composer(&session, "Mail bob@example.com").await;
    assert_eq!(
        session
            .js("return !document.querySelector('.slash-menu')", vec![])
            .await,
        json!(true)
    );
    session.fill("#composer-input", "Summarise @feat").await;
    session
        .wait_for("#slash-menu [data-slash-command='features-md']")
        .await;
    assert_eq!(listed(&session).await, vec!["features-md".to_string()]);
    assert!(
        session
            .text_of("[data-slash-command='features-md']")
            .await
            .starts_with("@features-md features.md")
    );
    assert_eq!(active_command(&session).await, json!("features-md"));
    session.screenshot("templates-mention-menu").await;
    session.press(&[Key::Enter]).await;
    // The `@word` goes, the rest stays, and the resource is a ready attachment.
    hearth_e2e::attach::ready_chips(&session, 1).await;
    assert_eq!(composer_text(&session).await, "Summarise ");
    assert!(
        session
            .text_of(".composer .attachment-chip")
            .await
            .contains("features.md")
    );
    session.press(&[Key::Enter]).await;
    last_status(&session, "done").await;
    let body = chat::chat_bodies(&fixture).pop().expect("a request");
    let sent = body.to_string();
    assert!(
        sent.contains("Everything Server - Features"),
        "the resource's text reaches the model: {sent}"
    );

    // Nothing matching is said; Escape closes the menu and keeps the text.
    type_in_composer(&session, "And @zzz").await;
    session
        .wait_until("document.getElementById('slash-menu-empty')?.textContent.includes('@zzz')")
        .await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('.slash-menu')")
        .await;
    assert_eq!(composer_text(&session).await, "And @zzz");
    session.assert_no_console_errors().await;
    session.finish().await;
}

/// How many `resources/list` requests `peer` has seen.
async fn resource_lists(peer: &Guard) -> u64 {
    peer_stats(peer.port).await["resources/list"]
        .as_u64()
        .unwrap_or(0)
}

/// Types `@` (the menu opens with its `options` resources) and then ` and` (typing on
/// past the mention closes it).
async fn open_then_close_mentions(session: &AppSession, options: usize) {
    type_in_composer(session, "@").await;
    session
        .wait_until(&format!(
            "document.querySelectorAll('#slash-menu [data-slash-kind=resource]').length === {options}"
        ))
        .await;
    type_in_composer(session, " and").await;
    session
        .wait_until("!document.querySelector('.slash-menu')")
        .await;
}

/// Waits (five seconds at most) until `peer` has seen `count` `resources/list` requests;
/// how many it saw.
async fn resource_lists_reach(peer: &Guard, count: u64) -> u64 {
    let mut seen = 0;
    for _ in 0..50 {
        seen = resource_lists(peer).await;
        if seen == count {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    seen
}

#[tokio::test]
async fn resource_lists_are_kept_as_long_as_the_server_says_and_an_image_resource_attaches_as_an_image()
 {
    // Two servers of the stateless revision: one says its lists keep ten minutes, the
    // other that they are stale at once.
    let kept = mcp_revision_server(&["--only", "stateless", "--list-ttl-ms", "600000"]);
    let stale = mcp_revision_server(&["--only", "stateless", "--list-ttl-ms", "0"]);
    let fixture = ProviderFixture::start().await;
    fixture.set_listing_fields(
        "fixture-small",
        json!({"architecture": {"input_modalities": ["text", "image"]}}),
    );
    let session = chat::ready(&fixture).await;
    install(&session, "mcp", &mcp_url(&kept), "MCP server").await;
    install(&session, "mcp", &mcp_url(&stale), "MCP server").await;
    session
        .wait_until("document.querySelectorAll('#plugins-installed .plugin-card').length === 2")
        .await;
    session.close_settings().await;

    // The menu opens: both servers are asked, each lists its two resources; typing on
    // past the mention closes the menu ...
    open_then_close_mentions(&session, 4).await;
    assert_eq!(
        (resource_lists(&kept).await, resource_lists(&stale).await),
        (1, 1)
    );

    // ... and a new `@` opens it again: the list still fresh is shown as kept; the stale
    // one is shown while it is asked again.
    type_in_composer(&session, " @").await;
    session
        .wait_until(
            "document.querySelectorAll('#slash-menu [data-slash-kind=resource]').length === 4",
        )
        .await;
    assert_eq!(
        resource_lists_reach(&stale, 2).await,
        2,
        "the stale list is asked again"
    );
    assert_eq!(resource_lists(&kept).await, 1, "the fresh list is not");

    // The image resource joins the message as an image: a thumbnail, then an image part.
    session.fill("#composer-input", "What is this? @logo").await;
    session
        .wait_until(
            "document.querySelector('#slash-menu [role=option]')?.dataset.slashCommand === 'logo'",
        )
        .await;
    session.press(&[Key::Enter]).await;
    hearth_e2e::attach::ready_chips(&session, 1).await;
    session
        .wait_until(
            "(() => { const img = document.querySelector('.composer .attachment-chip__thumb');
                      return img && img.complete && img.naturalWidth === 48; })()",
        )
        .await;
    session.press(&[Key::Enter]).await;
    last_status(&session, "done").await;
    let sent = chat::chat_bodies(&fixture)
        .pop()
        .expect("a request")
        .to_string();
    assert_eq!(
        sent.matches("data:image/png;base64,").count(),
        1,
        "the resource reaches the model as one image: {sent}"
    );
    session.assert_no_console_errors().await;
    session.finish().await;
}

/// Installs the MCP server at `url` with `token` as its credential (so its card can
/// forget it); waits until `count` servers are installed.
async fn install_with_token(session: &AppSession, url: &str, token: &str, count: usize) {
    fill_mcp_install(session, url).await;
    session.fill("#plugin-install-token", token).await;
    session.click_by_script("#plugin-install-submit").await;
    session
        .wait_until(&format!(
            "document.querySelectorAll('#plugins-installed .plugin-card .plugin-credential').length === {count}"
        ))
        .await;
}

#[tokio::test]
async fn a_list_given_for_one_user_is_asked_again_once_the_credential_is_forgotten() {
    // Both lists keep ten minutes; one is for the user it was listed for, one for anyone.
    let ttl = [
        "--only",
        "stateless",
        "--list-ttl-ms",
        "600000",
        "--cache-scope",
    ];
    let private = mcp_revision_server(&[&ttl[..], &["private"]].concat());
    let public = mcp_revision_server(&[&ttl[..], &["public"]].concat());
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    install_with_token(&session, &mcp_url(&private), "token-of-ana", 1).await;
    install_with_token(&session, &mcp_url(&public), "token-of-ana", 2).await;
    session.close_settings().await;

    open_then_close_mentions(&session, 4).await;
    assert_eq!(
        (
            resource_lists(&private).await,
            resource_lists(&public).await
        ),
        (1, 1)
    );

    // Both credentials are forgotten (signed out, in effect).
    session.open_settings_tab("tools").await;
    session
        .js(
            "document.querySelectorAll('#plugins-installed .plugin-credential button[type=button]')
               .forEach((forget) => forget.click())",
            vec![],
        )
        .await;
    session
        .wait_until(
            "!document.querySelector('#plugins-installed .plugin-credential button[type=button]')",
        )
        .await;
    session.close_settings().await;

    // The list given for that user is asked again, not shown; the one for anyone is kept.
    type_in_composer(&session, " @").await;
    assert_eq!(
        resource_lists_reach(&private, 2).await,
        2,
        "the private list is asked again"
    );
    session
        .wait_until(
            "document.querySelectorAll('#slash-menu [data-slash-kind=resource]').length === 4",
        )
        .await;
    assert_eq!(resource_lists(&public).await, 1, "the public list is kept");
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn an_unreadable_templates_record_is_said_in_the_menu_and_never_written_over() {
    let session = AppSession::open(1280, 900).await;
    // The templates record as a damaged disk (or another version) left it.
    let damaged = "{\"templates\": 7";
    hearth_e2e::export::put_settings_record(&session, "templates", damaged).await;
    session.reload_app().await;
    type_in_composer(&session, "/").await;
    session
        .wait_until("document.querySelector('[data-menu-unreadable]')?.textContent.startsWith('Templates unreadable')")
        .await;
    // The composer's own commands are still there.
    assert_eq!(
        listed(&session).await[..7],
        [
            "new",
            "temporary",
            "clear",
            "search",
            "templates",
            "skills",
            "knowledge"
        ]
    );
    // Saving a template is refused rather than written over the record.
    session.press(&[Key::Escape]).await;
    session.open_settings_tab("templates").await;
    session.click_by_script("#templates-new").await;
    session.fill("#template-editor-title", "Lost").await;
    session
        .fill("#template-editor-body", "Would overwrite")
        .await;
    session.click_by_script("#template-editor-save").await;
    session
        .wait_until("document.getElementById('template-editor-error').textContent.includes('Templates unreadable')")
        .await;
    assert_eq!(
        hearth_e2e::export::settings_record(&session, "templates").await,
        json!(damaged)
    );
    session.finish().await;
}
