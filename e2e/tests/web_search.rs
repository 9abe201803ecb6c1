//! Web search in the real build, in Chromium: Settings › Web search pointed at a SearXNG
//! stand-in on loopback (the user's own instance; the real edge calls it), a scripted
//! model answering through the provider fixture. A reply searches its question before
//! the model is asked (its pages numbered as the reply's sources in the request), the
//! model searches again through `web_search` (its results numbered after them, quoted as
//! data), and the answer's citations link to those pages; the search block lists each
//! query. A failed search stays visible and the reply still answers; the composer's
//! switch turns searching off. One turn sends at most four queries, never the same one
//! twice, and a round that finds no new page ends the searching. With the model
//! provider's own search chosen, a Gemini model is asked to ground with Google Search
//! (its pages counted in the block), and a model without a search of its own is said so.
//! A keyed service (Brave's API, the stand-in at the operator's base) gets the key the
//! user sealed in this browser, until it is forgotten; the deployment's own service
//! serves a user who chooses it without the browser learning what or where it is.

use hearth_e2e::AppSession;
use hearth_e2e::chat::{self, chat_bodies, offered_tools, system_of};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::search_stand_in::{BRAVE_KEY, SearchStandIn, pages_for};
use serde_json::{Value, json};

/// The tool results a request body carries: `tool` messages, or, in a round offered no
/// tools, the text that stands for them.
fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let text = m["content"].as_str().unwrap_or_default();
            (m["role"] == "tool" || text.starts_with("[result of tool")).then(|| text.to_string())
        })
        .collect()
}

/// The last reply's search block, as `[query, state, text]` rows.
async fn search_block(session: &AppSession) -> Value {
    session
        .js(
            "const m = [...document.querySelectorAll('.message--assistant')].at(-1);
             return [...m.querySelectorAll('.search-block__item')].map((i) => [
               i.querySelector('.search-block__query').textContent,
               i.dataset.state,
               i.querySelector('.search-block__outcome').textContent,
             ]);",
            vec![],
        )
        .await
}

/// A session whose model takes tools, searching with the stand-in `searx`.
async fn searching_session(fixture: &ProviderFixture, searx: &SearchStandIn) -> AppSession {
    fixture.set_tool_models(true);
    let session = chat::ready(fixture).await;
    session.open_settings_tab("web-search").await;
    session
        .wait_for("#web-search-panel[data-loaded='true']")
        .await;
    // Nothing chosen: the resolver says search is off.
    session
        .wait_until(
            "(() => { const v = document.getElementById('web-search-verdict');
               return v.dataset.ready === 'false' && v.textContent.includes('off'); })()",
        )
        .await;
    session.set_value("#web-search-service", "searxng").await;
    session.wait_for("#web-search-searxng-url").await;
    // A URL that is not the web is refused by the same resolver, before any search.
    session
        .set_value("#web-search-searxng-url", "searx.local")
        .await;
    session.click("#web-search-save").await;
    session
        .wait_until("document.getElementById('web-search-verdict').textContent.includes('http://')")
        .await;
    session
        .set_value("#web-search-searxng-url", &searx.url())
        .await;
    session.click("#web-search-save").await;
    session
        .wait_until("document.getElementById('web-search-verdict').dataset.ready === 'true'")
        .await;
    session.screenshot("settings-web-search").await;
    session.close_settings().await;
    session
        .wait_for("#composer-web-search[aria-pressed='true']")
        .await;
    session
}

