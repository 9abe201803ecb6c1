//! A WebDriver session in headless Chromium, with the helpers the tests share.
//!
//! The browser is Chromium's headless shell (Debian's `chromium-headless-shell`, the same
//! Blink and V8 as `chromium --headless` without the desktop browser around them): the
//! suite is CPU-bound on two cores, and the shell ran it in half the time. It runs with
//! the flags this workplace requires (no sandbox as root, no background networking: the
//! machine has no network beyond loopback), a fresh profile per session (under the
//! stack's [`crate::process::Profiles`], removed with it), and
//! the browser console log enabled so tests can assert that a page
//! produced no errors and no CSP violations.

use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::wd::{WebDriverCompatibleCommand, WindowHandle};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::paths;
use crate::process::Stack;

/// How long a test waits for something to appear.
pub const WAIT: Duration = Duration::from_secs(15);

const CHROMIUM_FLAGS: [&str; 11] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    // A microphone that plays a test tone, allowed without asking (dictation).
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
];

/// A vendor POST to the session that WebDriver has no command for: ChromeDriver's
/// `se/log` (the console log) and `goog/cdp/execute` (DevTools: downloads, quotas).
#[derive(Debug)]
struct SessionPost {
    /// The path under `session/<id>/`.
    path: &'static str,
    body: Value,
}

impl WebDriverCompatibleCommand for SessionPost {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/{}",
            session_id.unwrap_or_default(),
            self.path
        ))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

/// Whether a console entry is a sandboxed frame refusing what its own policy forbids: a
/// diagram's or an MCP app's frame (`about:srcdoc`, `/sandbox/…`) blocking a load, a
/// connection or a window. The headless shell reports those frames' console as the
/// page's; a test of hostile content in them expects these entries, and no other.
pub fn sandbox_refusal(message: &str) -> bool {
    let source = message.split(' ').next().unwrap_or_default();
    let from_sandbox = source == "about:srcdoc" || source.contains("/sandbox/");
    let refusal = [
        "violates the following Content Security Policy directive",
        "Refused to connect because it violates the document's Content Security Policy",
        "because the request was made in a sandboxed frame whose",
        "The frame attempting navigation of the top-level window is sandboxed",
    ]
    .iter()
    .any(|words| message.contains(words));
    from_sandbox && refusal
}

/// A browser session bound to one test's server.
pub struct Browser {
    /// The WebDriver client.
    pub client: Client,
    base: String,
}

/// One entry of the browser's console log.
#[derive(Debug, Clone)]
pub struct LogEntry {
    /// `SEVERE`, `WARNING`, `INFO`, …
    pub level: String,
    /// The message, including its source.
    pub message: String,
}

impl Browser {
    /// Opens a session with a viewport of `width` × `height` CSS pixels.
    pub async fn open(stack: &Stack, width: u32, height: u32) -> Self {
        let chromium =
            std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium-headless-shell".into());
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--window-size={width},{height}"));
        let capabilities = json!({
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": chromium, "args": args },
            "goog:loggingPrefs": { "browser": "ALL" },
        });
        let Value::Object(capabilities) = capabilities else {
            unreachable!("a JSON object literal")
        };
        let client = ClientBuilder::rustls()
            .expect("rustls connector")
            .capabilities(capabilities)
            .connect(&stack.driver_url())
            .await
            .expect("a WebDriver session in Chromium");
        let browser = Self {
            client,
            base: stack.hearth.url(),
        };
        // The resource timeline keeps 250 entries by default, and the app's own chunks
        // fill it: a test counting a later fetch (Mermaid, a worker) would count none.
        browser
            .cdp(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": "performance.setResourceTimingBufferSize(10000)"}),
            )
            .await;
        browser
    }

    /// Points the browser at `base` (a [`crate::tap::Tap`] in front of the server)
    /// instead of the server itself.
    pub fn set_base(&mut self, base: String) {
        self.base = base;
    }

    /// Navigates to `path` on the test's server and waits for the app to mount.
    pub async fn open_app(&self, path: &str) {
        self.client
            .goto(&format!("{}{path}", self.base))
            .await
            .expect("navigate");
        self.wait_for("#composer-input").await;
    }

    /// Navigates to `path` without waiting for anything.
    pub async fn goto(&self, path: &str) {
        self.client
            .goto(&format!("{}{path}", self.base))
            .await
            .expect("navigate");
    }

