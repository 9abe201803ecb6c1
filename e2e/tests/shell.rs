//! The app shell in headless Chromium, against the real `hearth` binary serving the real
//! release `dist/`: it renders, logs no errors and no CSP violations, and its theme,
//! menu, dialog, drawer, toast and language behaviours work from the keyboard, and so
//! does every keyboard shortcut.

use fantoccini::Locator;
use fantoccini::key::Key;
use hearth_e2e::{AppSession, Browser};
use serde_json::{Value, json};

#[tokio::test]
async fn shell_renders_without_console_errors_or_csp_violations() {
    let browser = AppSession::open(1440, 900).await;

    assert_eq!(
        browser
            .js("return document.getElementById('boot') === null", vec![])
            .await,
        json!(true),
        "the boot splash is removed once the app mounts"
    );
    assert_eq!(browser.text_of("#sidebar-new-chat").await, "New chat");
    assert_eq!(browser.text_of(".topbar__title").await, "New chat");
    assert_eq!(
        browser.text_of(".empty-state__title").await,
        "What can I help with?"
    );
    assert_eq!(
        browser.text_of(".sidebar__empty-title").await,
        "No conversations yet"
    );
    assert_eq!(
        browser
            .js("return document.documentElement.lang", vec![])
            .await,
        json!("en")
    );
    browser.assert_no_console_errors().await;

    // A client-side route is answered with the app, which renders the same way.
    browser.open_app("/c/some-conversation").await;
    assert_eq!(browser.text_of("#sidebar-new-chat").await, "New chat");
    browser.finish().await;
}

#[tokio::test]
async fn csp_blocks_inline_script_and_inline_handlers_and_the_violation_is_seen() {
    let browser = AppSession::open(1440, 900).await;
    browser.assert_no_console_errors().await;

    let outcome = browser
        .js(
            "const s = document.createElement('script');
             s.textContent = 'window.__inlineRan = true';
             document.head.appendChild(s);
             const img = document.createElement('img');
             img.setAttribute('onerror', 'window.__handlerRan = true');
             img.src = '/does-not-exist.png';
             document.body.appendChild(img);
             return window.__inlineRan === true;",
            vec![],
        )
        .await;
    assert_eq!(outcome, json!(false), "inline script must not run");
    // The image fails to load; its inline onerror handler must not run either.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        browser
            .js("return window.__handlerRan === true", vec![])
            .await,
        json!(false),
        "inline event handlers must not run"
    );

    // The console check used by the other tests does see violations.
    let errors = browser.console_errors().await;
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("Content Security Policy")),
        "expected CSP violations in the console log, got {errors:#?}"
    );
    browser.finish().await;
}

const THEME_BUTTON: &str = ".topbar__actions [aria-haspopup=menu]";

