//! Tools in Chromium, end to end: plugins installed through Settings › Tools (a
//! Petstore-style OpenAPI description served by the harness, and the npm MCP
//! `server-everything`), a scripted model calling them across several rounds through
//! the real edge, a destructive call confirmed and then denied, and a model that never
//! stops calling tools meeting the round limit and answering without them, and an
//! install whose answer was lost in transit sent again and done once.

use hearth_e2e::chat::{
    chat_bodies, click_in_last, last_status, last_tool_calls, offered_tools, open_latest,
    open_latest_on_phone, prepare, send,
};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::tool_peers::{
    PetApi, install, mcp_everything, mcp_revision_server, mcp_url, peer_stats,
};
use hearth_e2e::{AppSession, Browser};
use serde_json::{Value, json};

/// The `tool` messages of a request body, as `[tool_call_id, content]`.
fn tool_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// A fixture listing tool-capable models, and the app ready to chat with one of them.
async fn tool_session() -> (ProviderFixture, AppSession) {
    let fixture = ProviderFixture::start().await;
    fixture.set_tool_models(true);
    let session = AppSession::open(1280, 900).await;
    prepare(&session, &fixture, None).await;
    (fixture, session)
}

/// The installed function whose name ends with `suffix` (MCP names carry the server's).
fn named(functions: &[String], suffix: &str) -> String {
    functions
        .iter()
        .find(|name| name.ends_with(suffix))
        .unwrap_or_else(|| panic!("no function ending {suffix} among {functions:?}"))
        .clone()
}

#[tokio::test]
async fn an_install_whose_answer_is_lost_is_sent_again_and_done_once() {
    let pets = PetApi::start();
    let (session, tap) = AppSession::open_through_tap(1280, 900).await;
    // The edge installs it, and its answer dies on the way back to the browser.
    tap.lose_answer_to("POST /api/plugins/install ");
    let functions = install(&session, "openapi-url", &pets.description_url(), "OpenAPI").await;
    assert!(!functions.is_empty());
    let sent = String::from_utf8_lossy(&tap.sent()).to_ascii_lowercase();
    let ids: Vec<&str> = sent
        .split("post /api/plugins/install ")
        .skip(1)
        .filter_map(|request| {
            let at = request.find("hearth-operation-id: ")? + "hearth-operation-id: ".len();
            request[at..].split("\r\n").next()
        })
        .collect();
    assert_eq!(ids.len(), 2, "sent again after the lost answer: {ids:?}");
    assert_eq!(ids[0], ids[1], "under the same operation id");
    let described = pets
        .seen()
        .iter()
        .filter(|(_, path)| path == "/openapi.json")
        .count();
    assert_eq!(
        described, 1,
        "the edge installed it once and answered the repeat"
    );
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('#plugins-installed .plugin-card').length",
                vec![]
            )
            .await,
        json!(1)
    );
    session.finish().await;
}

/// In Settings › Tools (open): chooses when calls wait (`off`, `destructive`,
/// `side-effects`) and waits until it is stored and shown.
async fn set_confirm_mode(session: &Browser, mode: &str) {
    session
        .wait_for("#tools-confirm")
        .await
        .select_by_value(mode)
        .await
        .expect("confirm mode");
    session
        .wait_until(&format!(
            "document.getElementById('tools-confirm').value === '{mode}'"
        ))
        .await;
}

/// Waits until the conversation has `count` replies and the last one is done (a bare
/// `last_status` right after a send may still see the previous reply).
async fn replies_done(session: &Browser, count: usize) {
    session
        .wait_until(&format!(
            "document.querySelectorAll('.message--assistant').length === {count}
             && [...document.querySelectorAll('.message')].at(-1).dataset.status === 'done'"
        ))
        .await;
}

/// Reloads the page and opens the most recent conversation again.
async fn reopen(session: &Browser) {
    session.reload_app().await;
    open_latest(session).await;
}