    /// Sets the value of the field `css` as typing would (an `input` and a `change`
    /// event), in one step.
    pub async fn set_value(&self, css: &str, text: &str) {
        self.js(
            "const el = document.querySelector(arguments[0]);
             el.value = arguments[1];
             el.dispatchEvent(new Event('input', {bubbles: true}));
             el.dispatchEvent(new Event('change', {bubbles: true}));",
            vec![json!(css), json!(text)],
        )
        .await;
    }

    /// Reloads and waits for the app to mount again.
    pub async fn reload_app(&self) {
        self.client.refresh().await.expect("reload");
        self.wait_for("#composer-input").await;
    }

    /// Waits until `css` matches an element, and returns it. A lookup that fails for
    /// another reason than "no such element" (ChromeDriver answers "aborted by
    /// navigation" while the page is being replaced, as after a sign-in redirect) counts
    /// as not yet; the last error is reported if the element never comes.
    pub async fn wait_for(&self, css: &str) -> Element {
        let deadline = Instant::now() + WAIT;
        loop {
            let error = match self.client.find(Locator::Css(css)).await {
                Ok(element) => return element,
                Err(error) => error.to_string(),
            };
            assert!(
                Instant::now() < deadline,
                "no element matches `{css}`: {error}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its value.
    pub async fn js(&self, script: &str, args: Vec<Value>) -> Value {
        self.client
            .execute(script, args)
            .await
            .unwrap_or_else(|error| panic!("script failed: {error}\n{script}"))
    }

    /// Runs the asynchronous `script` (it calls `arguments[arguments.length - 1]` with
    /// its result) and returns that result.
    pub async fn js_async(&self, script: &str, args: Vec<Value>) -> Value {
        self.client
            .execute_async(script, args)
            .await
            .unwrap_or_else(|error| panic!("script failed: {error}\n{script}"))
    }

    /// Polls the JavaScript `expression` until it is truthy. An expression that throws
    /// (an element of a lazily loaded chunk not there yet) counts as not yet; the last
    /// error is reported if it never comes true.
    pub async fn wait_until(&self, expression: &str) {
        self.wait_until_within(expression, WAIT).await;
    }

    /// Polls the JavaScript `expression` until its value is `expected`; if it never is,
    /// the last value seen is reported beside the one expected.
    pub async fn wait_for_value(&self, expression: &str, expected: &Value) {
        let deadline = Instant::now() + WAIT;
        let script = format!("return ({expression});");
        loop {
            let seen = match self.client.execute(&script, vec![]).await {
                Ok(value) if value == *expected => return,
                Ok(value) => value.to_string(),
                Err(error) => format!("an error: {error}"),
            };
            assert!(
                Instant::now() < deadline,
                "timed out waiting for `{expression}` to be {expected}; last seen: {seen}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Stores `locale` as the user's language choice, reloads, and waits until the page
    /// is in it.
    pub async fn reload_in(&self, locale: &str) {
        self.js(
            "localStorage.setItem('hearth.locale', arguments[0])",
            vec![json!(locale)],
        )
        .await;
        self.reload_app().await;
        self.wait_until(&format!(
            "document.documentElement.lang === {}",
            json!(locale)
        ))
        .await;
    }

    /// Waits until a toast's text holds `text`.
    pub async fn wait_for_toast(&self, text: &str) {
        self.wait_until(&format!(
            "[...document.querySelectorAll('.toast')].some((t) => t.textContent.includes({}))",
            json!(text)
        ))
        .await;
    }

    /// [`Browser::wait_until`] with its own bound, for work that is heavy by design (an
    /// 8 MiB reply), which a machine running many tests at once may take longer than
    /// [`WAIT`] to finish.
    pub async fn wait_until_within(&self, expression: &str, bound: Duration) {
        let deadline = Instant::now() + bound;
        let script = format!("return !!({expression});");
        loop {
            let error = match self.client.execute(&script, vec![]).await {
                Ok(Value::Bool(true)) => return,
                Ok(_) => String::new(),
                Err(error) => format!(" (last error: {error})"),
            };
            assert!(
                Instant::now() < deadline,
                "timed out waiting for `{expression}`{error}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Sends keys to the focused element. Modifier keys (Shift) stay held until the end
    /// of the sequence, as WebDriver specifies.
    pub async fn press(&self, keys: &[Key]) {
        let text: String = keys.iter().map(|key| char::from(*key)).collect();
        self.client
            .active_element()
            .await
            .expect("a focused element")
            .send_keys(&text)
            .await
            .expect("send keys");
    }

    /// Presses Ctrl and `key` together on the focused element (a keyboard shortcut).
    pub async fn press_ctrl(&self, key: char) {
        self.press_chord(&[Key::Control], key).await;
    }

    /// Presses `modifiers` and `key` together on the focused element (a chord such as
    /// Ctrl+Shift+O), and lets go of the modifiers (ChromeDriver keeps them down until
    /// told).
    pub async fn press_chord(&self, modifiers: &[Key], key: char) {
        let mut chord: String = modifiers.iter().map(|m| char::from(*m)).collect();
        chord.push(key);
        chord.push(char::from(Key::Null));
        self.client
            .active_element()
            .await
            .expect("a focused element")
            .send_keys(&chord)
            .await
            .expect("send the chord");
    }

    /// A description of the focused element: its id, else its role and accessible name.
    pub async fn focused(&self) -> String {
        let value = self
            .js(
                "const e = document.activeElement;
                 if (!e || e === document.body) return 'body';
                 return e.id || ((e.getAttribute('role') || e.tagName.toLowerCase()) + ':' +
                     (e.getAttribute('aria-label') || e.textContent.trim()));",
                vec![],
            )
            .await;
        value.as_str().unwrap_or_default().to_string()
    }

    /// Clicks the element `css` matches as a user would (a trusted click: a popup it
    /// opens is allowed), finding it again when the page drew it anew between finding
    /// and clicking (a stale element), until the wait's deadline.
    pub async fn click(&self, css: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            let error = match self.wait_for(css).await.click().await {
                Ok(()) => return,
                Err(error) => error.to_string(),
            };
            assert!(
                Instant::now() < deadline && error.contains("stale element"),
                "click `{css}`: {error}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Clicks the element `css` matches the way a script does, so a toast passing over
    /// it cannot take the click (WebDriver would answer `ElementClickIntercepted`).
    pub async fn click_by_script(&self, css: &str) {
        self.wait_for(css).await;
        self.js(
            "document.querySelector(arguments[0]).click()",
            vec![json!(css)],
        )
        .await;
    }

    /// Lets the page download files, into `dir`.
    pub async fn allow_downloads(&self, dir: &std::path::Path) {
        self.cdp(
            "Browser.setDownloadBehavior",
            serde_json::json!({"behavior": "allow", "downloadPath": dir.to_str().expect("a UTF-8 path")}),
        )
        .await;
    }

    /// Runs the DevTools command `command` with `params` and returns its result.
    pub async fn cdp(&self, command: &str, params: Value) -> Value {
        self.client
            .issue_cmd(SessionPost {
                path: "goog/cdp/execute",
                body: json!({"cmd": command, "params": params}),
            })
            .await
            .unwrap_or_else(|error| panic!("CDP {command} failed: {error}"))
    }

    /// The origin the app is served from (`http://127.0.0.1:<port>`).
    pub fn origin(&self) -> &str {
        &self.base
    }

    /// Console entries since the last call (the browser empties its log on read).
    pub async fn console_log(&self) -> Vec<LogEntry> {
        let value = self
            .client
            .issue_cmd(SessionPost {
                path: "se/log",
                body: json!({"type": "browser"}),
            })
            .await
            .expect("read the browser log");
        value
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|entry| LogEntry {
                        level: entry["level"].as_str().unwrap_or_default().to_string(),
                        message: entry["message"].as_str().unwrap_or_default().to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Console errors since the last read (`SEVERE` entries: uncaught errors,
    /// `console.error`, failed loads and CSP violations).
    pub async fn console_errors(&self) -> Vec<LogEntry> {
        self.console_log()
            .await
            .into_iter()
            .filter(|entry| entry.level == "SEVERE")
            .collect()
    }

    /// Fails the test if the app logged errors since the last read. Chromium asks for
    /// `/favicon.ico` on a same-origin page that is not the app (the API's JSON, used to
    /// reach the origin's storage without the app); that 404 is the browser's, not the
    /// app's.
    pub async fn assert_no_app_errors_beside_a_json_page(&self) {
        let errors: Vec<String> = self
            .console_errors()
            .await
            .into_iter()
            .map(|entry| entry.message)
            .filter(|message| !message.contains("/favicon.ico"))
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
    }

    /// Opens a new tab and switches to it (blank until told where to go); the tab the
    /// driver was on, to switch back to.
    pub async fn open_tab(&self) -> (WindowHandle, WindowHandle) {
        let first = self.client.window().await.expect("window");
        let second = self.client.new_window(true).await.expect("new tab");
        self.client
            .switch_to_window(second.handle.clone())
            .await
            .expect("switch to the new tab");
        (first, second.handle)
    }

    /// Fails the test if the console logged errors since the last read.
    pub async fn assert_no_console_errors(&self) {
        let errors = self.console_errors().await;
        assert!(
            errors.is_empty(),
            "the page logged errors: {:#?}",
            errors.iter().map(|e| &e.message).collect::<Vec<_>>()
        );
    }

    /// Fails the test if the app logged an error that `expected` does not accept (the
    /// failed requests a test asked for: the browser logs an edge's 4xx and 5xx).
    pub async fn assert_no_console_errors_but(&self, expected: impl Fn(&str) -> bool) {
        let unexpected: Vec<String> = self
            .console_errors()
            .await
            .into_iter()
            .map(|entry| entry.message)
            .filter(|message| !expected(message))
            .collect();
        assert!(
            unexpected.is_empty(),
            "the page logged errors: {unexpected:#?}"
        );
    }

    /// A `localStorage` entry (`null` when absent).
    pub async fn local_storage(&self, key: &str) -> Value {
        self.js(
            "return localStorage.getItem(arguments[0])",
            vec![json!(key)],
        )
        .await
    }

    /// Chooses `paths` in the file input `css` as a picker would: once it takes a choice
    /// (not disabled).
    pub async fn choose_files(&self, css: &str, paths: &[&std::path::Path]) {
        let joined = paths
            .iter()
            .map(|p| p.to_str().expect("a UTF-8 path"))
            .collect::<Vec<_>>()
            .join("\n");
        // ChromeDriver sets the files of a disabled input too, which no user can: a test
        // that chose the next file while an import still ran (the input disabled) had
        // that import's end wipe out the new file's summary.
        self.wait_until(&format!(
            "document.querySelector({})?.disabled === false",
            json!(css)
        ))
        .await;
        self.wait_for(css)
            .await
            .send_keys(&joined)
            .await
            .expect("choose the files");
    }

    /// The visible text of the first element matching `css`, once it exists. WebDriver
    /// reports an element that is fading in (opacity 0) as having no text; wait on
    /// `textContent` with [`Browser::wait_until`] for animated elements.
    pub async fn text_of(&self, css: &str) -> String {
        self.wait_for(css).await.text().await.unwrap_or_default()
    }

    /// Opens the settings dialog from the sidebar (unless a `#settings/…` deep link has
    /// already opened it) and selects the tab `slug`.
    pub async fn open_settings_tab(&self, slug: &str) {
        let deep_link = self
            .js("return location.hash.startsWith('#settings')", vec![])
            .await;
        if deep_link == Value::Bool(true) {
            self.wait_until("document.querySelector('dialog')?.open")
                .await;
        } else {
            self.wait_for(".sidebar__footer .sidebar__item")
                .await
                .click()
                .await
                .expect("open settings");
        }
        self.wait_for(&format!("#settings-tab-{slug}"))
            .await
            .click()
            .await
            .expect("select the settings tab");
    }

    /// Closes the settings dialog with Escape and waits until it is closed.
    pub async fn close_settings(&self) {
        self.press(&[Key::Escape]).await;
        self.wait_until("!document.querySelector('dialog')?.open")
            .await;
    }

    /// Replaces the text of the control `css` with `text` (typed, as a user would).
    pub async fn fill(&self, css: &str, text: &str) {
        let input = self.wait_for(css).await;
        input.clear().await.expect("clear");
        if !text.is_empty() {
            input.send_keys(text).await.expect("type");
        }
    }

    /// Resizes the window so the viewport is `width` × `height`.
    pub async fn resize(&self, width: u32, height: u32) {
        self.client
            .set_window_size(width, height)
            .await
            .expect("resize");
        self.wait_until(&format!("window.innerWidth === {width}"))
            .await;
    }

    /// Saves a screenshot to `e2e/artifacts/<name>.png` and returns its path.
    pub async fn screenshot(&self, name: &str) -> std::path::PathBuf {
        let png = self.client.screenshot().await.expect("screenshot");
        let path = paths::artifacts_dir().join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write screenshot");
        path
    }

    /// Ends the session (closes Chromium).
    pub async fn close(self) {
        let _ = self.client.close().await;
    }
}
