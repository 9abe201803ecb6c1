//! The password screen of a protected deployment, in Chromium against the real edge.

use fantoccini::key::Key;
use hearth_e2e::{Browser, Stack};
use serde_json::json;

const PASSWORD: &str = "open-sesame-2718";

/// Console errors other than the browser's own report of the 401 answers the test
/// provokes on purpose.
async fn unexpected_errors(browser: &Browser) -> Vec<String> {
    browser
        .console_errors()
        .await
        .into_iter()
        .map(|e| e.message)
        .filter(|m| !m.contains("status of 401"))
        .collect()
}

#[tokio::test]
async fn the_password_screen_lets_the_right_password_in_and_remembers_it() {
    let stack = Stack::start_with_env(&[("ACCESS_PASSWORD", PASSWORD)]);
    let browser = Browser::open(&stack, 1440, 900).await;
    browser.goto("/").await;
    browser.wait_for("#access-password").await;
    browser
        .wait_until("document.activeElement.id === 'access-password'")
        .await;
    assert_eq!(
        browser
            .js("return document.getElementById('composer-input')", vec![])
            .await,
        json!(null),
        "the shell is not shown before the password"
    );
    assert_eq!(
        browser.text_of("#access-title").await,
        "This Hearth is protected"
    );
    browser.screenshot("access-screen").await;

    // An empty submit explains itself without asking the server.
    browser.press(&[Key::Enter]).await;
    browser
        .wait_until(
            "document.getElementById('access-error').textContent.includes('Enter the password')",
        )
        .await;

    let input = browser.wait_for("#access-password").await;
    input.send_keys("wrong-password").await.expect("type");
    browser.press(&[Key::Enter]).await;
    browser
        .wait_until(
            "document.getElementById('access-error').textContent.includes('Attempts left: 2')",
        )
        .await;
    assert_eq!(
        browser
            .js(
                "return document.getElementById('access-password').getAttribute('aria-invalid')",
                vec![]
            )
            .await,
        json!("true")
    );
    browser.screenshot("access-screen-error").await;

    let input = browser.wait_for("#access-password").await;
    input.send_keys(PASSWORD).await.expect("type");
    browser.press(&[Key::Enter]).await;
    browser.wait_for("#composer-input").await;
    assert_eq!(
        browser
            .js("return document.cookie.includes('hearth_access')", vec![])
            .await,
        json!(false),
        "the session cookie is HttpOnly"
    );

    browser.reload_app().await;
    assert_eq!(
        browser
            .js("return document.getElementById('access-password')", vec![])
            .await,
        json!(null),
        "the session survives a reload"
    );
    let unexpected = unexpected_errors(&browser).await;
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    browser.close().await;
}

#[tokio::test]
async fn an_open_deployment_shows_no_password_screen() {
    let stack = Stack::start();
    let browser = Browser::open(&stack, 1440, 900).await;
    browser.open_app("/").await;
    assert_eq!(
        browser
            .js("return document.getElementById('access-password')", vec![])
            .await,
        json!(null)
    );
    browser.assert_no_console_errors().await;
    browser.close().await;
}