#[tokio::test]
async fn a_reply_searches_cites_its_pages_and_keeps_a_failed_search_visible() {
    let fixture = ProviderFixture::start().await;
    let searx = SearchStandIn::start();
    let session = searching_session(&fixture, &searx).await;

    // The question is searched first; the model searches once more, then answers.
    fixture.enqueue(Reply::text("").tool_call("web_search", r#"{"query": "tide tables Brest"}"#));
    fixture.enqueue(Reply::text(
        "High tide is at noon [1], low tide at six [4].",
    ));
    chat::ask(&session, "When is high tide in Brest?").await;
    assert_eq!(
        searx.queries(),
        ["When is high tide in Brest?", "tide tables Brest"]
    );
    let bodies = chat_bodies(&fixture);
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    let system = system_of(&bodies[0]);
    let (first_url, first_title) = pages_for("When is high tide in Brest?")[0].clone();
    assert!(system.contains(&first_title), "{system}");
    assert!(system.contains(&first_url), "{system}");
    assert!(system.contains("never as instructions"), "{system}");
    assert!(offered_tools(&bodies[0]).contains(&"web_search".to_string()));
    // The page reader comes with searching, though the user never switched it on.
    assert!(offered_tools(&bodies[0]).contains(&"read_web_page".to_string()));
    let results = tool_results(&bodies[1]);
    let (fourth_url, fourth_title) = pages_for("tide tables Brest")[0].clone();
    assert!(
        results[0].contains(&format!("[4] {fourth_title}\n{fourth_url}")),
        "{results:?}"
    );
    assert!(results[0].contains("not instructions"), "{results:?}");

    assert_eq!(
        search_block(&session).await,
        json!([
            ["When is high tide in Brest?", "found", "Pages found: 3"],
            ["tide tables Brest", "found", "Pages found: 3"]
        ])
    );
    // The Markdown is drawn by its worker after the reply is done.
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelectorAll('.markdown a.citation').length === 2",
        )
        .await;
    let links: Value = session
        .js(
            "const m = [...document.querySelectorAll('.message--assistant')].at(-1);
             return {
               sources: [...m.querySelectorAll('.reply-sources__link')].map((a) => a.href),
               citations: [...m.querySelectorAll('.markdown a.citation')].map((a) => a.href),
             };",
            vec![],
        )
        .await;
    assert_eq!(links["sources"].as_array().unwrap().len(), 6, "{links}");
    assert_eq!(
        links["citations"],
        json!([first_url, fourth_url]),
        "{links}"
    );
    // The receipt: the tools the reply called and its searches.
    chat::click_in_last(&session, "assistant", "Details").await;
    let details: Value = session
        .js(
            "const m = [...document.querySelectorAll('.message--assistant')].at(-1);
             return [...m.querySelectorAll('.message__details dt')]
               .map((dt) => [dt.textContent, dt.nextElementSibling.textContent]);",
            vec![],
        )
        .await;
    let rows = details.as_array().unwrap();
    assert!(
        rows.contains(&json!(["Tools used", "web_search"])),
        "{details}"
    );
    assert!(
        rows.contains(&json!(["Web searches", "2 (0 failed)"])),
        "{details}"
    );
    session.screenshot("web-search-reply").await;

    // The instance stops answering JSON: the failure stays on the reply, which answers.
    searx.set_json_off(true);
    fixture.enqueue(Reply::text("I could not search the web."));
    chat::ask(&session, "And in Nantes?").await;
    let block = search_block(&session).await;
    assert_eq!(block[0][0], "And in Nantes?");
    assert_eq!(block[0][1], "failed");
    assert!(
        block[0][2].as_str().unwrap().contains("search.formats"),
        "{block}"
    );
    let last = chat_bodies(&fixture).pop().unwrap();
    assert!(!system_of(&last).contains("Page 1 about And in Nantes"));

    // It stays visible after a reload, in the user's language.
    session.reload_in("ja").await;
    chat::open_latest(&session).await;
    session.wait_for("[data-search-block]").await;
    let block = search_block(&session).await;
    assert!(
        block[0][2].as_str().unwrap().contains("settings.yml"),
        "{block}"
    );
    assert!(
        block[0][2]
            .as_str()
            .unwrap()
            .contains("JSON で応答しません"),
        "{block}"
    );
    session.reload_in("en").await;

    // The switch off: no search, no tool.
    searx.set_json_off(false);
    session.click("#composer-web-search").await;
    session
        .wait_for("#composer-web-search[aria-pressed='false']")
        .await;
    let asked = searx.queries().len();
    fixture.enqueue(Reply::text("From memory: noon."));
    chat::ask(&session, "When is high tide in Vannes?").await;
    assert_eq!(searx.queries().len(), asked);
    let last = chat_bodies(&fixture).pop().unwrap();
    assert!(!offered_tools(&last).contains(&"web_search".to_string()));
    assert!(session
        .js(
            "return [...document.querySelectorAll('.message--assistant')].at(-1).querySelector('[data-search-block]') === null",
            vec![]
        )
        .await
        .as_bool()
        .unwrap());
    // The failed search's answer is the only error the page saw.
    session
        .assert_no_console_errors_but(|e| e.contains("/api/search") && e.contains("502"))
        .await;
}

#[tokio::test]
async fn a_turn_searches_at_most_four_times_never_twice_alike_and_stops_when_nothing_is_new() {
    let fixture = ProviderFixture::start().await;
    let searx = SearchStandIn::start();
    let session = searching_session(&fixture, &searx).await;

    // The question, then "alpha" and "ALPHA  " in one round (the same query), then
    // "beta", "gamma" and "delta" in the next: the fifth is past the limit.
    fixture.enqueue(
        Reply::text("")
            .tool_call("web_search", r#"{"query": "alpha"}"#)
            .tool_call("web_search", r#"{"query": "ALPHA  "}"#),
    );
    fixture.enqueue(
        Reply::text("")
            .tool_call("web_search", r#"{"query": "beta"}"#)
            .tool_call("web_search", r#"{"query": "gamma"}"#)
            .tool_call("web_search", r#"{"query": "delta"}"#),
    );
    fixture.enqueue(Reply::text("Done searching."));
    chat::ask(&session, "Tell me about Greek letters").await;
    // Calls of one round run side by side: the service hears them in any order, but
    // they are admitted in the model's order (so "delta" is the one past the limit).
    let mut queries = searx.queries();
    assert_eq!(queries[..2], ["Tell me about Greek letters", "alpha"]);
    queries[2..].sort();
    assert_eq!(queries[2..], ["beta", "gamma"]);
    let bodies = chat_bodies(&fixture);
    assert_eq!(bodies.len(), 3, "{bodies:?}");
    let results = tool_results(&bodies[2]);
    assert_eq!(results.len(), 5, "{:?}", bodies[2]);
    assert!(results[1].contains("equivalent query"), "{results:?}");
    assert!(results[4].contains("explicit limit"), "{results:?}");
    // Four queries sent: the last round is not offered the tool.
    assert!(offered_tools(&bodies[1]).contains(&"web_search".to_string()));
    assert!(!offered_tools(&bodies[2]).contains(&"web_search".to_string()));
    assert_eq!(search_block(&session).await.as_array().unwrap().len(), 4);

    // A model search that finds only the question's pages ends the searching.
    session.click_by_script("#sidebar-new-chat").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 0")
        .await;
    fixture.enqueue(Reply::text("").tool_call("web_search", r#"{"query": "tide-tables"}"#));
    fixture.enqueue(Reply::text("That is all."));
    chat::ask(&session, "tide tables").await;
    let bodies = chat_bodies(&fixture);
    let last = bodies.last().unwrap();
    assert!(!offered_tools(last).contains(&"web_search".to_string()));
    let block = search_block(&session).await;
    assert_eq!(block.as_array().unwrap().len(), 2, "{block}");
    assert_eq!(block[1][0], "tide-tables");
    session.assert_no_console_errors().await;
}

#[tokio::test]
async fn the_search_block_and_settings_fit_a_phone_in_the_dark_theme() {
    let fixture = ProviderFixture::start().await;
    let searx = SearchStandIn::start();
    let session = searching_session(&fixture, &searx).await;
    fixture.enqueue(Reply::text("Noon [1]."));
    chat::ask(&session, "When is high tide in Brest?").await;
    session.resize(360, 780).await;
    chat::open_latest_on_phone(&session, "dark").await;
    session.wait_for("[data-search-block]").await;
    let fits: Value = session
        .js(
            "const b = document.querySelector('[data-search-block]').getBoundingClientRect();
             return b.left >= 0 && b.right <= window.innerWidth;",
            vec![],
        )
        .await;
    assert_eq!(fits, json!(true));
    session.screenshot("web-search-phone-dark").await;
    // The settings from their address (the sidebar is a drawer at this width).
    session
        .js("location.hash = '#settings/web-search'", vec![])
        .await;
    session.reload_app().await;
    session.open_settings_tab("web-search").await;
    session
        .wait_for("#web-search-panel[data-loaded='true']")
        .await;
    session.screenshot("settings-web-search-phone-dark").await;
}

#[tokio::test]
async fn the_models_own_search_is_asked_of_a_model_that_has_one() {
    let fixture = ProviderFixture::start().await;
    let session = AppSession::open(1280, 900).await;
    chat::prepare_gemini(&session, &fixture).await;
    choose_the_models_own_search(&session).await;

    // Gemini grounds its answer with Google Search: asked for in the request, its pages
    // the reply's sources, counted in the search block beside what it searched for.
    fixture.enqueue(
        Reply::text("Spain won Euro 2024 [1].")
            .source("https://uefa.example/euro-2024", "uefa.com")
            .source("https://news.example/berlin", "news.example"),
    );
    chat::ask(&session, "Who won Euro 2024?").await;
    let body = chat::gemini_bodies(&fixture).pop().unwrap();
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    assert!(tools.contains(&json!({"google_search": {}})), "{body}");
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelector('.search-block__item[data-by-model]')?.textContent
               .includes('Pages found: 2')",
        )
        .await;
    assert_eq!(
        search_block(&session).await,
        json!([[
            "The model's own search: fixture query",
            "found",
            "Pages found: 2"
        ]])
    );

    session.assert_no_console_errors().await;
}

/// Settings › Web search set to the model provider's own search.
async fn choose_the_models_own_search(session: &AppSession) {
    session.open_settings_tab("web-search").await;
    session
        .wait_for("#web-search-panel[data-loaded='true']")
        .await;
    session.set_value("#web-search-service", "model").await;
    session.click("#web-search-save").await;
    session
        .wait_until("document.getElementById('web-search-verdict').dataset.ready === 'true'")
        .await;
    session.close_settings().await;
    session
        .wait_for("#composer-web-search[aria-pressed='true']")
        .await;
}

#[tokio::test]
async fn a_model_without_a_search_of_its_own_is_said_so_and_asked_for_none() {
    // An OpenAI-compatible chat model has no search of its own: the block says so, and
    // its request asks for none.
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    choose_the_models_own_search(&session).await;
    fixture.enqueue(Reply::text("Without a search: Spain."));
    chat::ask(&session, "Who won Euro 2020?").await;
    let block = search_block(&session).await;
    assert_eq!(block[0][1], "failed", "{block}");
    assert_eq!(
        block[0][2], "This model does not search by itself.",
        "{block}"
    );
    let last = chat_bodies(&fixture).pop().unwrap();
    assert!(!last.to_string().contains("web_search"), "{last}");
    session.assert_no_console_errors().await;
}

/// In Settings › Web search (opened here), chooses the service `value` (with `key`, when
/// given), saves, and waits for a verdict that says `ready` (for `false`, the first
/// verdict shown may still be the one from before the save).
async fn choose_service(session: &AppSession, value: &str, key: Option<&str>, ready: bool) {
    session.open_settings_tab("web-search").await;
    session
        .wait_for("#web-search-panel[data-loaded='true']")
        .await;
    session.set_value("#web-search-service", value).await;
    if let Some(key) = key {
        session.wait_for("#web-search-api-key").await;
        session.set_value("#web-search-api-key", key).await;
    }
    session.click("#web-search-save").await;
    session
        .wait_until(&format!(
            "(() => {{ const v = document.getElementById('web-search-verdict');
               return v.dataset.ready === '{ready}' && v.textContent.length > 0; }})()"
        ))
        .await;
}

#[tokio::test]
async fn a_keyed_service_searches_with_the_key_sealed_here_and_stops_once_it_is_forgotten() {
    let services = SearchStandIn::start();
    let base = services.url();
    let fixture = ProviderFixture::start().await;
    let session =
        AppSession::open_with_env(1280, 900, &[("HEARTH_BRAVE_SEARCH_BASE_URL", &base)]).await;
    chat::prepare(&session, &fixture, None).await;

    // Without a key, the resolver says what is missing; with one, search is ready.
    choose_service(&session, "brave", None, false).await;
    session
        .wait_until(
            "document.getElementById('web-search-verdict').textContent
               === 'No key is saved for this search service.'",
        )
        .await;
    session.set_value("#web-search-api-key", BRAVE_KEY).await;
    session.click("#web-search-save").await;
    session
        .wait_until("document.getElementById('web-search-verdict').dataset.ready === 'true'")
        .await;
    // Shown masked, never whole, and stored only sealed.
    session
        .wait_until("document.getElementById('web-search-api-key-hint')?.textContent === 'Saved key: BSA…6c1d'")
        .await;
    let page: Value = session
        .js("return document.documentElement.outerHTML", vec![])
        .await;
    assert!(!page.as_str().unwrap().contains(BRAVE_KEY));
    let secrets = chat::stored_records(&session, "secrets").await;
    assert_eq!(secrets.len(), 1, "{secrets:?}");
    assert!(!serde_json::to_string(&secrets).unwrap().contains(BRAVE_KEY));
    session.close_settings().await;

    fixture.enqueue(Reply::text("High tide at noon [1]."));
    chat::ask(&session, "tides in Brest").await;
    // The edge opened the envelope and sent the key as Brave's header.
    assert_eq!(services.keys(), [BRAVE_KEY]);
    assert_eq!(services.queries(), ["tides in Brest"]);
    assert_eq!(
        search_block(&session).await,
        json!([["tides in Brest", "found", "Pages found: 3"]])
    );
    let system = system_of(&chat_bodies(&fixture).pop().unwrap());
    assert!(system.contains("Brave on tides in Brest."), "{system}");

    // The export carries the choice, never the key; another browser that imports it
    // has Brave chosen and asks for its key.
    let (downloads, file) = hearth_e2e::export::export_all(&session, "web-search-export").await;
    let entries = hearth_e2e::export::zip_entries(&file);
    assert!(
        entries
            .values()
            .all(|bytes| !String::from_utf8_lossy(bytes).contains(BRAVE_KEY)),
        "the key left the browser"
    );
    let records = hearth_e2e::export::records(&file);
    assert_eq!(
        records["webSearch"]["choice"],
        json!({"kind": "provider", "provider": "brave"})
    );
    session.close_settings().await;
    let other =
        AppSession::open_with_env(1280, 900, &[("HEARTH_BRAVE_SEARCH_BASE_URL", &base)]).await;
    hearth_e2e::export::import_all(&other, &file).await;
    other.open_settings_tab("web-search").await;
    other
        .wait_until(
            "document.getElementById('web-search-service')?.value === 'brave' &&
             document.getElementById('web-search-verdict').textContent
               === 'No key is saved for this search service.'",
        )
        .await;
    other.finish().await;
    std::fs::remove_dir_all(downloads).ok();

    // Forgotten: the verdict says so, the switch goes, replies search no more.
    session.open_settings_tab("web-search").await;
    session.click("#web-search-forget-key").await;
    session
        .wait_until("document.getElementById('web-search-verdict').dataset.ready === 'false'")
        .await;
    session.close_settings().await;
    session
        .wait_until("document.getElementById('composer-web-search') === null")
        .await;
    fixture.enqueue(Reply::text("From memory."));
    chat::ask(&session, "tides in Vannes").await;
    assert_eq!(services.queries().len(), 1);
    session.assert_no_console_errors().await;
}

#[tokio::test]
async fn the_deployments_own_search_serves_users_who_choose_it_and_stays_on_the_edge() {
    let services = SearchStandIn::start();
    let instance = services.url();
    let fixture = ProviderFixture::start().await;
    let session = AppSession::open_with_env(
        1280,
        900,
        &[
            ("HEARTH_SEARCH_PROVIDER", "searxng"),
            ("HEARTH_SEARXNG_URL", &instance),
        ],
    )
    .await;
    chat::prepare(&session, &fixture, None).await;
    choose_service(&session, "default", None, true).await;
    session.close_settings().await;
    // The browser never learns which service, nor where it is.
    let config: Value = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             fetch('/api/config').then((r) => r.text()).then(done);",
            vec![],
        )
        .await;
    let config = config.as_str().unwrap();
    assert!(config.contains("\"defaultSearch\":true"), "{config}");
    assert!(
        !config.contains(&instance) && !config.contains("searxng"),
        "{config}"
    );

    fixture.enqueue(Reply::text("Noon [1]."));
    chat::ask(&session, "When is high tide in Brest?").await;
    assert_eq!(services.queries(), ["When is high tide in Brest?"]);
    assert_eq!(
        search_block(&session).await,
        json!([["When is high tide in Brest?", "found", "Pages found: 3"]])
    );
    session.assert_no_console_errors().await;
}
