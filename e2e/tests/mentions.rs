//! The composer's `@` menu in the real build, in Chromium, against the provider fixture,
//! by keyboard only: it offers everything the chat can reach. A file an earlier message
//! carries is attached again as a copy of its own; a plugin is turned on and off, and
//! the model is offered its tools exactly while it is on; an assistant takes the chat
//! over (its instructions reach the request) until Undo gives the chat back.

use fantoccini::key::Key;
use hearth_e2e::AppSession;
use hearth_e2e::attach::{attach, ready_chips, stored_files};
use hearth_e2e::chat::{
    self, ask, chat_bodies, composer_text, offered_tools, stored_conversations, system_of,
    type_in_composer,
};
use hearth_e2e::paths::scratch_dir;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

/// The option the composer points at (`aria-activedescendant`): its command and text.
async fn active_option(session: &AppSession) -> Value {
    session
        .js(
            "const id = document.getElementById('composer-input').getAttribute('aria-activedescendant');
             const option = id && document.getElementById(id);
             return option ? [option.dataset.slashCommand, option.textContent] : null;",
            vec![],
        )
        .await
}

/// Types `mention` after `before` and waits until the best match is `command`; its text.
async fn mention(session: &AppSession, before: &str, mention: &str, command: &str) -> String {
    type_in_composer(session, &format!("{before}{mention}")).await;
    session
        .wait_until(&format!(
            "(() => {{ const id = document.getElementById('composer-input').getAttribute('aria-activedescendant');
                       return id && document.getElementById(id)?.dataset.slashCommand === {}; }})()",
            json!(command)
        ))
        .await;
    active_option(session).await[1]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Waits for a toast saying `words`.
async fn toast_says(session: &AppSession, words: &str) {
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('.toast')].some((t) => t.textContent.includes({}))",
            json!(words)
        ))
        .await;
}

/// Checks that the stored chat names the assistant `id`.
async fn assert_chat_assistant(session: &AppSession, id: &str) {
    let conversation = &stored_conversations(session).await[0];
    assert_eq!(conversation["assistantId"], json!(id), "{conversation}");
}

/// The last chat request the fixture received.
fn last_body(fixture: &ProviderFixture) -> Value {
    chat_bodies(fixture).pop().expect("a chat request")
}

