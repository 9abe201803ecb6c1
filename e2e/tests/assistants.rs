//! Assistants in the real build, in Chromium, against the provider fixture: a built-in
//! assistant started from the sidebar's Assistants entry greets the user (its opening
//! message, never sent), and the conversation its first message makes names it, carries
//! its instructions after the user's and offers only its tools; the reply's details name
//! it; it is listed as recently used. An assistant of the user's own (a copy of a
//! built-in one, changed) starts a chat on its model; deleting it keeps the
//! conversation's instructions. The assistants travel in the export. A catalogue whose
//! request fails says so with Try again, never an empty list, and the saved copy is
//! shown when it fails again.

use hearth_e2e::AppSession;
use hearth_e2e::chat::{
    self, chat_bodies, choose_option, offered_tools, stored_conversations, system_of,
};
use hearth_e2e::export::{export_all, import_all, records};
use hearth_e2e::provider_fixture::ProviderFixture;
use serde_json::json;

/// Opens Settings › Assistants from the sidebar's entry and waits for the built-in list.
async fn open_assistants(session: &AppSession) {
    session.click_by_script("#sidebar-assistants").await;
    session
        .wait_for("#settings-tab-assistants[aria-selected='true']")
        .await;
    session
        .wait_until("document.querySelectorAll('#assistants-catalog [data-assistant]').length >= 8")
        .await;
}

/// Opens the Details of the last reply and waits until its instructions row says `text`.
async fn details_say(session: &AppSession, text: &str) {
    session
        .js(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelector(`.message__actions button[aria-label='Details']`).click()",
            vec![],
        )
        .await;
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('.message__details dd')].some((d) => d.textContent === {})",
            json!(text)
        ))
        .await;
}

