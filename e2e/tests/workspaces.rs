//! Workspaces in the real build, in Chromium, against the provider fixture: a workspace
//! made in Settings › Workspaces is chosen from the sidebar's menu by keyboard; a new
//! chat there starts with its model, its request carries the user's, the workspace's
//! and then the conversation's instructions (in that order, the later said to take
//! precedence) and only the workspace's tools; the reply's details say which applied;
//! the list shows only its conversations and a conversation moves out through its menu;
//! the choice survives a reload; deleting the workspace keeps its conversations (Undo
//! brings it back); a library that cannot be read is said, never written over, and the
//! answer still comes.

use fantoccini::key::Key;
use hearth_e2e::chat::{
    self, chat_bodies, choose_option, offered_tools, stored_conversations, system_of,
};
use hearth_e2e::export::{export_all, import_all, put_settings_record, records, settings_record};
use hearth_e2e::provider_fixture::ProviderFixture;
use hearth_e2e::workspace::choose_workspace;
use hearth_e2e::{AppSession, Browser};
use serde_json::{Value, json};

/// The titles the sidebar lists.
async fn listed(session: &Browser) -> usize {
    session
        .js(
            "return document.querySelectorAll('.conversation-list .conversation-item').length",
            vec![],
        )
        .await
        .as_u64()
        .unwrap_or(0) as usize
}

/// Opens "Conversation settings…" from the menu of the sidebar's conversation
/// `row`, and waits until the dialog shows the conversation's workspace.
async fn open_placement(session: &AppSession, row: &str) {
    session
        .js(
            "document.querySelector(`${arguments[0]} .menu-anchor > button`).click()",
            vec![json!(row)],
        )
        .await;
    chat::choose_menu_item(session, "Conversation settings…").await;
    session.wait_for("#placement-prompt").await;
    session
        .wait_until("document.getElementById('placement-workspace').value !== ''")
        .await;
}

/// Makes the workspace "Research" (violet, its instructions, `fixture-large`, no tools)
/// in Settings › Workspaces; its id.
async fn make_research(session: &AppSession) -> String {
    session.open_settings_tab("workspaces").await;
    session.wait_for("#workspaces-empty").await;
    session.click_by_script("#workspaces-new").await;
    session.fill("#workspace-editor-name", "Research").await;
    session
        .click_by_script("#workspace-editor-colour input[value='violet']")
        .await;
    session
        .click_by_script("#workspace-editor-icon input[value='book']")
        .await;
    session
        .fill("#workspace-editor-prompt", "Cite your sources.")
        .await;
    choose_option(session, "workspace-editor-model", "fixture-large").await;
    session
        .click_by_script("#workspace-editor-tools input[value='only']")
        .await;
    session
        .wait_for("#workspace-editor-tools [data-choice='builtin:web-reader']")
        .await;
    session.screenshot("workspace-editor").await;
    session.click_by_script("#workspace-editor-save").await;
    session.wait_for_toast("Workspace saved.").await;
    let id = session
        .js(
            "return document.querySelector('#workspaces-list [data-workspace]').dataset.workspace",
            vec![],
        )
        .await;
    session.close_settings().await;
    id.as_str().expect("the card").to_string()
}

