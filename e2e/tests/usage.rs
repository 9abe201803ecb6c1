//! Costs and usage in the real build, in Chromium, with replies scripted through the
//! provider fixture (an OpenAI-compatible API reporting its token counts). A reply's
//! details say what it cost, or that no price covers its model; a price the user adds in
//! Settings › Usage prices it (a pattern ending in `*` covers a family), a reply whose
//! counts were estimated is marked `~`, and the Usage view sums replies, models and
//! conversations and opens a conversation from its list. Prices that cannot be kept are
//! refused with a reason and change nothing; prices travel in an export and are taken by
//! the browser that imports it.

use hearth_e2e::AppSession;
use hearth_e2e::chat;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

/// The last reply's details, once its cost row is there (it comes once the prices are
/// read).
async fn last_details(session: &AppSession) -> Vec<Value> {
    chat::last_details(session, Some("Cost")).await
}

fn cost_of(rows: &[Value]) -> String {
    rows.iter()
        .find(|row| row[0] == "Cost")
        .and_then(|row| row[1].as_str())
        .unwrap_or_else(|| panic!("no cost row in {rows:?}"))
        .to_string()
}

/// Opens Settings › Usage and waits for its sums.
async fn open_usage(session: &AppSession) {
    session.open_settings_tab("usage").await;
    session.wait_for("#usage-summary").await;
}

/// Types a price into the form and saves it.
async fn add_price(session: &AppSession, model: &str, input: &str, output: &str) {
    session.wait_for("#price-form").await;
    session.set_value("#price-model", model).await;
    session.set_value("#price-input", input).await;
    session.set_value("#price-output", output).await;
    session.click("#price-save").await;
}