#[tokio::test]
async fn files_plugins_and_assistants_are_mentioned_with_at_by_keyboard() {
    let fixture = ProviderFixture::start().await;
    // Models that take tools, so that a plugin turned on is offered.
    fixture.set_tool_models(true);
    let session = chat::ready(&fixture).await;
    let dir = scratch_dir("mentions");
    let notes = dir.join("notes.md");
    std::fs::write(&notes, "# Notes\n\nThe harbour opens at 06:40.\n").unwrap();
    attach(&session, &[&notes]).await;
    ready_chips(&session, 1).await;
    fixture.enqueue(Reply::text("Read."));
    ask(&session, "Keep these").await;
    let stored_before = stored_files(&session).await;
    assert_eq!(
        stored_before.as_array().map(Vec::len),
        Some(2),
        "{stored_before}"
    );

    // A bare `@` offers the chat's file, the plugins and the assistants.
    type_in_composer(&session, "@").await;
    session
        .wait_until("!!document.querySelector(\"#slash-menu [data-slash-command='notes-md']\")")
        .await;
    // The assistants' catalogue arrives a moment later.
    session
        .wait_for("#slash-menu [data-slash-kind='hand-over']")
        .await;
    let kinds = session
        .js(
            "return [...document.querySelectorAll('#slash-menu [role=option] .search-result__date')].map((k) => k.textContent)",
            vec![],
        )
        .await
        .to_string();
    for kind in [
        "File · earlier in this chat",
        "Plugin · off (choose to turn on)",
        "Assistant · answers this chat from now on",
    ] {
        assert!(kinds.contains(kind), "{kind} in {kinds}");
    }
    session.screenshot("mentions-menu").await;
    session.press(&[Key::Backspace]).await;

    // The file: the `@word` goes, a copy of its own is attached and its text is sent.
    let option = mention(&session, "Again ", "@notes", "notes-md").await;
    assert!(option.starts_with("@notes-md notes.md"), "{option}");
    session.press(&[Key::Enter]).await;
    ready_chips(&session, 1).await;
    assert_eq!(composer_text(&session).await, "Again ");
    fixture.enqueue(Reply::text("Read again."));
    ask(&session, "please").await;
    let sent = last_body(&fixture).to_string();
    assert_eq!(
        sent.matches("The harbour opens at 06:40.").count(),
        2,
        "both questions carry the file's text: {sent}"
    );
    let stored_after = stored_files(&session).await;
    assert_eq!(
        stored_after.as_array().map(Vec::len),
        Some(4),
        "the copy has its own original and text: {stored_after}"
    );

    // A plugin: on, its tool is offered; off again, it is not.
    let option = mention(&session, "", "@web-page", "web-page-reader").await;
    assert!(option.contains("Plugin · off"), "{option}");
    session.press(&[Key::Enter]).await;
    toast_says(&session, "“Web page reader” is on").await;
    assert_eq!(composer_text(&session).await, "");
    fixture.enqueue(Reply::text("With the reader."));
    ask(&session, "Can you read pages?").await;
    assert!(
        offered_tools(&last_body(&fixture)).contains(&"read_web_page".to_string()),
        "the plugin turned on is offered"
    );
    let option = mention(&session, "", "@web-page", "web-page-reader").await;
    assert!(option.contains("Plugin · on"), "{option}");
    session.press(&[Key::Enter]).await;
    toast_says(&session, "“Web page reader” is off").await;
    fixture.enqueue(Reply::text("Without it."));
    ask(&session, "And now?").await;
    assert!(
        !offered_tools(&last_body(&fixture)).contains(&"read_web_page".to_string()),
        "the plugin turned off is not offered"
    );

    // An assistant takes the chat over: its instructions reach the request.
    mention(&session, "", "@translator", "translator").await;
    session.press(&[Key::Enter]).await;
    toast_says(
        &session,
        "Translator answers this chat from your next message",
    )
    .await;
    assert_chat_assistant(&session, "translator").await;
    fixture.enqueue(Reply::text("Bonjour."));
    ask(&session, "Hello, in French").await;
    assert!(
        system_of(&last_body(&fixture)).contains("professional translator"),
        "the assistant's instructions are the chat's"
    );
    // Handed on to another assistant, Undo gives the chat back to the one before, with
    // its instructions (undone at once: the toast goes after a few seconds).
    mention(&session, "", "@planner", "planner").await;
    session.press(&[Key::Enter]).await;
    toast_says(&session, "Planner answers this chat from your next message").await;
    // (The translator's toast may still be up with its own Undo.)
    session
        .js(
            "[...document.querySelectorAll('.toast')].find((t) => t.textContent.includes('Planner'))
               .querySelector('.toast__action').click()",
            vec![],
        )
        .await;
    toast_says(
        &session,
        "The chat's earlier assistant and instructions are back.",
    )
    .await;
    assert_chat_assistant(&session, "translator").await;
    fixture.enqueue(Reply::text("Bonjour encore."));
    ask(&session, "Hello again").await;
    let system = system_of(&last_body(&fixture));
    assert!(
        system.contains("professional translator") && !system.contains("planning assistant"),
        "the translator's instructions are back: {system}"
    );
    // With no chat open, an assistant starts one, greeting as `/` would.
    session.click_by_script("#sidebar-new-chat").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 0")
        .await;
    let option = mention(&session, "", "@planner", "planner").await;
    assert!(option.contains("Assistant · starts a new chat"), "{option}");
    session.press(&[Key::Enter]).await;
    session.wait_for("#empty-assistant").await;
    assert_eq!(
        stored_conversations(&session).await.len(),
        1,
        "nothing stored yet"
    );
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn a_plugin_list_that_fails_is_said_in_every_place_never_shown_as_no_plugins() {
    let (session, tap) = AppSession::open_through_tap(1280, 900).await;
    // Every answer to the plugins' list is lost on its way back, as on a dead link.
    tap.lose_every_answer_to("GET /api/plugins/list ");
    let failed = "document.getElementById('plugins-failed')?.textContent ?? ''";
    for (locale, said, mention_said) in [
        (
            "en",
            "The plugins could not be listed: ",
            "The plugins could not be listed: ",
        ),
        (
            "ja",
            "プラグインを一覧できませんでした：",
            "プラグインを取得できませんでした：",
        ),
    ] {
        if locale != "en" {
            session.reload_in(locale).await;
        }
        // Settings › Tools says so, with the reason, and lists nothing as if there were
        // no plugins.
        session.open_settings_tab("tools").await;
        session
            .wait_until(&format!("({failed}).startsWith({})", json!(said)))
            .await;
        let text = session.js(&format!("return {failed}"), vec![]).await;
        let reason = text.as_str().unwrap_or_default().trim_start_matches(said);
        assert!(!reason.trim().is_empty(), "the reason is said: {text}");
        assert_eq!(
            session
                .js(
                    "return document.querySelectorAll('#plugins-installed, #plugins-builtin').length",
                    vec![]
                )
                .await,
            json!(0),
            "no list stands for the one that failed"
        );
        session.close_settings().await;
        // The `@` menu says so too, and still offers what does not need the list.
        type_in_composer(&session, "@").await;
        session
            .wait_until(&format!(
                "document.querySelector(\"#slash-menu-wrap [data-mcp-state='plugins'], .slash-menu [data-mcp-state='plugins']\")?.textContent.startsWith({})",
                json!(mention_said)
            ))
            .await;
        assert_eq!(
            session
                .js(
                    "return document.querySelectorAll(\"#slash-menu [data-slash-kind='plugin']\").length",
                    vec![]
                )
                .await,
            json!(0)
        );
        session
            .wait_for("#slash-menu [data-slash-kind='hand-over']")
            .await;
        session
            .screenshot(&format!("mentions-plugins-failed-{locale}"))
            .await;
        session.press(&[Key::Backspace]).await;
    }
    session
        .assert_no_console_errors_but(|m| m.contains("/api/plugins/list"))
        .await;
    session.finish().await;
}