#[tokio::test]
async fn a_workspace_shapes_its_conversations_requests_and_lists_only_them() {
    let fixture = ProviderFixture::start().await;
    // The models take tools, so a request offers the tools switched on.
    fixture.set_tool_models(true);
    let session = chat::ready(&fixture).await;
    // The user's own instructions, and a built-in tool on for every conversation.
    session.open_settings_tab("system").await;
    session.fill("#settings-system-prompt", "Be brief.").await;
    session.click_by_script("#settings-system-save").await;
    session
        .wait_until("document.getElementById('settings-system-save').disabled")
        .await;
    session.open_settings_tab("tools").await;
    chat::switch_on_builtin(&session, "builtin:web-reader").await;
    session.close_settings().await;

    // A conversation outside any workspace.
    chat::ask(&session, "Outside question").await;
    let outside = chat_bodies(&fixture);
    assert_eq!(system_of(&outside[0]), "Be brief.");
    assert_eq!(offered_tools(&outside[0]), ["read_web_page"]);

    let research = make_research(&session).await;
    session
        .js(
            "document.getElementById('sidebar-new-chat').click()",
            vec![],
        )
        .await;
    choose_workspace(&session, &research).await;
    assert_eq!(
        session.text_of(".sidebar__workspace-name").await,
        "Research"
    );
    assert!(
        session
            .js(
                "return !!document.querySelector('#sidebar-workspace .colour-dot--violet')",
                vec![]
            )
            .await
            .as_bool()
            .unwrap()
    );
    session.wait_for("#sidebar-list-empty").await;
    assert_eq!(
        listed(&session).await,
        0,
        "the outside conversation is not listed"
    );
    session
        .wait_until("document.getElementById('composer-model').value.endsWith('fixture-large')")
        .await;
    session.screenshot("workspace-sidebar").await;

    chat::ask(&session, "Inside question").await;
    let body = chat_bodies(&fixture).last().cloned().unwrap();
    assert_eq!(body["model"], "fixture-large", "the workspace's model");
    let system = system_of(&body);
    assert!(
        system.starts_with("Be brief.\n\nInstructions for this workspace"),
        "{system}"
    );
    assert!(system.ends_with("Cite your sources."), "{system}");
    assert!(
        offered_tools(&body).is_empty(),
        "only the workspace's tools (none): {:?}",
        offered_tools(&body)
    );
    assert_eq!(listed(&session).await, 1);
    let stored = stored_conversations(&session).await;
    let inside: Vec<&Value> = stored
        .iter()
        .filter(|c| c["workspaceId"] == json!(research))
        .collect();
    assert_eq!(inside.len(), 1, "{stored:?}");
    let inside_id = inside[0]["id"].as_str().unwrap().to_string();

    // The reply's details say which instructions applied.
    session
        .js(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelector(`.message__actions button[aria-label='Details']`).click()",
            vec![],
        )
        .await;
    session
        .wait_until("[...document.querySelectorAll('.message__details dd')].some((d) => d.textContent === 'yours · workspace “Research”')")
        .await;

    // The conversation's own instructions come last.
    open_placement(&session, ".conversation-item--current").await;
    session.fill("#placement-prompt", "Answer in French.").await;
    session.screenshot("workspace-placement").await;
    session.click_by_script("#placement-save").await;
    session.wait_for_toast("Conversation settings saved.").await;
    chat::ask(&session, "Second inside question").await;
    let system = system_of(chat_bodies(&fixture).last().unwrap());
    let (workspace_at, own_at) = (
        system.find("Cite your sources.").unwrap(),
        system.find("Answer in French.").unwrap(),
    );
    assert!(workspace_at < own_at, "{system}");
    assert!(
        system.contains("Instructions for this conversation (where they differ"),
        "{system}"
    );

    // The choice survives a reload.
    session.reload_app().await;
    session
        .wait_until(
            "document.querySelector('.sidebar__workspace-name')?.textContent === 'Research'",
        )
        .await;
    session
        .wait_until(
            "document.querySelectorAll('.conversation-list .conversation-item').length === 1",
        )
        .await;

    // Moved out through its menu: no longer listed here, listed under all.
    open_placement(&session, ".conversation-list .conversation-item").await;
    choose_option(&session, "placement-workspace", "No workspace").await;
    session.click_by_script("#placement-save").await;
    session.wait_for("#sidebar-list-empty").await;
    let moved = stored_conversations(&session).await;
    let moved = moved.iter().find(|c| c["id"] == json!(inside_id)).unwrap();
    assert!(moved["workspaceId"].is_null(), "{moved}");
    assert_eq!(
        moved["systemPrompt"], "Answer in French.",
        "its own instructions stay"
    );
    choose_workspace(&session, "").await;
    assert_eq!(
        session.text_of(".sidebar__workspace-name").await,
        "All conversations"
    );
    assert_eq!(listed(&session).await, 2);

    // Deleting the workspace keeps every conversation; Undo brings it back.
    choose_workspace(&session, &research).await;
    session.open_settings_tab("workspaces").await;
    session
        .click_by_script("#workspaces-list [data-workspace-delete]")
        .await;
    session
        .wait_for_toast("Workspace “Research” deleted.")
        .await;
    session
        .wait_until("document.querySelector('.sidebar__workspace-name')?.textContent === 'All conversations'")
        .await;
    assert_eq!(stored_conversations(&session).await.len(), 2);
    session
        .js(
            "[...document.querySelectorAll('.toast button')].find((b) => b.textContent === 'Undo').click()",
            vec![],
        )
        .await;
    session.wait_for("#workspaces-list [data-workspace]").await;
    session.close_settings().await;
    session.assert_no_console_errors().await;
    session.finish().await;
}