#[tokio::test]
async fn a_reply_costs_what_its_price_says_and_the_usage_view_sums_it() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;

    // No price covers the fixture's model: the details say so.
    fixture.enqueue(Reply::text("Forty-two.").usage(2_000, 500));
    chat::ask(&session, "What is the answer?").await;
    assert_eq!(
        cost_of(&last_details(&session).await),
        "No price set for this model (Settings › Usage)"
    );
    open_usage(&session).await;
    assert_eq!(session.text_of("#usage-total-cost").await, "—");
    assert_eq!(session.text_of("#usage-total-replies").await, "1");
    assert_eq!(
        session.text_of("#usage-total-tokens").await,
        "2000 in · 500 out"
    );
    assert!(
        session
            .text_of("#usage-panel")
            .await
            .contains("Replies from models without a price: 1."),
    );

    // A price for the family: $2 in, $10 out per million tokens.
    add_price(&session, "fixture-*", "2", "10").await;
    session
        .wait_for("#prices-mine tr[data-price-model='fixture-*']")
        .await;
    // 2,000 × $2 + 500 × $10, per million.
    session
        .wait_until("document.getElementById('usage-total-cost')?.textContent === '$0.009'")
        .await;
    let model_rows: Value = session
        .js(
            "return [...document.querySelectorAll('#usage-models tbody tr')]
               .map((r) => [...r.children].map((c) => c.textContent));",
            vec![],
        )
        .await;
    assert_eq!(
        model_rows,
        json!([["fixture-small", "1", "2000 in · 500 out", "$0.009"]])
    );
    session.close_settings().await;
    assert_eq!(cost_of(&last_details(&session).await), "$0.009");

    // A reply whose provider reported nothing: its output is estimated, so is its cost.
    fixture.enqueue(Reply::text("Still forty-two, and more words to count."));
    chat::ask(&session, "Again?").await;
    let estimated = cost_of(&last_details(&session).await);
    assert!(estimated.starts_with("~$"), "{estimated}");
    open_usage(&session).await;
    session
        .wait_until("document.getElementById('usage-total-replies')?.textContent === '2'")
        .await;
    assert!(
        session
            .text_of("#usage-total-cost")
            .await
            .starts_with("~$0.009"),
    );
    assert!(
        session
            .text_of("#usage-total-tokens")
            .await
            .starts_with("~")
    );

    // The conversation's row opens it.
    session
        .wait_until(
            "document.querySelector('#usage-conversations .usage-open')?.textContent === 'What is the answer?'",
        )
        .await;
    session
        .click_by_script("#usage-conversations .usage-open")
        .await;
    session
        .wait_until("!document.querySelector('dialog')?.open")
        .await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--user')].some((m) => m.textContent.includes('What is the answer?'))",
        )
        .await;
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn a_price_that_cannot_be_kept_is_refused_and_prices_travel_in_an_export() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    open_usage_prices(&session).await;

    // Refused, each with its reason; nothing is stored.
    add_price(&session, "  ", "1", "2").await;
    session
        .wait_until(
            "document.getElementById('price-model-error')?.textContent === 'Name the model this price is for.'",
        )
        .await;
    add_price(&session, "my-model", "-1", "2").await;
    session
        .wait_until(
            "document.getElementById('price-model-error')?.textContent === 'Each amount must be a number from 0 to 10,000.'",
        )
        .await;
    // Editing the form clears the last refusal; this one is refused again.
    add_price(&session, "my-model", "1", "20000").await;
    session
        .wait_until(
            "document.getElementById('price-model-error')?.textContent === 'Each amount must be a number from 0 to 10,000.'",
        )
        .await;
    assert!(
        session
            .js("return !!document.getElementById('prices-none')", vec![])
            .await
            == json!(true)
    );

    // Kept; a default copied into the form and changed becomes the user's own.
    add_price(&session, "my-model", "0.5", "1.5").await;
    session
        .wait_for("#prices-mine tr[data-price-model='my-model']")
        .await;
    assert_eq!(
        price_row(&session, "my-model").await,
        json!(["my-model", "$0.5", "—", "$1.5", "—", "—", "EditRemove"])
    );
    // A long prompt's prices need a threshold and both prices.
    session.set_value("#price-long-above", "1000").await;
    session.click("#price-save").await;
    session
        .wait_until(
            "document.getElementById('price-model-error')?.textContent?.startsWith('Long prompts need a whole number of tokens')",
        )
        .await;
    session.set_value("#price-long-above", "").await;
    session
        .click_by_script("#prices-defaults button[aria-label='Edit: gpt-4o']")
        .await;
    session
        .wait_until("document.getElementById('price-model').value === 'gpt-4o'")
        .await;
    assert_eq!(
        session
            .js(
                "return document.getElementById('price-output').value",
                vec![]
            )
            .await,
        json!("10")
    );
    session.set_value("#price-output", "12").await;
    session.click("#price-save").await;
    session
        .wait_for("#prices-mine tr[data-price-model='gpt-4o']")
        .await;

    // The export carries them; a browser that imports it has them, its own price for a
    // model kept.
    let (downloads, file) = hearth_e2e::export::export_all(&session, "usage-export").await;
    let records = hearth_e2e::export::records(&file);
    let models: Vec<&str> = records["prices"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["model"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["my-model", "gpt-4o"]);
    let other = AppSession::open(1280, 900).await;
    open_usage_prices(&other).await;
    add_price(&other, "gpt-4o", "3", "13").await;
    other
        .wait_for("#prices-mine tr[data-price-model='gpt-4o']")
        .await;
    other.close_settings().await;
    hearth_e2e::export::import_all(&other, &file).await;
    open_usage_prices(&other).await;
    other
        .wait_for("#prices-mine tr[data-price-model='my-model']")
        .await;
    assert_eq!(
        price_row(&other, "gpt-4o").await[3],
        "$13",
        "the importing browser's own price stays"
    );
    other.finish().await;
    std::fs::remove_dir_all(downloads).ok();

    // Removed: the default applies again.
    session.open_settings_tab("usage").await;
    session
        .click_by_script("#prices-mine button[aria-label='Remove: gpt-4o']")
        .await;
    session
        .wait_until("!document.querySelector(\"#prices-mine tr[data-price-model='gpt-4o']\")")
        .await;
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn cache_writes_searches_and_long_prompts_are_priced_as_set() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    open_usage_prices(&session).await;
    session.wait_for("#price-form").await;
    session.set_value("#price-model", "fixture-*").await;
    session.set_value("#price-input", "2").await;
    session.set_value("#price-output", "10").await;
    session.set_value("#price-cache-write", "2.5").await;
    session.set_value("#price-per-search", "0.01").await;
    session.set_value("#price-long-above", "1000").await;
    session.set_value("#price-long-input", "4").await;
    session.set_value("#price-long-output", "15").await;
    session.click("#price-save").await;
    session
        .wait_for("#prices-mine tr[data-price-model='fixture-*']")
        .await;
    assert_eq!(
        price_row(&session, "fixture-*").await[5],
        "cache writes $2.5 · $0.01 per search · above 1000 tokens: $4 in, $15 out"
    );
    // Editing it fills every field back.
    session
        .click_by_script("#prices-mine button[aria-label='Edit: fixture-*']")
        .await;
    let fields = session
        .js(
            "return ['price-cache-write', 'price-per-search', 'price-long-above', 'price-long-input', 'price-long-output']
               .map((id) => document.getElementById(id).value);",
            vec![],
        )
        .await;
    assert_eq!(fields, json!(["2.5", "0.01", "1000", "4", "15"]));
    session
        .js(
            "document.querySelector('.price-form__long').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await;
    session.screenshot("settings-prices-form").await;
    session.close_settings().await;

    // A prompt of 500 tokens: the standard rates (500 × $2 + 100 × $10 per million).
    fixture.enqueue(Reply::text("Short.").usage(500, 100));
    chat::ask(&session, "A short question?").await;
    assert_eq!(cost_of(&last_details(&session).await), "$0.002");
    // One of 2,000 tokens, above the threshold: 2,000 × $4 + 100 × $15 per million.
    fixture.enqueue(Reply::text("Long.").usage(2_000, 100));
    chat::ask(&session, "A long question?").await;
    assert_eq!(cost_of(&last_details(&session).await), "$0.0095");
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn the_usage_view_fits_a_phone_in_the_dark_theme() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    fixture.enqueue(Reply::text("Short.").usage(1_200, 300));
    chat::ask(&session, "A question").await;
    session.resize(360, 780).await;
    chat::reload_in_theme(&session, "dark").await;
    session
        .js("location.hash = '#settings/usage'", vec![])
        .await;
    session.reload_app().await;
    open_usage(&session).await;
    session.wait_for("#usage-chart li").await;
    let fits: Value = session
        .js(
            "const p = document.getElementById('usage-summary').getBoundingClientRect();
             const bars = [...document.querySelectorAll('#usage-chart .usage-chart__bar')];
             return p.left >= 0 && p.right <= window.innerWidth
               && bars.some((b) => b.getBoundingClientRect().height > 0);",
            vec![],
        )
        .await;
    assert_eq!(fits, json!(true));
    session.screenshot("settings-usage-phone-dark").await;
    session.resize(1280, 900).await;
    session.screenshot("settings-usage").await;
    session
        .js(
            "document.getElementById('usage-models').scrollIntoView()",
            vec![],
        )
        .await;
    session.screenshot("settings-usage-tables").await;
}

/// Opens Settings › Usage and waits for its price table.
async fn open_usage_prices(session: &AppSession) {
    session.open_settings_tab("usage").await;
    session.wait_for("#price-form").await;
}

/// The cells of the user's price for `model`.
async fn price_row(session: &AppSession, model: &str) -> Value {
    session
        .js(
            "const r = document.querySelector(`#prices-mine tr[data-price-model='${arguments[0]}']`);
             return [...r.children].map((c) => c.textContent);",
            vec![json!(model)],
        )
        .await
}