#[tokio::test]
async fn a_model_calls_rest_and_mcp_tools_across_rounds_and_answers() {
    let pets = PetApi::start();
    let everything = mcp_everything();
    let (fixture, session) = tool_session().await;

    let rest = install(&session, "openapi-url", &pets.description_url(), "OpenAPI").await;
    assert_eq!(rest, ["deletePet", "getPetById"]);
    let mcp = install(&session, "mcp", &mcp_url(&everything), "MCP server").await;
    let echo = named(&mcp, "__echo");
    assert!(echo.starts_with("mcp_") && echo.len() <= 64, "{echo}");
    session.screenshot("tools-market").await;
    session
        .js(
            "document.querySelectorAll('#plugins-installed details').forEach((d) => d.open = true);
             document.getElementById('plugins-installed').scrollIntoView()",
            vec![],
        )
        .await;
    session.screenshot("tools-plugins").await;
    session.close_settings().await;

    // Round 1: two calls at once; round 2: one more; round 3: the answer.
    fixture.enqueue(
        Reply::text("Let me look that up.")
            .tool_call("getPetById", r#"{"petId": 7}"#)
            .tool_call(&echo, r#"{"message": "hello from the model"}"#),
    );
    let tiny = named(&mcp, "__get_tiny_image");
    fixture.enqueue(
        Reply::text("")
            .tool_call("getPetById", r#"{"petId": 8}"#)
            .tool_call(&tiny, "{}"),
    );
    fixture.enqueue(Reply::text("Pet 7 is **Rex** and pet 8 is Tom."));
    send(&session, "Who are pets 7 and 8?").await;
    last_status(&session, "done").await;

    let rows = last_tool_calls(&session).await;
    assert_eq!(rows.as_array().map(Vec::len), Some(4), "{rows}");
    assert_eq!(rows[0][0], json!("getPetById"));
    assert_eq!(rows[1][0], json!(echo));
    for row in rows.as_array().unwrap() {
        assert_eq!(row[1], json!("done"), "{rows}");
    }
    assert!(rows[0][2].as_str().unwrap().contains("Rex"), "{rows}");
    assert!(
        rows[1][2]
            .as_str()
            .unwrap()
            .contains("hello from the model"),
        "{rows}"
    );
    assert!(rows[2][2].as_str().unwrap().contains("Tom"), "{rows}");
    // The MCP image result is kept in the browser and shown on its card (20×20 PNG).
    session
        .wait_until("document.querySelector('.stored-image__image')?.naturalWidth === 20")
        .await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelector('.message__body > .message__markdown strong')?.textContent === 'Rex'",
        )
        .await;
    // The API saw the calls; the model saw the results, in call order, and tools were
    // offered in every round.
    assert_eq!(
        pets.seen()
            .into_iter()
            .filter(|(_, path)| path.starts_with("/pet/"))
            .collect::<Vec<_>>(),
        [
            ("GET".to_string(), "/pet/7".to_string()),
            ("GET".to_string(), "/pet/8".to_string())
        ]
    );
    let bodies = chat_bodies(&fixture);
    assert_eq!(bodies.len(), 3);
    for body in &bodies {
        let names = offered_tools(body);
        assert!(
            names.contains(&"getPetById".to_string()) && names.contains(&echo),
            "{names:?}"
        );
    }
    let second = tool_messages(&bodies[1]);
    assert_eq!(second.len(), 2, "{second:?}");
    assert_eq!(second[0].0, "call_fixture_0");
    assert!(second[0].1.contains("Rex"), "{second:?}");
    assert_eq!(second[1].0, "call_fixture_1");
    assert!(second[1].1.contains("hello from the model"), "{second:?}");
    let third = tool_messages(&bodies[2]);
    assert_eq!(third.len(), 4, "round 1 and round 2 results: {third:?}");

    // A reload keeps the rounds, and the next question carries them as history.
    reopen(&session).await;
    session.wait_for(".tool-call").await;
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.tool-call[data-status=done]').length",
                vec![]
            )
            .await,
        json!(4)
    );
    session
        .wait_until("document.querySelector('.stored-image__image')?.naturalWidth === 20")
        .await;
    session.screenshot("tools-reply").await;
    session.finish().await;
}

/// A round that called a tool takes its text out of the reply, and the next round's
/// text starts again: the reply shows only the new text, even when the new round's text
/// is already longer than the old one by the time the view brings itself up to date
/// (it does so at most once a frame while the text grows).
#[tokio::test]
async fn a_new_round_replaces_the_text_of_the_round_that_called_a_tool() {
    let pets = PetApi::start();
    let (fixture, session) = tool_session().await;
    install(&session, "openapi-url", &pets.description_url(), "OpenAPI").await;
    session.close_settings().await;
    fixture.enqueue(
        Reply::text("First thought.\n\nSecond thought.\n\nLooking it up")
            .tool_call("getPetById", r#"{"petId": 7}"#),
    );
    let answer = "Pet 7 is **Rex**, a dog who has lived with the family for years.\n\n\
                  He likes long walks and short naps.";
    fixture.enqueue(Reply::text(answer));
    send(&session, "Who is pet 7?").await;
    last_status(&session, "done").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelector('.message__body > .message__markdown strong')?.textContent === 'Rex'",
        )
        .await;
    let shown = session
        .js(
            "const m = [...document.querySelectorAll('.message--assistant')].at(-1);
             const body = m.querySelector('.message__body > .message__markdown');
             return { text: body.textContent, paragraphs: body.querySelectorAll('p').length,
                      plain: body.querySelectorAll('.md-plain').length };",
            vec![],
        )
        .await;
    let text = shown["text"].as_str().unwrap();
    assert!(!text.contains("thought"), "{shown}");
    assert!(text.starts_with("Pet 7 is Rex"), "{shown}");
    assert!(text.contains("short naps."), "{shown}");
    assert_eq!(shown["paragraphs"], 2, "{shown}");
    assert_eq!(shown["plain"], 0, "{shown}");
    session.finish().await;
}