/// A workspaces record no version of Hearth can read.
const DAMAGED: &str = "{\"workspaces\": 7";

#[tokio::test]
async fn a_workspace_library_that_cannot_be_read_is_said_and_the_answer_still_comes() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    let research = make_research(&session).await;
    choose_workspace(&session, &research).await;
    chat::ask(&session, "Before the damage").await;
    // The record as another version (or a damaged disk) left it.
    put_settings_record(&session, "workspaces", DAMAGED).await;
    session.reload_app().await;
    chat::open_latest(&session).await;
    chat::ask(&session, "After the damage").await;
    session
        .wait_for_toast("The workspaces could not be read")
        .await;
    let system = system_of(chat_bodies(&fixture).last().unwrap());
    assert!(!system.contains("Cite your sources."), "{system}");
    // The menu says so and still offers all conversations; nothing is written over.
    session.click_by_script("#sidebar-workspace").await;
    session
        .wait_until("document.querySelector('.workspace-menu__error')?.textContent.includes('could not be read')")
        .await;
    session.press(&[Key::Escape]).await;
    session.open_settings_tab("workspaces").await;
    session
        .wait_until("document.getElementById('workspaces-unreadable').textContent.includes('could not be read')")
        .await;
    assert!(
        session
            .js(
                "return document.getElementById('workspaces-new').disabled",
                vec![]
            )
            .await
            .as_bool()
            .unwrap()
    );
    assert_eq!(
        settings_record(&session, "workspaces").await,
        json!(DAMAGED),
        "the record is untouched"
    );
    session.finish().await;
}

#[tokio::test]
async fn workspaces_travel_in_the_export_and_come_back_with_an_import() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    let research = make_research(&session).await;
    choose_workspace(&session, &research).await;
    chat::ask(&session, "Filed under research").await;

    let (downloads, file) = export_all(&session, "workspaces-export").await;
    let exported = records(&file);
    let workspace = &exported["workspaces"]["workspaces"][0];
    assert_eq!(workspace["name"], "Research");
    assert_eq!(workspace["systemPrompt"], "Cite your sources.");
    assert_eq!(workspace["plugins"], json!([]), "only these tools: none");
    assert_eq!(exported["conversations"][0]["workspaceId"], json!(research));

    // Deleted here, then the export imported: back, and its conversation in it again.
    session.open_settings_tab("workspaces").await;
    session
        .click_by_script("#workspaces-list [data-workspace-delete]")
        .await;
    session.wait_for("#workspaces-empty").await;
    import_all(&session, &file).await;
    session.open_settings_tab("workspaces").await;
    session
        .wait_for(&format!("#workspaces-list [data-workspace='{research}']"))
        .await;
    session.close_settings().await;
    choose_workspace(&session, &research).await;
    session
        .wait_until(
            "document.querySelectorAll('.conversation-list .conversation-item').length === 1",
        )
        .await;

    // At phone width, in the dark theme, the menu fits the drawer.
    session.resize(390, 844).await;
    chat::reload_in_theme(&session, "dark").await;
    session.click_by_script("#drawer-toggle").await;
    session
        .wait_until("getComputedStyle(document.getElementById('sidebar')).visibility === 'visible'")
        .await;
    session.click_by_script("#sidebar-workspace").await;
    session
        .wait_until("document.querySelector('#workspace-menu [aria-checked=true]') !== null")
        .await;
    let fits = session
        .js(
            "const box = document.getElementById('workspace-menu').getBoundingClientRect();
             return box.left >= 0 && box.right <= window.innerWidth && box.height > 0;",
            vec![],
        )
        .await;
    assert_eq!(fits, json!(true));
    session.screenshot("workspace-menu-phone-dark").await;
    let _ = std::fs::remove_dir_all(&downloads);
    session.finish().await;
}

