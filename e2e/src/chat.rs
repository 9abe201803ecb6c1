//! Driving the chat in tests and benchmarks: a session with a provider pointing at the
//! [`ProviderFixture`], sending, waiting for a reply's status, reading the active path.

use fantoccini::key::Key;
use hearth_core::provider::Protocol;
use serde_json::{Value, json};

use crate::provider_fixture::ProviderFixture;
use crate::{AppSession, Browser};

/// The last reply's tool calls, as `[name, status, result or error]` rows.
pub async fn last_tool_calls(session: &Browser) -> Value {
    session
        .js(
            "const m = [...document.querySelectorAll('.message--assistant')].at(-1);
             return [...m.querySelectorAll('.tool-call')].map((c) => [
               c.querySelector('.tool-call__name').textContent,
               c.dataset.status,
               c.querySelector('.tool-call__code--error, .tool-call__code:last-of-type')?.textContent ?? '',
             ]);",
            vec![],
        )
        .await
}

/// Sends `text` and waits until its own reply is done: the last message is a reply
/// that is done and the one before it says `text`. (Counting messages is not enough: a
/// reload reopens the conversation, whose earlier messages may arrive after the count.)
pub async fn ask(session: &AppSession, text: &str) {
    send(session, text).await;
    session
        .wait_until(&format!(
            "(() => {{
               const messages = [...document.querySelectorAll('.message')];
               const [question, reply] = messages.slice(-2);
               return reply?.classList.contains('message--assistant') &&
                 reply.dataset.status === 'done' &&
                 question?.classList.contains('message--user') &&
                 question.textContent.includes({});
             }})()",
            json!(text)
        ))
        .await;
}

/// The active path as `[role, status, text]` rows.
pub const MESSAGES: &str = "return [...document.querySelectorAll('.message')].map((m) => [
  m.classList.contains('message--user') ? 'user' : 'assistant',
  m.dataset.status,
  (m.querySelector('.message__text, .markdown')?.textContent ?? '').trim(),
]);";

/// In Settings › Providers (already open), adds an OpenAI-compatible provider named
/// `name` at `base_url`, with `key` if given, and waits for its row.
pub async fn add_compatible_provider(
    session: &AppSession,
    name: &str,
    base_url: &str,
    key: Option<&str>,
) {
    add_provider(session, "compatible", name, base_url, key).await;
}

/// In Settings › Providers (already open), adds a provider of `kind` (its form value:
/// `gemini`, `openai-responses`, …) named `name` at `base_url`, with `key` if given, and
/// waits for its row.
pub async fn add_provider(
    session: &AppSession,
    kind: &str,
    name: &str,
    base_url: &str,
    key: Option<&str>,
) {
    session.click("#provider-add").await;
    session
        .wait_for("#provider-kind")
        .await
        .select_by_value(kind)
        .await
        .expect("kind");
    let url = session.wait_for("#provider-base-url").await;
    url.clear().await.expect("clear url");
    url.send_keys(base_url).await.expect("url");
    session
        .wait_for("#provider-name")
        .await
        .send_keys(name)
        .await
        .expect("name");
    if let Some(key) = key {
        session
            .wait_for("#provider-api-key")
            .await
            .send_keys(key)
            .await
            .expect("key");
    }
    session.click("#provider-save").await;
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('.provider-row__name')].some(e => e.textContent === '{name}')"
        ))
        .await;
}

/// Opens the app with one OpenAI-compatible provider pointing at `fixture`, its models
/// fetched, and the settings closed.
pub async fn ready(fixture: &ProviderFixture) -> AppSession {
    let session = AppSession::open(1280, 900).await;
    prepare(&session, fixture, None).await;
    session
}

/// In an open app: adds an OpenAI-compatible provider pointing at `fixture` (with `key`
/// if given), fetches its models, closes the settings and picks `fixture-small`.
pub async fn prepare(session: &AppSession, fixture: &ProviderFixture, key: Option<&str>) {
    session.open_settings_tab("providers").await;
    add_compatible_provider(
        session,
        "Fixture",
        &fixture.base_url(Protocol::OpenAiChat),
        key,
    )
    .await;
    fetch_models(session).await;
    choose_model(session, "fixture-small").await;
}

/// Adds the fixture as a Gemini provider (Settings › Providers), fetches its models and
/// picks its `fixture-small` (Gemini's listing names its models: the option's value
/// ends with the id).
pub async fn prepare_gemini(session: &AppSession, fixture: &ProviderFixture) {
    session.open_settings_tab("providers").await;
    add_provider(
        session,
        "gemini",
        "Gem",
        &fixture.base_url(Protocol::Gemini),
        Some("gem-key"),
    )
    .await;
    fetch_models(session).await;
    session
        .js(
            "const picker = document.getElementById('composer-model');
             picker.value = [...picker.options].find((o) => o.value.endsWith('fixture-small')).value;
             picker.dispatchEvent(new Event('change', { bubbles: true }));",
            vec![],
        )
        .await;
}