#[tokio::test]
async fn an_assistant_greets_starts_the_conversation_and_shapes_its_requests() {
    let fixture = ProviderFixture::start().await;
    // The models take tools, so a request offers the tools switched on.
    fixture.set_tool_models(true);
    let session = chat::ready(&fixture).await;
    session.open_settings_tab("system").await;
    session.fill("#settings-system-prompt", "Be brief.").await;
    session.click_by_script("#settings-system-save").await;
    session
        .wait_until("document.getElementById('settings-system-save').disabled")
        .await;
    session.close_settings().await;

    // A built-in assistant: the reader, which names the web page reader as its only
    // tool (switched off in the user's own settings).
    open_assistants(&session).await;
    session.screenshot("assistants-settings").await;
    session
        .click_by_script(
            "#assistants-catalog [data-assistant='research-reader'] [data-assistant-start]",
        )
        .await;
    session
        .wait_until("!document.querySelector('dialog')?.open")
        .await;
    let greeting = session.text_of("#empty-assistant").await;
    assert!(greeting.contains("Research reader"), "{greeting}");
    assert!(
        greeting.contains("Give me a link or paste an article"),
        "{greeting}"
    );
    assert_eq!(
        session
            .js("return document.activeElement?.id", vec![])
            .await,
        json!("composer-input"),
        "the user is put in the composer"
    );
    session.screenshot("assistants-greeting").await;

    chat::ask(&session, "What does this article claim?").await;
    let body = chat_bodies(&fixture).last().cloned().unwrap();
    let system = system_of(&body);
    assert!(
        system.starts_with("Be brief.\n\nInstructions for this conversation"),
        "{system}"
    );
    assert!(
        system.contains("You are a careful research assistant."),
        "{system}"
    );
    assert!(
        !system.contains("Give me a link"),
        "the opening message is never sent: {system}"
    );
    assert_eq!(
        offered_tools(&body),
        ["read_web_page"],
        "the assistant's tool"
    );
    let stored = stored_conversations(&session).await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["assistantId"], "research-reader");
    assert!(
        stored[0]["systemPrompt"]
            .as_str()
            .unwrap()
            .starts_with("You are a careful research assistant.")
    );
    details_say(&session, "yours · assistant “Research reader”").await;

    // A plain new chat has no greeting and no assistant.
    session.click_by_script("#sidebar-new-chat").await;
    session.wait_for(".empty-state").await;
    assert!(
        session
            .js(
                "return document.getElementById('empty-assistant') === null",
                vec![]
            )
            .await
            .as_bool()
            .unwrap()
    );
    chat::ask(&session, "A plain question").await;
    let plain = chat_bodies(&fixture).last().cloned().unwrap();
    assert_eq!(system_of(&plain), "Be brief.");
    assert!(offered_tools(&plain).is_empty(), "the user's switches");

    // `/` offers the assistants: typed, the translator starts a chat of its own.
    chat::type_in_composer(&session, "/transla").await;
    session
        .wait_until(
            "document.querySelector('#slash-option-0')?.dataset.slashCommand === 'translator'",
        )
        .await;
    assert!(
        session
            .text_of("#slash-option-0")
            .await
            .contains("Assistant"),
        "said to be an assistant"
    );
    session.press(&[fantoccini::key::Key::Enter]).await;
    session
        .wait_until(
            "document.getElementById('empty-assistant')?.textContent.includes('Translator')",
        )
        .await;
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.message').length",
                vec![]
            )
            .await,
        json!(0),
        "a new chat"
    );

    // Recently used, first.
    open_assistants(&session).await;
    session
        .wait_for("#assistants-recent [data-assistant='research-reader']")
        .await;

    // A copy of a built-in one, changed: the user's own, on its own model, no tools.
    session
        .click_by_script("#assistants-catalog [data-assistant='translator'] [data-assistant-copy]")
        .await;
    session.wait_for("#assistant-editor").await;
    assert_eq!(
        session
            .js(
                "return document.getElementById('assistant-editor-name').value",
                vec![]
            )
            .await,
        json!("Translator"),
        "the copy starts from the built-in one"
    );
    session
        .fill("#assistant-editor-name", "French teacher")
        .await;
    session
        .fill(
            "#assistant-editor-prompt",
            "Answer in French and correct my French.",
        )
        .await;
    session
        .fill("#assistant-editor-opening", "Bonjour ! On commence ?")
        .await;
    choose_option(&session, "assistant-editor-model", "fixture-large").await;
    session
        .click_by_script("#assistant-editor-tools input[value='only']")
        .await;
    session.screenshot("assistant-editor").await;
    session.click_by_script("#assistant-editor-save").await;
    session.wait_for_toast("Assistant saved.").await;
    session
        .wait_until("document.querySelectorAll('#assistants-mine [data-assistant]').length === 1")
        .await;
    session
        .click_by_script("#assistants-mine [data-assistant-start]")
        .await;
    session
        .wait_until("!document.querySelector('dialog')?.open")
        .await;
    session
        .wait_until("document.getElementById('empty-assistant')?.textContent.includes('Bonjour ! On commence ?')")
        .await;
    session
        .wait_until("document.getElementById('composer-model').value.endsWith('fixture-large')")
        .await;
    // Typed straight away, no click: after the editor, the composer once had the focus
    // but the page's selection elsewhere, and took no typed text (docs/NOTES.md,
    // Assistants).
    chat::ask(&session, "Je suis allé au marché.").await;
    let body = chat_bodies(&fixture).last().cloned().unwrap();
    assert_eq!(body["model"], "fixture-large", "the assistant's model");
    assert!(
        system_of(&body).ends_with("Answer in French and correct my French."),
        "{}",
        system_of(&body)
    );
    assert!(offered_tools(&body).is_empty());

    // The assistants travel in the export and come back with its import.
    let (downloads, file) = export_all(&session, "assistants-export").await;
    let exported = records(&file);
    let names: Vec<&str> = exported["assistants"]["custom"]
        .as_array()
        .expect("the assistants are exported")
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["French teacher"]);

    // Deleting it keeps the conversation's instructions; its name goes from the details.
    open_assistants(&session).await;
    session
        .click_by_script("#assistants-mine [data-assistant-delete]")
        .await;
    session
        .wait_for_toast(
            "Deleted “French teacher”. Conversations started with it keep their instructions.",
        )
        .await;
    session.wait_for("#assistants-empty").await;
    session.close_settings().await;
    chat::ask(&session, "Et maintenant ?").await;
    let after = chat_bodies(&fixture).last().cloned().unwrap();
    assert!(system_of(&after).ends_with("Answer in French and correct my French."));
    details_say(&session, "yours · this conversation's").await;

    import_all(&session, &file).await;
    open_assistants(&session).await;
    session
        .wait_until("document.querySelector('#assistants-mine [data-assistant]')?.textContent.includes('French teacher')")
        .await;
    std::fs::remove_dir_all(downloads).ok();
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn a_catalogue_that_cannot_be_fetched_says_so_and_the_saved_copy_stands_in() {
    let session = AppSession::open(1280, 900).await;
    session
        .cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": hearth_e2e::catalogue::FAILING_CATALOGUES }),
        )
        .await;
    session
        .js(
            "localStorage.setItem('fail-skills', '/data/assistants/')",
            vec![],
        )
        .await;
    session.reload_app().await;
    let count = "return document.querySelectorAll('#assistants-catalog [data-assistant]').length";

    // Nothing fetched, nothing saved: the error with Try again, not an empty catalogue.
    session.click_by_script("#sidebar-assistants").await;
    let state = session.text_of("#assistants-catalog-state").await;
    assert!(
        state.contains("Catalogue unavailable (HTTP 503). Your own assistants still work."),
        "{state}"
    );
    assert_eq!(session.js(count, vec![]).await, json!(0));
    assert!(
        session
            .js(
                "return document.getElementById('assistants-new').disabled",
                vec![]
            )
            .await
            == json!(false),
        "the user's own still work"
    );
    session.screenshot("assistants-catalogue-failed").await;

    // Back: the fresh catalogue, no state line.
    session
        .js("localStorage.removeItem('fail-skills')", vec![])
        .await;
    session.click_by_script("#assistants-catalog-retry").await;
    session
        .wait_until("!document.getElementById('assistants-catalog-state') && document.querySelectorAll('#assistants-catalog [data-assistant]').length >= 8")
        .await;
    let fresh = session.js(count, vec![]).await;

    // Failing again: the saved copy, said to be one.
    session
        .js(
            "localStorage.setItem('fail-skills', '/data/assistants/')",
            vec![],
        )
        .await;
    session.close_settings().await;
    session.click_by_script("#sidebar-assistants").await;
    session
        .wait_until("document.getElementById('assistants-catalog-state')?.textContent.includes('showing the copy from')")
        .await;
    assert_eq!(session.js(count, vec![]).await, fresh);
    session.finish().await;
}