/// How many stored messages say `text`.
async fn stored_messages_saying(session: &AppSession, text: &str) -> usize {
    chat::stored_records(session, "messages")
        .await
        .iter()
        .filter(|m| m["content"].as_str().is_some_and(|c| c.contains(text)))
        .count()
}

/// A temporary chat (the new chat's switch, or `/temporary`) is answered like any other
/// but never reaches the database or the export, has no address, refuses files and is
/// gone after a reload; "Keep this chat" stores it, messages and all.
#[tokio::test]
async fn a_temporary_chat_is_never_stored_is_gone_after_a_reload_and_can_be_kept() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    chat::ask(&session, "An ordinary question").await;
    assert_eq!(stored_conversations(&session).await.len(), 1);

    // A new chat made temporary: said before the first message and after it.
    session.click_by_script("#sidebar-new-chat").await;
    session.wait_for("#temporary-toggle").await;
    session.click_by_script("#temporary-toggle").await;
    session
        .wait_until(
            "document.getElementById('temporary-toggle').getAttribute('aria-pressed') === 'true'",
        )
        .await;
    let hint = session.text_of("#temporary-hint").await;
    assert!(hint.contains("never saved"), "{hint}");
    session.screenshot("temporary-new-chat").await;
    chat::ask(&session, "A question nobody keeps").await;
    session.wait_for("#temporary-note").await;
    session
        .wait_for(".conversation-item--current .conversation-item__badge")
        .await;
    assert_eq!(
        session
            .js(
                "return document.getElementById('composer-attach').disabled",
                vec![]
            )
            .await,
        json!(true),
        "no files in a temporary chat"
    );
    session.screenshot("temporary-chat").await;
    assert_eq!(
        session.js("return location.pathname", vec![]).await,
        json!("/"),
        "no address that a reload would not find"
    );
    // Answered and named, yet nothing of it reached the database or the export.
    assert_eq!(listed(&session).await, 2);
    assert_eq!(stored_conversations(&session).await.len(), 1);
    assert_eq!(
        stored_messages_saying(&session, "A question nobody keeps").await,
        0
    );
    let (_, archive) = export_all(&session, "temporary").await;
    let exported = records(&archive).to_string();
    assert!(!exported.contains("A question nobody keeps"), "{exported}");
    session.close_settings().await;

    // Gone with the page, and nothing said about it.
    session.reload_app().await;
    session
        .wait_until(
            "document.querySelectorAll('.conversation-list .conversation-item').length === 1",
        )
        .await;
    assert_eq!(
        session
            .js(
                "return document.querySelector('.conversation-item__badge, .toast__message') === null",
                vec![]
            )
            .await,
        json!(true)
    );

    // Kept: stored as any other conversation, messages and all, and there after a reload.
    // This one is started from the keyboard: `/temporary`.
    session.wait_for("#temporary-toggle").await;
    assert_eq!(
        session
            .js(
                "return document.getElementById('temporary-toggle').getAttribute('aria-pressed')",
                vec![]
            )
            .await,
        json!("false"),
        "a reload starts with ordinary chats"
    );
    chat::type_in_composer(&session, "/tempor").await;
    session
        .wait_until(
            "document.querySelector('#slash-option-0')?.dataset.slashCommand === 'temporary'",
        )
        .await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until(
            "document.getElementById('temporary-toggle')?.getAttribute('aria-pressed') === 'true'",
        )
        .await;
    assert_eq!(chat::composer_text(&session).await, "");
    chat::ask(&session, "A question worth keeping").await;
    session.wait_for("#temporary-note").await;
    session.click_by_script("#temporary-keep").await;
    session
        .wait_for_toast("The chat is saved like any other conversation.")
        .await;
    session
        .wait_until("document.getElementById('temporary-note') === null")
        .await;
    session
        .wait_until("location.pathname.startsWith('/c/')")
        .await;
    let stored = stored_conversations(&session).await;
    assert_eq!(stored.len(), 2);
    assert!(
        stored.iter().all(|c| c.get("temporary").is_none()),
        "{stored:?}"
    );
    assert_eq!(
        stored_messages_saying(&session, "A question worth keeping").await,
        2,
        "the question and its (echoing) reply"
    );
    session.reload_app().await;
    session
        .wait_until(
            "document.querySelectorAll('.conversation-list .conversation-item').length === 2",
        )
        .await;
}