/// In Settings › Models: the user says `model` takes `flag` (`tools`, `vision`, …), saves,
/// and closes the settings.
pub async fn say_model_takes(session: &AppSession, model: &str, flag: &str) {
    session.open_settings_tab("models").await;
    session
        .wait_for(&format!(".model-row[data-model={model}]"))
        .await;
    session
        .click_by_script(&format!("button[aria-label='Edit {model}']"))
        .await;
    session
        .wait_for(&format!("#model-{model}-flag-{flag}"))
        .await
        .select_by_value("yes")
        .await
        .expect("the flag's choice");
    session
        .click_by_script(".model-form button[type=submit]")
        .await;
    session
        .wait_until(&format!(
            "!document.getElementById('model-{model}-context')"
        ))
        .await;
    session.close_settings().await;
}

/// In Settings › Providers (open, with one provider): fetches its models (the fixture
/// lists two) and closes the settings.
pub async fn fetch_models(session: &AppSession) {
    session.click("[data-models]").await;
    session
        .wait_until(
            "/^Models: [1-9]/.test(document.querySelector('[data-testid=model-count]')?.textContent ?? '')",
        )
        .await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog')?.open")
        .await;
}

/// Picks `model` the way a user does: from the composer's model menu.
pub async fn choose_model(session: &AppSession, model: &str) {
    let picker = session.wait_for("#composer-model").await;
    let value = session
        .js(
            "return [...document.querySelectorAll('#composer-model option')]
               .find((o) => o.textContent === arguments[0])?.value",
            vec![json!(model)],
        )
        .await;
    picker
        .select_by_value(value.as_str().expect("the model is offered"))
        .await
        .expect("choose the model");
    session
        .wait_until(&format!(
            "document.getElementById('composer-model').value.endsWith({})",
            json!(model)
        ))
        .await;
}

/// Selects the option of `<select id>` whose text is `text`, and waits until it holds.
pub async fn choose_option(session: &AppSession, id: &str, text: &str) {
    let value = session
        .js(
            "return [...document.querySelectorAll(`#${arguments[0]} option`)]
               .find((o) => o.textContent === arguments[1])?.value ?? null",
            vec![json!(id), json!(text)],
        )
        .await;
    let value = value.as_str().expect("the option exists");
    session
        .wait_for(&format!("#{id}"))
        .await
        .select_by_value(value)
        .await
        .expect("choose");
    session
        .wait_until(&format!(
            "document.getElementById({}).value === {}",
            json!(id),
            json!(value)
        ))
        .await;
}

/// In Settings › Tools (open), switches the built-in plugin `id` on (by script: a
/// toast may cover the switch) and waits until it is on.
pub async fn switch_on_builtin(session: &AppSession, id: &str) {
    let switch = format!("#plugins-builtin [data-plugin-id='{id}'] [data-plugin-switch]");
    session.click_by_script(&switch).await;
    session
        .wait_until(&format!(
            "document.querySelector({}).checked",
            json!(switch)
        ))
        .await;
}

/// The stored conversation records, as JSON.
pub async fn stored_conversations(session: &crate::Browser) -> Vec<Value> {
    stored_records(session, "conversations").await
}

/// Every record of the database's object store `store`, as JSON.
pub async fn stored_records(session: &crate::Browser, store: &str) -> Vec<Value> {
    let found = session
        .js_async(
            "const [store, done] = arguments;
             const open = indexedDB.open('hearth');
             open.onsuccess = () => {
               const all = open.result.transaction(store).objectStore(store).getAll();
               all.onsuccess = () => { open.result.close(); done(all.result); };
             };",
            vec![json!(store)],
        )
        .await;
    found.as_array().cloned().unwrap_or_default()
}

/// Types `text` into the composer and presses Enter.
pub async fn send(session: &AppSession, text: &str) {
    let input = session.wait_for("#composer-input").await;
    input.send_keys(text).await.expect("type");
    session.press(&[Key::Enter]).await;
}

/// The active path as `[role, status, text]` rows.
pub async fn messages(session: &AppSession) -> Value {
    session.js(MESSAGES, vec![]).await
}

/// Waits until the last message has `status` (`done`, `streaming`, `error`, …).
pub async fn last_status(session: &AppSession, status: &str) {
    last_status_within(session, status, crate::browser::WAIT).await;
}

/// [`last_status`] with its own bound (see `Browser::wait_until_within`).
pub async fn last_status_within(session: &AppSession, status: &str, bound: std::time::Duration) {
    session
        .wait_until_within(
            &format!(
                "[...document.querySelectorAll('.message')].at(-1)?.dataset.status === '{status}'"
            ),
            bound,
        )
        .await;
}

/// Clicks the button labelled `label` in the last message of `role`.
pub async fn click_in_last(session: &AppSession, role: &str, label: &str) {
    let clicked = session
        .js(
            "const m = [...document.querySelectorAll('.message--' + arguments[0])].at(-1);
             const b = [...m.querySelectorAll('button')].find((b) =>
               b.getAttribute('aria-label') === arguments[1] || b.textContent.trim() === arguments[1]);
             if (!b) return false; b.click(); return true;",
            vec![json!(role), json!(label)],
        )
        .await;
    assert_eq!(
        clicked,
        json!(true),
        "no `{label}` button on the last {role} message"
    );
}