async fn body_background(browser: &Browser) -> String {
    browser
        .js(
            "return getComputedStyle(document.body).backgroundColor",
            vec![],
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn theme_switch_applies_persists_and_returns_to_system() {
    let browser = AppSession::open(1440, 900).await;
    let light = body_background(&browser).await;
    assert_eq!(
        light, "rgb(251, 250, 248)",
        "headless Chromium prefers light"
    );

    browser.click(THEME_BUTTON).await;
    browser
        .wait_until("!document.querySelector('[role=menu]').hidden")
        .await;
    let items = browser
        .client
        .find_all(Locator::Css("[role=menuitemradio]"))
        .await
        .expect("menu items");
    assert_eq!(items.len(), 3);
    items[2].click().await.expect("choose dark");
    browser
        .wait_until("document.documentElement.dataset.theme === 'dark'")
        .await;
    assert_eq!(body_background(&browser).await, "rgb(20, 18, 16)");
    assert_eq!(browser.local_storage("hearth.theme").await, json!("dark"));

    browser.reload_app().await;
    assert_eq!(
        browser
            .js("return document.documentElement.dataset.theme", vec![])
            .await,
        json!("dark"),
        "the choice survives a reload"
    );
    assert_eq!(body_background(&browser).await, "rgb(20, 18, 16)");
    browser.click(THEME_BUTTON).await;
    browser
        .wait_until("!document.querySelector('[role=menu]').hidden")
        .await;
    assert_eq!(
        browser
            .js(
                "return [...document.querySelectorAll('[role=menuitemradio]')]
                   .map(i => i.getAttribute('aria-checked'))",
                vec![]
            )
            .await,
        json!(["false", "false", "true"])
    );
    let items = browser
        .client
        .find_all(Locator::Css("[role=menuitemradio]"))
        .await
        .expect("menu items");
    items[0].click().await.expect("choose system");
    browser
        .wait_until("!document.documentElement.hasAttribute('data-theme')")
        .await;
    assert_eq!(body_background(&browser).await, light);
    assert_eq!(browser.local_storage("hearth.theme").await, Value::Null);
    browser.finish().await;
}

#[tokio::test]
async fn menu_is_keyboard_operable() {
    let browser = AppSession::open(1440, 900).await;
    let button_id = browser
        .js(
            &format!("const b = document.querySelector('{THEME_BUTTON}'); b.focus(); return b.id"),
            vec![],
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string();

    browser.press(&[Key::Enter]).await;
    browser
        .wait_until(&format!(
            "document.getElementById('{button_id}').getAttribute('aria-expanded') === 'true'"
        ))
        .await;
    browser
        .wait_until("document.activeElement.getAttribute('role') === 'menuitemradio'")
        .await;
    assert_eq!(browser.focused().await, "menuitemradio:System");
    browser.press(&[Key::Down]).await;
    assert_eq!(browser.focused().await, "menuitemradio:Light");
    browser.press(&[Key::End]).await;
    assert_eq!(browser.focused().await, "menuitemradio:Dark");
    browser.press(&[Key::Down]).await;
    assert_eq!(
        browser.focused().await,
        "menuitemradio:System",
        "ArrowDown wraps"
    );
    browser.press(&[Key::Up]).await;
    assert_eq!(
        browser.focused().await,
        "menuitemradio:Dark",
        "ArrowUp wraps"
    );
    browser.press(&[Key::Home]).await;
    assert_eq!(browser.focused().await, "menuitemradio:System");

    browser.press(&[Key::Escape]).await;
    browser
        .wait_until("document.querySelector('[role=menu]').hidden")
        .await;
    assert_eq!(
        browser.focused().await,
        button_id,
        "Escape returns focus to the button"
    );

    // ArrowUp on the button opens on the last item; Enter chooses it.
    browser.press(&[Key::Up]).await;
    browser
        .wait_until("document.activeElement.getAttribute('role') === 'menuitemradio'")
        .await;
    assert_eq!(browser.focused().await, "menuitemradio:Dark");
    browser.press(&[Key::Up]).await;
    assert_eq!(browser.focused().await, "menuitemradio:Light");
    browser.press(&[Key::Enter]).await;
    browser
        .wait_until("document.documentElement.dataset.theme === 'light'")
        .await;
    browser
        .wait_until("document.querySelector('[role=menu]').hidden")
        .await;
    assert_eq!(browser.focused().await, button_id);

    // Tab out of an open menu closes it.
    browser.press(&[Key::Enter]).await;
    browser
        .wait_until("document.activeElement.getAttribute('role') === 'menuitemradio'")
        .await;
    browser.press(&[Key::Tab]).await;
    browser
        .wait_until("document.querySelector('[role=menu]').hidden")
        .await;
    browser.finish().await;
}

const SETTINGS_BUTTON: &str = ".sidebar__footer .sidebar__item";

#[tokio::test]
async fn dialog_traps_focus_closes_on_escape_and_returns_focus() {
    let browser = AppSession::open(1440, 900).await;
    browser
        .js(
            &format!("document.querySelector('{SETTINGS_BUTTON}').focus()"),
            vec![],
        )
        .await;
    browser.press(&[Key::Enter]).await;
    browser
        .wait_until("document.querySelector('dialog').open")
        .await;
    browser
        .wait_until("document.activeElement.id === 'settings-tab-general'")
        .await;
    assert_eq!(
        browser.text_of("dialog .dialog__title").await,
        "Settings",
        "the dialog is labelled by its title"
    );
    let labelled = browser
        .js(
            "const d = document.querySelector('dialog');
             return document.getElementById(d.getAttribute('aria-labelledby')).textContent",
            vec![],
        )
        .await;
    assert_eq!(labelled, json!("Settings"));

    // Shift+Tab from the first control reaches the close button, then wraps to the last.
    browser.press(&[Key::Shift, Key::Tab]).await;
    assert_eq!(browser.focused().await, "button:Close");
    browser.press(&[Key::Shift, Key::Tab]).await;
    assert_eq!(
        browser.focused().await,
        "settings-language",
        "Shift+Tab wraps to the end"
    );
    browser.press(&[Key::Tab]).await;
    assert_eq!(
        browser.focused().await,
        "button:Close",
        "Tab wraps to the start"
    );
    for _ in 0..12 {
        browser.press(&[Key::Tab]).await;
        assert_eq!(
            browser
                .js(
                    "return document.querySelector('dialog').contains(document.activeElement)",
                    vec![]
                )
                .await,
            json!(true),
            "focus left the dialog"
        );
    }

    // Arrow keys move between tabs; the About tab talks to the edge.
    browser
        .js(
            "document.getElementById('settings-tab-general').focus()",
            vec![],
        )
        .await;
    for tab in [
        "providers",
        "models",
        "tools",
        "web-search",
        "voice",
        "skills",
        "templates",
        "assistants",
        "workspaces",
        "knowledge",
        "memory",
        "system",
        "data",
        "usage",
        "health",
        "about",
    ] {
        browser.press(&[Key::Down]).await;
        assert_eq!(browser.focused().await, format!("settings-tab-{tab}"));
    }
    assert_eq!(
        browser.text_of("[data-testid=edge-version]").await,
        env!("CARGO_PKG_VERSION")
    );
    browser.screenshot("settings-dialog-about").await;
    browser.press(&[Key::Home]).await;
    assert_eq!(browser.focused().await, "settings-tab-general");
    browser.screenshot("settings-dialog-general").await;
    browser.press(&[Key::End]).await;
    assert_eq!(browser.focused().await, "settings-tab-about");

    browser.press(&[Key::Escape]).await;
    browser
        .wait_until("!document.querySelector('dialog').open")
        .await;
    assert_eq!(
        browser
            .js(
                &format!(
                    "return document.activeElement === document.querySelector('{SETTINGS_BUTTON}')"
                ),
                vec![]
            )
            .await,
        json!(true),
        "focus returns to the button that opened the dialog"
    );

    // The close button closes too, and focus again returns to the opener.
    browser.click(".empty-state .button").await;
    browser
        .wait_until("document.querySelector('dialog').open")
        .await;
    browser.click("dialog .dialog__header .icon-button").await;
    browser
        .wait_until("!document.querySelector('dialog').open")
        .await;
    assert_eq!(
        browser
            .js(
                "return document.activeElement === document.querySelector('.empty-state .button[aria-haspopup=dialog]')",
                vec![]
            )
            .await,
        json!(true)
    );
    browser.finish().await;
}

async fn assert_fits_viewport(browser: &Browser, label: &str) {
    let layout = browser
        .js(
            "const c = document.querySelector('.composer').getBoundingClientRect();
             return {
               overflowX: document.documentElement.scrollWidth - window.innerWidth,
               composerRight: c.right, composerBottom: c.bottom,
               width: window.innerWidth, height: window.innerHeight,
             };",
            vec![],
        )
        .await;
    assert!(
        layout["overflowX"].as_f64().unwrap_or(1.0) <= 0.0,
        "{label}: horizontal overflow {layout}"
    );
    assert!(
        layout["composerRight"].as_f64().unwrap_or(f64::MAX)
            <= layout["width"].as_f64().unwrap_or(0.0),
        "{label}: composer spills right {layout}"
    );
    assert!(
        layout["composerBottom"].as_f64().unwrap_or(f64::MAX)
            <= layout["height"].as_f64().unwrap_or(0.0),
        "{label}: composer below the fold {layout}"
    );
}

async fn set_theme_and_reload(browser: &Browser, theme: &str) {
    browser
        .js(
            "localStorage.setItem('hearth.theme', arguments[0])",
            vec![json!(theme)],
        )
        .await;
    browser.reload_app().await;
    browser
        .wait_until(&format!(
            "document.documentElement.dataset.theme === '{theme}'"
        ))
        .await;
}

async fn computed(browser: &Browser, css: &str, property: &str) -> String {
    browser
        .js(
            "return getComputedStyle(document.querySelector(arguments[0]))[arguments[1]]",
            vec![json!(css), json!(property)],
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn layout_holds_at_desktop_and_phone_widths_in_both_themes() {
    let browser = AppSession::open(1440, 900).await;

    browser.resize(1440, 900).await;
    for theme in ["light", "dark"] {
        set_theme_and_reload(&browser, theme).await;
        assert_fits_viewport(&browser, &format!("desktop {theme}")).await;
        assert_eq!(
            computed(&browser, "#sidebar", "visibility").await,
            "visible"
        );
        assert_eq!(
            computed(&browser, "#drawer-toggle", "display").await,
            "none"
        );
        browser.screenshot(&format!("shell-desktop-{theme}")).await;
    }

    browser.resize(360, 780).await;
    for theme in ["light", "dark"] {
        set_theme_and_reload(&browser, theme).await;
        assert_fits_viewport(&browser, &format!("phone {theme}")).await;
        assert_eq!(
            computed(&browser, "#sidebar", "visibility").await,
            "hidden",
            "the drawer is closed (and out of the tab order) at phone width"
        );
        browser.screenshot(&format!("shell-phone-{theme}")).await;
    }

    // The drawer opens from the toggle, takes focus, and Escape closes it.
    browser.click("#drawer-toggle").await;
    browser
        .wait_until("getComputedStyle(document.getElementById('sidebar')).visibility === 'visible'")
        .await;
    browser
        .wait_until("document.activeElement.id === 'sidebar-new-chat'")
        .await;
    assert_eq!(
        browser
            .js(
                "return document.getElementById('drawer-toggle').getAttribute('aria-expanded')",
                vec![]
            )
            .await,
        json!("true")
    );
    browser
        .wait_until("document.getElementById('sidebar').getBoundingClientRect().left >= 0")
        .await;
    browser.screenshot("shell-phone-dark-drawer").await;
    browser.press(&[Key::Escape]).await;
    browser
        .wait_until("getComputedStyle(document.getElementById('sidebar')).visibility === 'hidden'")
        .await;
    assert_eq!(browser.focused().await, "drawer-toggle");
    browser.finish().await;
}

#[tokio::test]
async fn composer_keeps_text_and_explains_missing_provider_in_a_polite_toast() {
    let browser = AppSession::open(1440, 900).await;
    let send_disabled = "document.querySelector('.composer [type=submit]').disabled";
    assert_eq!(
        browser.js(&format!("return {send_disabled}"), vec![]).await,
        json!(true)
    );

    let input = browser.wait_for("#composer-input").await;
    input.send_keys("Hello").await.expect("type");
    browser.press(&[Key::Shift, Key::Enter]).await;
    browser.press(&[Key::Shift]).await; // release Shift
    input.send_keys("there").await.expect("type");
    assert_eq!(
        browser
            .js(
                "return document.getElementById('composer-input').value",
                vec![]
            )
            .await,
        json!("Hello\nthere"),
        "Shift+Enter inserts a new line instead of sending"
    );
    assert_eq!(
        browser.js(&format!("return {send_disabled}"), vec![]).await,
        json!(false)
    );

    browser.press(&[Key::Enter]).await;
    // Read the DOM text: WebDriver's visible text is empty while the toast fades in.
    browser
        .wait_until(
            "document.querySelector('[role=status][aria-live=polite] .toast')\
             ?.textContent.includes('Add a model provider')",
        )
        .await;
    assert_eq!(
        browser
            .js(
                "return document.getElementById('composer-input').value",
                vec![]
            )
            .await,
        json!("Hello\nthere"),
        "nothing typed is lost"
    );
    assert_eq!(
        browser
            .js(
                "return document.querySelectorAll('[role=alert][aria-live=assertive]').length",
                vec![]
            )
            .await,
        json!(1),
        "the error region exists before any error is shown"
    );

    browser.click(".toast .icon-button").await;
    browser
        .wait_until("document.querySelectorAll('.toast').length === 0")
        .await;
    browser.finish().await;
}

#[tokio::test]
async fn language_switch_translates_the_shell_and_persists() {
    let browser = AppSession::open(1440, 900).await;
    browser.click(SETTINGS_BUTTON).await;
    browser
        .wait_until("document.querySelector('dialog').open")
        .await;

    let select = browser.wait_for("#settings-language").await;
    select.select_by_value("ja").await.expect("choose Japanese");
    browser
        .wait_until("document.documentElement.lang === 'ja'")
        .await;
    assert_eq!(browser.text_of("#sidebar-new-chat").await, "新しいチャット");
    assert_eq!(browser.text_of("dialog .dialog__title").await, "設定");

    browser.reload_app().await;
    assert_eq!(
        browser
            .js("return document.documentElement.lang", vec![])
            .await,
        json!("ja")
    );
    assert_eq!(browser.text_of("#sidebar-new-chat").await, "新しいチャット");

    // The reload kept the `#settings/general` deep link: the dialog reopens by itself.
    browser
        .wait_until("document.querySelector('dialog').open")
        .await;
    assert_eq!(browser.text_of("dialog .dialog__title").await, "設定");
    let select = browser.wait_for("#settings-language").await;
    select
        .select_by_value("zh-CN")
        .await
        .expect("choose Chinese");
    browser
        .wait_until("document.documentElement.lang === 'zh-CN'")
        .await;
    assert_eq!(browser.text_of("#sidebar-new-chat").await, "新对话");

    let select = browser.wait_for("#settings-language").await;
    select
        .select_by_value("auto")
        .await
        .expect("follow the browser");
    browser
        .wait_until("document.documentElement.lang === 'en'")
        .await;
    assert_eq!(browser.text_of("#sidebar-new-chat").await, "New chat");
    assert_eq!(browser.local_storage("hearth.locale").await, Value::Null);
    browser.finish().await;
}

/// Records, from before the page's own scripts run, every text the sidebar's new-chat
/// button ever shows (`window.__newChatTexts`), so a flash of another language is seen
/// even if it lasts one frame. CDP-injected, so the page's CSP does not apply to it.
const RECORD_NEW_CHAT_TEXTS: &str = "window.__newChatTexts = [];
    new MutationObserver(() => {
      const button = document.getElementById('sidebar-new-chat');
      const text = button ? button.textContent.trim() : '';
      const seen = window.__newChatTexts;
      if (text && seen[seen.length - 1] !== text) seen.push(text);
    }).observe(document, { subtree: true, childList: true, characterData: true });";

/// The catalogs this page requested, as paths (`/locales/ja.json`).
async fn catalogs_fetched(browser: &Browser) -> Value {
    browser
        .js(
            "return performance.getEntriesByType('resource')
                 .map((e) => new URL(e.name).pathname)
                 .filter((p) => p.startsWith('/locales/'));",
            vec![],
        )
        .await
}

/// A browser whose languages are `accept_language` (as `navigator.languages` reports
/// them), recording the new-chat button's texts on every page it loads.
async fn browser_speaking(stack: &hearth_e2e::Stack, accept_language: &str) -> Browser {
    let browser = Browser::open(stack, 1440, 900).await;
    let user_agent = browser.js("return navigator.userAgent", vec![]).await;
    browser
        .cdp(
            "Emulation.setUserAgentOverride",
            json!({"userAgent": user_agent, "acceptLanguage": accept_language}),
        )
        .await;
    browser
        .cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": RECORD_NEW_CHAT_TEXTS}),
        )
        .await;
    browser
}

#[tokio::test]
async fn a_japanese_first_load_is_japanese_from_the_first_render_and_fetches_only_japanese() {
    let stack = hearth_e2e::process::Stack::start();
    let browser = browser_speaking(&stack, "ja-JP,ja,en").await;
    browser.open_app("/").await;
    assert_eq!(
        browser.js("return navigator.languages[0]", vec![]).await,
        json!("ja-JP"),
        "the emulated browser language"
    );
    // The first text the button ever had is Japanese: no English flash before it.
    assert_eq!(
        browser.js("return window.__newChatTexts", vec![]).await,
        json!(["新しいチャット"])
    );
    assert_eq!(
        browser
            .js("return document.documentElement.lang", vec![])
            .await,
        json!("ja")
    );
    assert_eq!(
        browser.text_of(".empty-state__title").await,
        "何をお手伝いしましょうか？"
    );
    assert_eq!(
        catalogs_fetched(&browser).await,
        json!(["/locales/ja.json"])
    );
    assert_eq!(browser.local_storage("hearth.locale").await, Value::Null);
    browser.assert_no_console_errors().await;

    // A stored choice wins over the browser's language, from the first render too, and
    // only its catalog is requested.
    browser.reload_in("zh-CN").await;
    assert_eq!(
        browser.js("return window.__newChatTexts", vec![]).await,
        json!(["新对话"])
    );
    assert_eq!(
        catalogs_fetched(&browser).await,
        json!(["/locales/zh-CN.json"])
    );
    browser.assert_no_console_errors().await;
    browser.close().await;
}

#[tokio::test]
async fn an_english_first_load_fetches_no_catalog() {
    let stack = hearth_e2e::process::Stack::start();
    let browser = browser_speaking(&stack, "en-US,en,ja").await;
    browser.open_app("/").await;
    assert_eq!(
        browser.js("return window.__newChatTexts", vec![]).await,
        json!(["New chat"])
    );
    assert_eq!(catalogs_fetched(&browser).await, json!([]));
    browser.assert_no_console_errors().await;
    browser.close().await;
}

/// The settings tabs, by slug.
const SETTINGS_TABS: [&str; 11] = [
    "general",
    "providers",
    "models",
    "tools",
    "skills",
    "knowledge",
    "memory",
    "system",
    "data",
    "health",
    "about",
];

/// Every translation key id (from the English catalog).
fn key_ids() -> Vec<String> {
    let path = hearth_e2e::paths::repo_root().join("app/locales/en.json");
    let catalog: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read en.json"))
            .expect("en.json is an object");
    catalog.keys().cloned().collect()
}

#[tokio::test]
async fn every_settings_tab_the_command_menu_and_the_palette_are_worded_in_every_locale() {
    let stack = hearth_e2e::process::Stack::start();
    let ids = key_ids();
    for (locale, providers_tab, palette_placeholder) in [
        ("en", "Providers", "Search titles and messages"),
        ("ja", "プロバイダー", "タイトルとメッセージを検索"),
        ("zh-CN", "服务商", "搜索标题和消息"),
    ] {
        let browser = browser_speaking(&stack, "en-US,en").await;
        browser.open_app("/").await;
        if locale != "en" {
            browser.reload_in(locale).await;
        }
        // The settings dialog's English is not on the first load's path: only the
        // dialog fetches it.
        let before = catalogs_fetched(&browser).await;
        assert!(
            !before
                .as_array()
                .unwrap()
                .contains(&json!("/locales/en.json")),
            "{locale}: {before}"
        );
        for slug in SETTINGS_TABS {
            browser.open_settings_tab(slug).await;
            browser
                .wait_until(&format!(
                    "document.getElementById('settings-tab-{slug}').getAttribute('aria-selected') === 'true'"
                ))
                .await;
            let text = browser
                .js("return document.querySelector('dialog').innerText", vec![])
                .await;
            let text = text.as_str().unwrap_or_default();
            let shown: Vec<&String> = ids.iter().filter(|id| text.contains(id.as_str())).collect();
            assert!(
                shown.is_empty(),
                "{locale} › {slug} shows key ids {shown:?}"
            );
        }
        assert_eq!(
            browser.text_of("#settings-tab-providers").await,
            providers_tab,
            "{locale}"
        );
        // The composer's `/` menu (the other chunk whose English comes later) too.
        browser.press(&[Key::Escape]).await;
        browser
            .wait_until("!document.querySelector('dialog')?.open")
            .await;
        let input = browser.wait_for("#composer-input").await;
        input.send_keys("/").await.expect("type a slash");
        browser.wait_for("#slash-menu [role=option]").await;
        let text = browser
            .js(
                "return document.querySelector('.slash-menu').innerText",
                vec![],
            )
            .await;
        let text = text.as_str().unwrap_or_default();
        let shown: Vec<&String> = ids.iter().filter(|id| text.contains(id.as_str())).collect();
        assert!(shown.is_empty(), "{locale} › / shows key ids {shown:?}");
        // The search palette (its English comes later too): its words and its field's.
        input.clear().await.expect("clear the slash");
        browser.press(&[Key::Escape]).await;
        browser.press_ctrl('k').await;
        browser.wait_for(".search-palette__input").await;
        let palette = browser
            .js(
                "const p = document.querySelector('.search-palette');
                 return [p.innerText, p.querySelector('input').placeholder].join(' | ')",
                vec![],
            )
            .await;
        let palette = palette.as_str().unwrap_or_default();
        let shown: Vec<&String> = ids
            .iter()
            .filter(|id| palette.contains(id.as_str()))
            .collect();
        assert!(
            shown.is_empty(),
            "{locale} › Ctrl+K shows key ids {shown:?}"
        );
        assert!(palette.contains(palette_placeholder), "{locale}: {palette}");
        assert!(
            catalogs_fetched(&browser)
                .await
                .as_array()
                .unwrap()
                .contains(&json!("/locales/en.json")),
            "{locale}"
        );
        browser.assert_no_console_errors().await;
        browser.close().await;
    }
}

/// Reads the console: the app warned that the Japanese catalog could not be loaded, and
/// nothing failed besides the blocked request itself.
async fn assert_only_the_blocked_catalog_failed(browser: &Browser) {
    let log = browser.console_log().await;
    assert!(
        log.iter().any(|entry| entry.level == "WARNING"
            && entry
                .message
                .contains("the ja translation could not be loaded")),
        "{log:#?}"
    );
    let errors: Vec<&String> = log
        .iter()
        .filter(|entry| entry.level == "SEVERE" && !entry.message.contains("/locales/ja.json"))
        .map(|entry| &entry.message)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[tokio::test]
async fn a_catalog_that_cannot_be_fetched_keeps_english_and_says_so() {
    let stack = hearth_e2e::process::Stack::start();
    let browser = browser_speaking(&stack, "en-US,en").await;
    browser.cdp("Network.enable", json!({})).await;
    browser
        .cdp(
            "Network.setBlockedURLs",
            json!({"urls": ["*/locales/ja.json"]}),
        )
        .await;

    // A switch in Settings: the language stays, the picker goes back, a toast explains.
    browser.open_app("/#settings/general").await;
    browser
        .wait_until("document.querySelector('dialog').open")
        .await;
    let select = browser.wait_for("#settings-language").await;
    select.select_by_value("ja").await.expect("choose Japanese");
    browser
        .wait_until(
            "[...document.querySelectorAll('.toast')].some((t) => \
             t.textContent.includes('日本語 could not be loaded'))",
        )
        .await;
    browser
        .wait_until("document.getElementById('settings-language').value === 'auto'")
        .await;
    assert_eq!(
        browser
            .js("return document.documentElement.lang", vec![])
            .await,
        json!("en")
    );
    assert_eq!(browser.text_of("#sidebar-new-chat").await, "New chat");
    assert_eq!(browser.local_storage("hearth.locale").await, Value::Null);
    assert_only_the_blocked_catalog_failed(&browser).await;

    // A start whose stored language cannot be fetched mounts in English, with a warning.
    browser
        .js("localStorage.setItem('hearth.locale', 'ja')", vec![])
        .await;
    browser.goto("/").await;
    browser.wait_for("#composer-input").await;
    assert_eq!(
        browser.js("return window.__newChatTexts", vec![]).await,
        json!(["New chat"])
    );
    assert_eq!(
        browser
            .js("return document.documentElement.lang", vec![])
            .await,
        json!("en")
    );
    assert_only_the_blocked_catalog_failed(&browser).await;
    browser.close().await;
}

#[tokio::test]
async fn logo_is_a_safe_image() {
    let browser = AppSession::open(1440, 900).await;
    let attributes = browser
        .js(
            "const i = document.querySelector('img.sidebar__logo');
             return [i.getAttribute('loading'), i.getAttribute('decoding'),
                     i.getAttribute('referrerpolicy'), i.getAttribute('alt')];",
            vec![],
        )
        .await;
    assert_eq!(attributes, json!(["lazy", "async", "no-referrer", ""]));
    browser
        .wait_until("document.querySelector('img.sidebar__logo').naturalWidth > 0")
        .await;
    browser.finish().await;
}

#[tokio::test]
async fn a_sessions_browser_profile_is_removed_with_its_stack_even_when_never_closed() {
    let stack = hearth_e2e::process::Stack::start();
    let browser = Browser::open(&stack, 800, 600).await;
    browser.open_app("/").await;
    let root = stack.profiles.root().to_path_buf();
    // ChromeDriver makes two directories per session: the profile and a scratch one.
    let made = stack.profiles.made();
    let profiles = made
        .iter()
        .filter(|dir| dir.join("Default").is_dir())
        .count();
    assert_eq!(
        profiles, 1,
        "one session writes one profile, under the stack's directory: {made:?}"
    );
    // A failing test never closes its session: dropping is all that happens.
    drop(browser);
    drop(stack);
    assert!(
        !root.exists(),
        "the profile outlived the stack: {}",
        root.display()
    );
}

/// The shortcuts the dialog lists: each row's action and keys.
const SHORTCUT_ROWS: &str =
    "return [...document.querySelectorAll('.dialog--shortcuts .shortcuts__row')]
  .map((row) => row.querySelector('dt').textContent + ': ' +
    [...row.querySelectorAll('kbd')].map((k) => k.textContent).join('+'));";

#[tokio::test]
async fn every_keyboard_shortcut_works_from_the_keyboard_alone() {
    let fixture = hearth_e2e::provider_fixture::ProviderFixture::start().await;
    let session = hearth_e2e::chat::ready(&fixture).await;
    fixture.enqueue(hearth_e2e::provider_fixture::Reply::text("First answer."));
    hearth_e2e::chat::send(&session, "First question").await;
    hearth_e2e::chat::last_status(&session, "done").await;

    // Esc in the message box stops the reply being written; elsewhere it does not. (First:
    // ChromeDriver may keep a chord's modifiers down for the keys typed after it.)
    fixture.enqueue(
        hearth_e2e::provider_fixture::Reply::text("one two three four five six")
            .text_chunk_chars(4)
            .stall_after(2),
    );
    hearth_e2e::chat::send(&session, "Count").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown')].at(-1)?.textContent.includes('one two')")
        .await;
    session
        .js(
            "document.getElementById('sidebar-new-chat').focus()",
            vec![],
        )
        .await;
    session.press(&[Key::Escape]).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    hearth_e2e::chat::last_status(&session, "streaming").await;
    session
        .js("document.getElementById('composer-input').focus()", vec![])
        .await;
    session.press(&[Key::Escape]).await;
    hearth_e2e::chat::last_status(&session, "aborted").await;

    // Ctrl+/: the dialog lists every shortcut with this keyboard's keys; Escape closes
    // it and gives the focus back.
    session
        .js("document.getElementById('composer-input').focus()", vec![])
        .await;
    session.press_chord(&[Key::Control], '/').await;
    session
        .wait_until("document.querySelector('.dialog--shortcuts')?.open")
        .await;
    assert_eq!(
        session.js(SHORTCUT_ROWS, vec![]).await,
        json!([
            "New chat: Ctrl+Shift+O",
            "Search conversations: Ctrl+K",
            "Go to the message box: Shift+Esc",
            "Stop the reply (in the message box): Esc",
            "Show or hide the sidebar: Ctrl+Shift+S",
            "Show keyboard shortcuts: Ctrl+/",
        ])
    );
    session.screenshot("shortcuts").await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('.dialog--shortcuts').open")
        .await;
    assert_eq!(session.focused().await, "composer-input");

    // Ctrl+Shift+O: a new chat, the cursor in its message box.
    session.press_chord(&[Key::Control, Key::Shift], 'o').await;
    session.wait_for(".empty-state").await;
    assert_eq!(session.focused().await, "composer-input");

    // Shift+Esc brings the cursor back to the message box from anywhere.
    session
        .js(
            "document.getElementById('sidebar-new-chat').focus()",
            vec![],
        )
        .await;
    session
        .press_chord(&[Key::Shift], char::from(Key::Escape))
        .await;
    session
        .wait_until("document.activeElement?.id === 'composer-input'")
        .await;

    // Ctrl+K: search.
    session.press_ctrl('k').await;
    session
        .wait_until("document.querySelector('.dialog--search')?.open")
        .await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('.dialog--search').open")
        .await;

    // Ctrl+Shift+S hides the sidebar (the top bar's button brings it back), and shows it.
    let sidebar_shown = "getComputedStyle(document.getElementById('sidebar')).display !== 'none'";
    session.press_chord(&[Key::Control, Key::Shift], 's').await;
    session.wait_until(&format!("!({sidebar_shown})")).await;
    session
        .wait_until("getComputedStyle(document.getElementById('drawer-toggle')).display !== 'none'")
        .await;
    session.screenshot("sidebar-hidden").await;
    session.press_chord(&[Key::Control, Key::Shift], 's').await;
    session.wait_until(sidebar_shown).await;

    // At phone width the same shortcut opens and closes the drawer.
    session.resize(360, 780).await;
    session.press_chord(&[Key::Control, Key::Shift], 's').await;
    session
        .wait_until("document.querySelector('.shell').classList.contains('shell--drawer-open')")
        .await;
    session.press_chord(&[Key::Control, Key::Shift], 's').await;
    session
        .wait_until("!document.querySelector('.shell').classList.contains('shell--drawer-open')")
        .await;
    session.finish().await;
}