#[tokio::test]
async fn a_destructive_call_waits_and_is_allowed_once_then_denied() {
    let pets = PetApi::start();
    let (fixture, session) = tool_session().await;
    install(&session, "openapi-url", &pets.description_url(), "OpenAPI").await;
    set_confirm_mode(&session, "destructive").await;
    session.close_settings().await;

    // Allowed once: the call runs after the click, not before.
    fixture.enqueue(
        Reply::text("").tool_call("deletePet", r#"{"petId": 7, "api_key": "sk-secret-123"}"#),
    );
    fixture.enqueue(Reply::text("Pet 7 was deleted."));
    send(&session, "Delete pet 7").await;
    session.wait_for("[data-confirm-call]").await;
    // The reply shows the phase it is in: its tools, not the model.
    session
        .wait_for(".message--assistant[data-phase=tool]")
        .await;
    let shown = session
        .text_of(".tool-call[data-status=awaiting] .tool-call__code")
        .await;
    assert!(shown.contains("petId"), "{shown}");
    assert!(
        !shown.contains("sk-secret-123"),
        "credentials are masked: {shown}"
    );
    assert!(
        !pets.seen().iter().any(|(method, _)| method == "DELETE"),
        "nothing runs before the user answers"
    );
    // The settings' toasts are done with: dismiss them for the picture.
    session
        .js(
            "document.querySelectorAll('.toast .icon-button').forEach((b) => b.click())",
            vec![],
        )
        .await;
    session
        .wait_until("document.querySelectorAll('.toast').length === 0")
        .await;
    session.screenshot("tools-confirm").await;
    session.click_by_script("[data-answer=once]").await;
    last_status(&session, "done").await;
    assert_eq!(
        pets.seen()
            .iter()
            .filter(|(method, _)| method == "DELETE")
            .count(),
        1
    );

    // Denied: nothing runs, the model is told, and the reply continues.
    fixture.enqueue(Reply::text("").tool_call("deletePet", r#"{"petId": 8}"#));
    fixture.enqueue(Reply::text("Understood, pet 8 stays."));
    send(&session, "Delete pet 8").await;
    session.wait_for("[data-confirm-call]").await;
    session.click_by_script("[data-answer=deny]").await;
    last_status(&session, "done").await;
    assert_eq!(
        pets.seen()
            .iter()
            .filter(|(method, _)| method == "DELETE")
            .count(),
        1,
        "a denied call never reaches the API"
    );
    let rows = last_tool_calls(&session).await;
    assert_eq!(rows[0][1], json!("denied"), "{rows}");
    let bodies = chat_bodies(&fixture);
    let last = tool_messages(bodies.last().unwrap());
    let denial = &last.last().unwrap().1;
    assert!(denial.contains("denied"), "{last:?}");
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .textContent.includes('Understood, pet 8 stays.')",
        )
        .await;

    // A call still waiting when the page reloads is denied, never run later.
    fixture.enqueue(Reply::text("").tool_call("deletePet", r#"{"petId": 9}"#));
    send(&session, "Delete pet 9").await;
    session.wait_for("[data-confirm-call]").await;
    reopen(&session).await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               ?.querySelector('.tool-call')?.dataset.status === 'denied'",
        )
        .await;
    assert!(
        !pets.seen().iter().any(|(_, path)| path == "/pet/9"),
        "the waiting call never ran"
    );
    session.finish().await;
}

#[tokio::test]
async fn a_call_waiting_in_one_tab_is_answered_from_another() {
    let pets = PetApi::start();
    let (fixture, session) = tool_session().await;
    install(&session, "openapi-url", &pets.description_url(), "OpenAPI").await;
    set_confirm_mode(&session, "destructive").await;
    session.close_settings().await;
    fixture.enqueue(Reply::text("").tool_call("deletePet", r#"{"petId": 11}"#));
    fixture.enqueue(Reply::text("Pet 11 was deleted."));
    send(&session, "Delete pet 11").await;
    session.wait_for("[data-confirm-call]").await;

    // A second tab shows the question of the reply the first tab writes; its answer is
    // the one the first tab acts on, and nothing runs before it.
    let (first, _second) = session.open_tab().await;
    session.open_app("/").await;
    open_latest(&session).await;
    session.wait_for("[data-confirm-call]").await;
    assert!(
        !pets.seen().iter().any(|(method, _)| method == "DELETE"),
        "nothing runs before the user answers"
    );
    session.click_by_script("[data-answer=once]").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               ?.textContent.includes('Pet 11 was deleted.')",
        )
        .await;
    last_status(&session, "done").await;
    assert_eq!(
        pets.seen()
            .iter()
            .filter(|(method, path)| method == "DELETE" && path == "/pet/11")
            .count(),
        1,
        "the writer ran the call once"
    );
    assert_eq!(last_tool_calls(&session).await[0][1], json!("done"));
    session
        .client
        .switch_to_window(first)
        .await
        .expect("back to the first tab");
    last_status(&session, "done").await;
    assert_eq!(last_tool_calls(&session).await[0][1], json!("done"));
    assert!(
        session
            .js(
                "return !document.querySelector('[data-confirm-call]')",
                vec![]
            )
            .await
            .as_bool()
            .unwrap_or(false),
        "the question is gone in the writer too"
    );
    session.finish().await;
}

#[tokio::test]
async fn a_model_that_keeps_calling_tools_gets_a_final_round_without_them() {
    let pets = PetApi::start();
    let (fixture, session) = tool_session().await;
    install(&session, "openapi-url", &pets.description_url(), "OpenAPI").await;
    session.close_settings().await;

    for round in 0..20 {
        fixture
            .enqueue(Reply::text("").tool_call("getPetById", format!(r#"{{"petId": {round}}}"#)));
    }
    fixture.enqueue(Reply::text(
        "I looked up 20 pets; the rest would need more calls.",
    ));
    send(&session, "Look up every pet").await;
    last_status(&session, "done").await;

    let bodies = chat_bodies(&fixture);
    assert_eq!(bodies.len(), 21, "20 rounds with tools, then one without");
    assert!(offered_tools(&bodies[19]).contains(&"getPetById".to_string()));
    let last = &bodies[20];
    assert!(
        offered_tools(last).is_empty(),
        "the final round offers no tools: {last}"
    );
    let system = last["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(system.contains("tool budget"), "{system}");
    // Offered no tools, the last round carries the calls and results as text (some
    // providers refuse tool messages in a request without tools).
    assert_eq!(tool_messages(&bodies[19]).len(), 19);
    let results: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .filter(|c| c.starts_with("[result of tool getPetById]"))
        .collect();
    assert_eq!(results.len(), 20, "{last}");
    assert!(results.iter().all(|r| r.contains("\"id\"")), "{results:?}");
    assert_eq!(
        pets.seen()
            .iter()
            .filter(|(_, path)| path.starts_with("/pet/"))
            .count(),
        20
    );
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .textContent.includes('I looked up 20 pets')",
        )
        .await;
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.tool-call').length",
                vec![]
            )
            .await,
        json!(20)
    );
    session.finish().await;
}

#[tokio::test]
async fn the_image_generator_draws_with_the_chosen_model_and_keeps_the_image() {
    let fixture = ProviderFixture::start().await;
    fixture.set_tool_models(true);
    fixture.set_models(vec!["fixture-small".into(), "gpt-image-1".into()]);
    let session = AppSession::open(1280, 900).await;
    prepare(&session, &fixture, None).await;
    session.open_settings_tab("tools").await;
    hearth_e2e::chat::switch_on_builtin(&session, "builtin:image-generator").await;
    let value = session
        .js(
            "return [...document.querySelectorAll('#image-model option')]
               .find((o) => o.textContent.startsWith('gpt-image-1')).value",
            vec![],
        )
        .await;
    session
        .wait_for("#image-model")
        .await
        .select_by_value(value.as_str().expect("gpt-image-1 is offered"))
        .await
        .expect("choose the image model");
    session
        .wait_until("document.getElementById('image-model').value.endsWith('gpt-image-1')")
        .await;
    session.close_settings().await;

    fixture
        .enqueue(Reply::text("").tool_call("generate_image", r#"{"prompt": "a red fox in snow"}"#));
    fixture.enqueue(Reply::text("Here is your fox."));
    send(&session, "Draw a fox").await;
    last_status(&session, "done").await;
    session
        .wait_until("document.querySelector('.stored-image__image')?.naturalWidth === 1")
        .await;
    // The provider got an Images API request in OpenAI's shape, with the user's model.
    let request = fixture
        .requests()
        .into_iter()
        .find(|r| r.method == "POST" && r.path == "/v1/images/generations")
        .expect("an Images API request");
    let body = request.json();
    assert_eq!(body["model"], json!("gpt-image-1"));
    assert_eq!(body["prompt"], json!("a red fox in snow"));
    assert!(body.get("response_format").is_none(), "{body}");
    // The model was told what was made.
    let bodies = chat_bodies(&fixture);
    let told = tool_messages(bodies.last().unwrap());
    assert!(told[0].1.contains("Generated 1 image"), "{told:?}");
    // The image is kept in the browser: it is still there after a reload.
    reopen(&session).await;
    session
        .wait_until("document.querySelector('.stored-image__image')?.naturalWidth === 1")
        .await;
    session.screenshot("tools-image").await;
    assert_eq!(stored_images(&session).await, 1);

    // Deleted, the reply can still come back with Undo, so its image stays; once a later
    // delete replaces that Undo, the image is removed.
    click_in_last(&session, "assistant", "Delete").await;
    session
        .wait_until("document.querySelectorAll('.message--assistant').length === 0")
        .await;
    assert_eq!(stored_images(&session).await, 1);
    click_in_last(&session, "user", "Delete").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 0")
        .await;
    for _ in 0..50 {
        if stored_images(&session).await == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(stored_images(&session).await, 0);
    session.finish().await;
}

/// How many files the app keeps in OPFS `images/`.
async fn stored_images(session: &Browser) -> u64 {
    session
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             (async () => {
               const root = await navigator.storage.getDirectory();
               let dir;
               try { dir = await root.getDirectoryHandle('images'); } catch { return 0; }
               let n = 0;
               for await (const _ of dir.keys()) n++;
               return n;
             })().then(done, () => done(-1));",
            vec![],
        )
        .await
        .expect("count the stored images")
        .as_u64()
        .expect("a count")
}

#[tokio::test]
async fn a_session_approval_skips_the_question_until_it_is_revoked() {
    let everything = mcp_everything();
    let (fixture, session) = tool_session().await;
    let mcp = install(&session, "mcp", &mcp_url(&everything), "MCP server").await;
    let echo = named(&mcp, "__echo");
    set_confirm_mode(&session, "side-effects").await;
    session.close_settings().await;

    // First call: it asks, and the user allows the function for the session.
    fixture.enqueue(Reply::text("").tool_call(&echo, r#"{"message": "one"}"#));
    fixture.enqueue(Reply::text("First done."));
    send(&session, "Echo one").await;
    session.wait_for("[data-answer=session]").await;
    session.click_by_script("[data-answer=session]").await;
    last_status(&session, "done").await;

    // Second call: no question.
    fixture.enqueue(Reply::text("").tool_call(&echo, r#"{"message": "two"}"#));
    fixture.enqueue(Reply::text("Second done."));
    send(&session, "Echo two").await;
    replies_done(&session, 2).await;
    assert_eq!(
        last_tool_calls(&session).await[0][1],
        json!("done"),
        "an approved function runs without asking"
    );

    // The approval is listed, and revoking it brings the question back.
    session.open_settings_tab("tools").await;
    let listed = session.text_of("#tools-approvals .approval-row").await;
    assert!(listed.contains(&echo), "{listed}");
    session
        .click_by_script("#tools-approvals .approval-row button")
        .await;
    session
        .wait_until("!document.getElementById('tools-approvals')")
        .await;
    session.close_settings().await;
    fixture.enqueue(Reply::text("").tool_call(&echo, r#"{"message": "three"}"#));
    fixture.enqueue(Reply::text("Third denied."));
    send(&session, "Echo three").await;
    session.wait_for("[data-confirm-call]").await;
    session.click_by_script("[data-answer=deny]").await;
    last_status(&session, "done").await;
    assert_eq!(last_tool_calls(&session).await[0][1], json!("denied"));
    session.finish().await;
}

#[tokio::test]
async fn tool_blocks_and_the_tools_tab_fit_a_phone_in_both_themes() {
    let pets = PetApi::start();
    // An MCP server too: its card has the most controls (List tools again, Remove).
    let mcp = mcp_revision_server(&["--only", "stateless"]);
    let (fixture, session) = tool_session().await;
    install(&session, "openapi-url", &pets.description_url(), "OpenAPI").await;
    install(&session, "mcp", &mcp_url(&mcp), "MCP server").await;
    session.close_settings().await;
    fixture.enqueue(
        Reply::text("").tool_call("getPetById", r#"{"petId": 7, "note": "a long argument value that is much wider than a phone screen and must wrap"}"#),
    );
    fixture.enqueue(Reply::text("Pet 7 is Rex."));
    send(&session, "Who is pet 7?").await;
    last_status(&session, "done").await;

    session.resize(360, 780).await;
    let sideways =
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth";
    for theme in ["light", "dark"] {
        open_latest_on_phone(&session, theme).await;
        session.wait_for(".tool-call").await;
        // Open the call's block: the arguments and the result must wrap, not widen the page.
        session.click_by_script(".tool-call__summary").await;
        session
            .wait_until("document.querySelector('.tool-call').open")
            .await;
        assert_eq!(
            session.js(sideways, vec![]).await,
            json!(0),
            "{theme}: the reply scrolls sideways"
        );
        session.screenshot(&format!("tools-phone-{theme}")).await;

        // The sidebar (and its Settings item) is in the closed drawer: use the deep link.
        session
            .js("location.hash = '#settings/tools'", vec![])
            .await;
        session.wait_for("#plugins-installed .plugin-card").await;
        let panel = session
            .js(
                "const p = document.getElementById('settings-panel');
                 return p.scrollWidth - p.clientWidth;",
                vec![],
            )
            .await;
        assert_eq!(panel, json!(0), "{theme}: the Tools tab scrolls sideways");
        session
            .screenshot(&format!("tools-settings-phone-{theme}"))
            .await;
        // The MCP card's controls stay inside the card.
        let overflow = session
            .js(
                "const card = document.querySelector('#plugins-installed [data-refresh-tools]').closest('.plugin-card');
                 card.scrollIntoView({block: 'center'});
                 const box = card.getBoundingClientRect();
                 return [...card.querySelectorAll('button, .switch')]
                   .filter((c) => { const r = c.getBoundingClientRect(); return r.left < box.left || r.right > box.right; })
                   .map((c) => c.textContent.trim());",
                vec![],
            )
            .await;
        assert_eq!(
            overflow,
            json!([]),
            "{theme}: controls outside the MCP card"
        );
        session
            .screenshot(&format!("tools-settings-phone-mcp-{theme}"))
            .await;
        session.close_settings().await;
    }
    session.finish().await;
}

#[tokio::test]
async fn stop_gives_up_a_slow_tool_call_at_once() {
    let everything = mcp_everything();
    let (fixture, session) = tool_session().await;
    let mcp = install(&session, "mcp", &mcp_url(&everything), "MCP server").await;
    let slow = named(&mcp, "__trigger_long_running_operation");
    session.close_settings().await;
    // A 60 s operation: far longer than any wait below.
    fixture.enqueue(Reply::text("").tool_call(&slow, r#"{"duration": 60, "steps": 2}"#));
    send(&session, "Run the slow one").await;
    session.wait_for(".tool-call[data-status=running]").await;
    // The operation runs for 60 s; the reply ends long before (the harness waits 15 s
    // at most), with the call given up rather than finished.
    session.click_by_script(".composer__stop").await;
    last_status(&session, "aborted").await;
    let rows = last_tool_calls(&session).await;
    assert_eq!(rows[0][1], json!("failed"), "{rows}");
    assert!(rows[0][2].as_str().unwrap().contains("stopped"), "{rows}");
    assert_eq!(chat_bodies(&fixture).len(), 1, "no round after the stop");
    session.finish().await;
}

#[tokio::test]
async fn the_built_in_web_page_reader_never_reads_the_users_own_machine() {
    // A page on this machine (as the user's router or a local model server would be):
    // the reader's URL is the model's choice, so the edge refuses it in local mode too,
    // and the model is told why instead of getting the page.
    let site = PetApi::start();
    let (fixture, session) = tool_session().await;
    // Built-ins are off until switched on: the first request offers no tools.
    fixture.enqueue(Reply::text("No tools here."));
    send(&session, "Anything?").await;
    last_status(&session, "done").await;
    assert!(offered_tools(&chat_bodies(&fixture)[0]).is_empty());

    session.open_settings_tab("tools").await;
    hearth_e2e::chat::switch_on_builtin(&session, "builtin:web-reader").await;
    session.close_settings().await;
    fixture.enqueue(Reply::text("").tool_call(
        "read_web_page",
        format!(r#"{{"url": "{}"}}"#, site.page_url()),
    ));
    fixture.enqueue(Reply::text("I cannot read pages on your own machine."));
    send(&session, "When is the pet shop open?").await;
    replies_done(&session, 2).await;
    let bodies = chat_bodies(&fixture);
    assert_eq!(offered_tools(&bodies[1]), ["read_web_page"]);
    let told = tool_messages(bodies.last().unwrap());
    let answer = &told[0].1;
    assert!(answer.contains("not allowed"), "{answer}");
    assert!(
        !answer.contains("every day") && !answer.contains("9 to 5"),
        "the page never reached the model: {answer}"
    );
    assert!(
        site.seen().iter().all(|(_, path)| path != "/about.html"),
        "nothing was fetched: {:?}",
        site.seen()
    );
    assert_eq!(last_tool_calls(&session).await[0][1], json!("failed"));
    // The edge's refusal (403 from the execute route) is the one console entry allowed.
    session
        .assert_no_console_errors_but(|m| m.contains("/api/plugins/execute") && m.contains("403"))
        .await;
    session.browser.close().await;
}

#[tokio::test]
async fn a_reply_without_its_plugin_list_says_so_and_still_answers() {
    let (fixture, session) = tool_session().await;
    // The edge's plugin list cannot be reached (as when the server is down).
    session.cdp("Network.enable", json!({})).await;
    session
        .cdp(
            "Network.setBlockedURLs",
            json!({"urls": ["*/api/plugins/list"]}),
        )
        .await;
    fixture.enqueue(Reply::text("Answered without tools."));
    send(&session, "Hello").await;
    last_status(&session, "done").await;
    session.wait_for_toast("runs without your plugins").await;
    assert!(offered_tools(&chat_bodies(&fixture)[0]).is_empty());
    session.finish().await;
}

#[tokio::test]
async fn tool_results_count_against_the_context_window_of_the_next_round() {
    let (fixture, session) = tool_session().await;
    let pets = PetApi::start();
    // A 2K window: a 20,000-character page (about 5,000 tokens) cannot go back to the model.
    session.open_settings_tab("models").await;
    session
        .click_by_script("button[aria-label='Edit fixture-small']")
        .await;
    for (field, value) in [("context", "2k"), ("output", "200")] {
        let input = session
            .wait_for(&format!("#model-fixture-small-{field}"))
            .await;
        input.clear().await.expect("clear");
        input.send_keys(value).await.expect("type");
    }
    session
        .click_by_script(".model-form button[type=submit]")
        .await;
    session
        .wait_until("!document.getElementById('model-fixture-small-context')")
        .await;
    // A REST tool whose answer (a pet with a long history) is far over that window.
    install(&session, "openapi-url", &pets.description_url(), "OpenAPI").await;
    session.close_settings().await;

    fixture.enqueue(Reply::text("").tool_call(
        "getPetById",
        format!(r#"{{"petId": {}}}"#, PetApi::LONG_PET),
    ));
    fixture.enqueue(Reply::text("never sent"));
    send(&session, "Read the pet's diary").await;
    last_status(&session, "error").await;
    // The call ran and is kept; the next round was refused before it was sent.
    assert_eq!(last_tool_calls(&session).await[0][1], json!("done"));
    assert_eq!(chat_bodies(&fixture).len(), 1, "no request past the budget");
    let status = session
        .text_of(".message--assistant .status-block--error")
        .await;
    assert!(status.contains("CONTEXT_BUDGET_EXCEEDED"), "{status}");
    session.finish().await;
}

#[tokio::test]
async fn a_header_the_edge_would_refuse_is_named_under_its_field_and_nothing_is_sent() {
    let session = AppSession::open(1280, 900).await;
    session.open_settings_tab("tools").await;
    session
        .wait_for("#plugin-install-url")
        .await
        .send_keys("https://example.com/mcp")
        .await
        .expect("url");
    session
        .wait_for("#plugin-install-headers")
        .await
        .send_keys("X-Workspace: team-a\nX-Api-Key: k")
        .await
        .expect("headers");
    session.click_by_script("#plugin-install-submit").await;
    session
        .wait_until(
            "document.getElementById('plugin-install-headers-error').textContent.includes('Line 2: X-Api-Key looks like a credential')
             && document.getElementById('plugin-install-headers').getAttribute('aria-invalid') === 'true'
             && document.activeElement.id === 'plugin-install-headers'",
        )
        .await;

    // The token's header cannot be Authorization (no name means the bearer scheme).
    session
        .js(
            "const headers = document.getElementById('plugin-install-headers');
             headers.value = '';
             headers.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![],
        )
        .await;
    session
        .wait_for("#plugin-install-auth-header")
        .await
        .send_keys("Authorization")
        .await
        .expect("auth header");
    session.click_by_script("#plugin-install-submit").await;
    session
        .wait_until(
            "document.getElementById('plugin-install-auth-header-error').textContent.includes('cannot go in Authorization')
             && document.getElementById('plugin-install-headers-error').textContent === ''",
        )
        .await;
    // Nothing reached the edge: no install, no error from it.
    assert_eq!(
        session
            .js(
                "return document.getElementById('plugin-install-error').textContent",
                vec![]
            )
            .await,
        json!("")
    );
    session.finish().await;
}

#[tokio::test]
async fn a_server_whose_tools_change_is_listed_again_before_the_next_reply_and_on_request() {
    // The server says its tool list keeps no time: it is listed again before each reply.
    let changing = mcp_revision_server(&["--only", "stateless", "--list-ttl-ms", "0"]);
    let (fixture, session) = tool_session().await;
    let before = install(&session, "mcp", &mcp_url(&changing), "MCP server").await;
    let (add, echo) = (named(&before, "__add"), named(&before, "__echo"));
    assert!(
        !before.iter().any(|f| f.ends_with("__multiply")),
        "{before:?}"
    );
    session.close_settings().await;

    // While the page is open the server gains `multiply` and loses `echo`.
    let client = reqwest::Client::new();
    for hook in ["add-tool", "remove-tool"] {
        let url = format!("http://127.0.0.1:{}/test/{hook}", changing.port);
        assert!(client.post(url).send().await.unwrap().status().is_success());
    }
    fixture.enqueue(Reply::text("Ready."));
    send(&session, "What can you do now?").await;
    last_status(&session, "done").await;
    session
        .wait_for_toast("changed its tools: 1 new, 1 gone")
        .await;
    let first = offered_tools(&chat_bodies(&fixture)[0]);
    let multiply = named(&first, "__multiply");
    assert!(
        first.contains(&add),
        "a tool it had keeps its name: {first:?}"
    );
    assert!(
        !first.contains(&echo),
        "a tool it dropped is not offered: {first:?}"
    );

    // The model calls the new tool, through the edge, with the fingerprint just listed.
    fixture.enqueue(Reply::text("").tool_call(&multiply, r#"{"a": 6, "b": 7}"#));
    fixture.enqueue(Reply::text("6 × 7 = 42."));
    send(&session, "Multiply 6 by 7.").await;
    replies_done(&session, 2).await;
    let rows = last_tool_calls(&session).await;
    assert_eq!(rows[0][0], json!(multiply), "{rows}");
    assert_eq!(rows[0][1], json!("done"), "{rows}");
    assert!(rows[0][2].as_str().unwrap().contains("42"), "{rows}");

    // Settings shows the new list, and "List tools again" says nothing changed.
    session.open_settings_tab("tools").await;
    session
        .wait_until(&format!(
            "!!document.querySelector('#plugins-installed [data-function={}]')
               && !document.querySelector('#plugins-installed [data-function={}]')",
            json!(multiply),
            json!(echo)
        ))
        .await;
    session
        .click_by_script("#plugins-installed [data-refresh-tools]")
        .await;
    session.wait_for_toast("tools are as they were").await;
    // Install, once before each of the two replies (the second reply's rounds use the
    // list in hand), and the button.
    let seen = peer_stats(changing.port).await;
    assert_eq!(seen["tools/list"], 4, "{seen}");
    assert_eq!(seen["tools/call"], 1, "{seen}");

    // A server gone: the button says why, and the list stays as it was.
    drop(changing);
    session
        .click_by_script("#plugins-installed [data-refresh-tools]")
        .await;
    session
        .wait_for_toast("Could not list the tools again: The MCP server could not be reached")
        .await;
    assert!(
        session
            .js(
                "return !!document.querySelector('#plugins-installed [data-function=' + JSON.stringify(arguments[0]) + ']')",
                vec![json!(multiply)]
            )
            .await
            .as_bool()
            .unwrap()
    );
    session
        .js(
            "document.querySelector('#plugins-installed [data-refresh-tools]').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await;
    session.screenshot("tools-listed-again").await;
    // The browser logs the edge's 502 for the server gone; nothing else may be logged.
    session
        .assert_no_console_errors_but(|m| m.contains("/api/plugins/refresh") && m.contains("502"))
        .await;
    session.browser.close().await;
}

#[tokio::test]
async fn a_server_that_hangs_while_its_tools_are_listed_again_does_not_hold_the_reply() {
    let hanging = mcp_revision_server(&["--only", "stateless", "--list-ttl-ms", "0"]);
    let (fixture, session) = tool_session().await;
    let installed = install(&session, "mcp", &mcp_url(&hanging), "MCP server").await;
    let add = named(&installed, "__add");
    session.close_settings().await;
    let url = format!("http://127.0.0.1:{}/test/hang-lists", hanging.port);
    let client = reqwest::Client::new();
    assert!(client.post(url).send().await.unwrap().status().is_success());

    // The list is due, the server does not answer it (for two minutes, past the edge's
    // deadline and past this wait): the reply goes on with the tools in hand.
    fixture.enqueue(Reply::text("Answered with the tools I had."));
    send(&session, "Still there?").await;
    last_status(&session, "done").await;
    assert!(offered_tools(&chat_bodies(&fixture)[0]).contains(&add));
    let seen = peer_stats(hanging.port).await;
    assert_eq!(
        seen["tools/list"], 2,
        "install, and the one still waiting: {seen}"
    );
    // The next reply does not ask again while that listing is still out.
    fixture.enqueue(Reply::text("Still answering."));
    send(&session, "And now?").await;
    replies_done(&session, 2).await;
    let seen = peer_stats(hanging.port).await;
    assert_eq!(
        seen["tools/list"], 2,
        "no second listing while one is out: {seen}"
    );
    session.finish().await;
}

/// The `thoughtSignature` of each function call a Gemini body sends back, in order
/// (empty where a call has none).
fn call_signatures(body: &Value) -> Vec<String> {
    body["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|content| content["parts"].as_array().into_iter().flatten())
        .filter(|part| part.get("functionCall").is_some())
        .map(|part| {
            part["thoughtSignature"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Gemini 3 refuses a request whose current turn sends a function call back without the
/// `thoughtSignature` it came with (the fixture does too, with Gemini's 400): the
/// signature is kept with the call, sent back in the next round and, stored with the
/// reply, in the history of later questions.
#[tokio::test]
async fn a_gemini_calls_signature_goes_back_with_it_in_every_later_request() {
    let pets = PetApi::start();
    let fixture = ProviderFixture::start().await;
    let session = AppSession::open(1280, 900).await;
    hearth_e2e::chat::prepare_gemini(&session, &fixture).await;
    // Gemini's listing says nothing of tools: the user says the model takes them.
    hearth_e2e::chat::say_model_takes(&session, "fixture-small", "tools").await;
    install(&session, "openapi-url", &pets.description_url(), "OpenAPI").await;
    session.close_settings().await;

    fixture.enqueue(
        Reply::text("Let me look.")
            .tool_call("getPetById", r#"{"petId": 7}"#)
            .tool_call("getPetById", r#"{"petId": 8}"#),
    );
    fixture.enqueue(Reply::text("Pet 7 is Rex and pet 8 is Tom."));
    send(&session, "Who are pets 7 and 8?").await;
    last_status(&session, "done").await;
    let bodies = hearth_e2e::chat::gemini_bodies(&fixture);
    assert_eq!(
        bodies.len(),
        2,
        "a refused round would be a third: {bodies:?}"
    );
    assert_eq!(
        call_signatures(&bodies[1]),
        ["Zml4dHVyZS1zaWduYXR1cmU=", ""],
        "the first call's signature, as it came"
    );

    // Stored with the reply: after a reload, the next question's history carries it.
    reopen(&session).await;
    fixture.enqueue(Reply::text("Both are cats."));
    send(&session, "What are they?").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)?.textContent.includes('Both are cats.')",
        )
        .await;
    let bodies = hearth_e2e::chat::gemini_bodies(&fixture);
    assert_eq!(bodies.len(), 3);
    assert_eq!(
        call_signatures(&bodies[2]),
        ["Zml4dHVyZS1zaWduYXR1cmU=", ""]
    );
    session.finish().await;
}