/// The names of the tools a chat request body offers (OpenAI chat shape).
pub fn offered_tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect()
}

/// The system prompt of a chat request body (empty without one).
pub fn system_of(body: &Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "system"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// The composer's text.
pub async fn composer_text(session: &AppSession) -> String {
    session
        .js(
            "return document.getElementById('composer-input').value",
            vec![],
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Types `text` into the composer (without sending).
pub async fn type_in_composer(session: &AppSession, text: &str) {
    let input = session.wait_for("#composer-input").await;
    input.click().await.expect("focus the composer");
    input.send_keys(text).await.expect("type");
}

/// The body of every chat request (`…/chat/completions`) the fixture received, oldest
/// first.
pub fn chat_bodies(fixture: &ProviderFixture) -> Vec<Value> {
    fixture
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .map(|r| r.json())
        .collect()
}

/// The request bodies of every Gemini chat call the fixture received.
pub fn gemini_bodies(fixture: &ProviderFixture) -> Vec<Value> {
    fixture
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.contains(":streamGenerateContent"))
        .map(|r| r.json())
        .collect()
}

/// The last user text of every chat request the fixture received.
pub fn user_texts(fixture: &ProviderFixture) -> Vec<String> {
    fixture
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .map(|r| {
            let body = r.json();
            let messages = body["messages"].as_array().cloned().unwrap_or_default();
            messages
                .iter()
                .rev()
                .find(|m| m["role"] == "user")
                .map(message_text)
                .unwrap_or_default()
        })
        .collect()
}

/// The text of an OpenAI-style request message: its content string, or its first part's.
pub fn message_text(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        parts => parts[0]["text"].as_str().unwrap_or_default().to_string(),
    }
}

/// Opens the most recent conversation from the sidebar.
pub async fn open_latest(session: &Browser) {
    session.click(".conversation-item__open").await;
}

/// Reloads the app in `theme` (`light` or `dark`).
pub async fn reload_in_theme(session: &Browser, theme: &str) {
    session
        .js(
            "localStorage.setItem('hearth.theme', arguments[0])",
            vec![json!(theme)],
        )
        .await;
    session.reload_app().await;
}

/// At phone width, in `theme`: reloads the app, opens the most recent conversation from
/// the drawer and waits until the drawer has slid away again.
pub async fn open_latest_on_phone(session: &Browser, theme: &str) {
    reload_in_theme(session, theme).await;
    // The drawer holds the conversation list at phone width.
    session.click("#drawer-toggle").await;
    // The drawer slides in; its items take clicks once it is shown.
    session
        .wait_until(
            "getComputedStyle(document.getElementById('sidebar')).visibility === 'visible' && \
             document.querySelector('.conversation-item__open')?.getBoundingClientRect().left >= 0",
        )
        .await;
    session.click_by_script(".conversation-item__open").await;
    // Opening a conversation closes the drawer; wait for it to finish sliding away.
    session
        .wait_until("getComputedStyle(document.getElementById('sidebar')).visibility === 'hidden'")
        .await;
}

/// Opens the last reply's menu.
pub async fn open_reply_menu(session: &AppSession) {
    session
        .js(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelector('.message__actions .menu-anchor > button').click();",
            vec![],
        )
        .await;
}

/// Opens the last reply's menu and chooses `item`.
pub async fn reply_menu(session: &AppSession, item: &str) {
    open_reply_menu(session).await;
    choose_menu_item(session, item).await;
}

/// Chooses `item` of the open menu.
pub async fn choose_menu_item(session: &AppSession, item: &str) {
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('.menu__item')].some((i) => i.textContent.trim() === {})",
            json!(item)
        ))
        .await;
    session
        .js(
            "[...document.querySelectorAll('.menu__item')].find((i) => i.textContent.trim() === arguments[0]).click()",
            vec![json!(item)],
        )
        .await;
}

/// The last reply's details as `[name, value]` rows: opened, read once they show (and
/// the row named `row`, when given, which may come later), and closed again.
pub async fn last_details(session: &AppSession, row: Option<&str>) -> Vec<Value> {
    click_in_last(session, "assistant", "Details").await;
    let rows = "[...[...document.querySelectorAll('.message--assistant')].at(-1)
                 .querySelectorAll('.message__details dt')]";
    session
        .wait_until(&match row {
            Some(name) => format!("{rows}.some((dt) => dt.textContent === {})", json!(name)),
            None => format!("{rows}.length > 0"),
        })
        .await;
    let read: Value = session
        .js(
            &format!(
                "return {rows}.map((dt) => [dt.textContent, dt.nextElementSibling.textContent]);"
            ),
            vec![],
        )
        .await;
    click_in_last(session, "assistant", "Details").await;
    read.as_array().cloned().unwrap_or_default()
}
