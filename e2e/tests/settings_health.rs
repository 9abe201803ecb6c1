//! Settings › Health shows each edge service's state in words a person can act on.

use hearth_e2e::AppSession;

#[tokio::test]
async fn the_health_tab_explains_each_service() {
    let session = AppSession::open(1440, 900).await;
    session.open_settings_tab("health").await;
    session.wait_for(".health-list").await;
    let row = |service: &str| format!("[data-service={service}] .health-row__text");
    assert_eq!(session.text_of(&row("app")).await, "Working.");
    assert_eq!(session.text_of(&row("byok")).await, "Working.");
    assert!(
        session
            .text_of(&row("rateLimitStore"))
            .await
            .starts_with("Works for this server only")
    );
    assert!(
        session
            .text_of(&row("accessPassword"))
            .await
            .starts_with("Not configured")
    );
    assert_eq!(
        session
            .text_of("[data-service=rateLimitStore] .health-row__code")
            .await,
        "MEMORY_STORE"
    );
    // No search service of the deployment's own: said, with its code.
    assert!(
        session
            .text_of(&row("search"))
            .await
            .starts_with("Not configured")
    );
    assert_eq!(
        session
            .text_of("[data-service=search] .health-row__code")
            .await,
        "SEARCH_UNCONFIGURED"
    );
    // Voice relays with keys sealed for this edge.
    assert_eq!(session.text_of(&row("voice")).await, "Working.");
    assert_eq!(
        session
            .text_of("[data-service=voice] .health-row__code")
            .await,
        "VOICE_READY"
    );
    // Every service is named in words, never by its key in the report.
    let raw = session
        .js(
            "return [...document.querySelectorAll('[data-service]')]
               .filter((r) => r.querySelector('.health-row__name').textContent.trim() === r.dataset.service)
               .map((r) => r.dataset.service);",
            vec![],
        )
        .await;
    assert_eq!(raw, serde_json::json!([]), "services named by their keys");
    assert_eq!(
        session
            .text_of("[data-service=documentParseJobStore] .health-row__name")
            .await,
        "Document parse jobs"
    );
    session.screenshot("settings-health").await;
    session.click("#health-refresh").await;
    session.wait_for("[data-service=app]").await;
    session.finish().await;
}

#[tokio::test]
async fn deep_links_open_a_settings_tab_and_follow_it() {
    let session = AppSession::open(1440, 900).await;
    session.goto("/#settings/health").await;
    session.wait_for("#composer-input").await;
    session
        .wait_until("document.querySelector('dialog').open")
        .await;
    session
        .wait_until("document.getElementById('settings-tab-health').getAttribute('aria-selected') === 'true'")
        .await;
    session.wait_for(".health-list").await;

    session.click("#settings-tab-providers").await;
    session
        .wait_until("location.hash === '#settings/providers'")
        .await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog').open")
        .await;
    session.wait_until("location.hash === ''").await;

    // A page loaded with the link opens there too.
    session.goto("/#settings/about").await;
    session
        .wait_until("document.querySelector('dialog').open")
        .await;
    session.reload_app().await;
    session
        .wait_until("document.querySelector('dialog').open")
        .await;
    session
        .wait_until("document.getElementById('settings-tab-about').getAttribute('aria-selected') === 'true'")
        .await;
    session.finish().await;
}
