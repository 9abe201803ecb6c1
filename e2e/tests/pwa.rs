//! The installed app in Chromium against the real build: the service worker precaches
//! exactly the files of this build and nothing of the edge or of providers, the app is
//! installable (checked by DevTools, with the manifest's icons, shortcuts, share target
//! and file handler), and with the edge stopped and the network cut it starts, opens and
//! renders a stored conversation, searches, opens the settings and exports; sending says
//! it is offline, and works again once the network is back. A share (the share target's
//! multipart POST) lands in a new chat's composer, text and files; the shortcuts open a
//! new chat and the search palette. The manifest the page links is in the user's
//! language, and each translated one differs from the English only in its words.

use std::collections::BTreeSet;

use hearth_e2e::chat::{click_in_last, last_status, open_latest, ready, send};
use hearth_e2e::paths::dist_dir;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::{AppSession, Browser};
use serde_json::{Value, json};

/// The build as the service worker knows it (`dist/sw.js`, written by the build).
fn build_of_worker() -> Value {
    let worker = std::fs::read_to_string(dist_dir().join("sw.js")).expect("dist/sw.js");
    let start = worker.find("const BUILD = ").expect("the BUILD line") + "const BUILD = ".len();
    let end = start
        + worker[start..]
            .find(";\n")
            .expect("the end of the BUILD line");
    serde_json::from_str(&worker[start..end]).expect("BUILD is JSON")
}

/// Every file of `dist/` but the worker itself, as URL paths.
fn files_of_dist() -> BTreeSet<String> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).expect("read dist") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                if relative != "sw.js" {
                    out.insert(format!("/{relative}"));
                }
            }
        }
    }
    let root = dist_dir();
    let mut out = BTreeSet::new();
    walk(&root, &root, &mut out);
    out
}

/// Waits until the service worker controls the page and has activated.
async fn controlled(session: &Browser) {
    session
        .wait_until(
            "navigator.serviceWorker.controller !== null && \
             navigator.serviceWorker.controller.state === 'activated'",
        )
        .await;
}

/// Every cache and the URLs it holds: `{name: [url, …]}`.
async fn caches(session: &Browser) -> Value {
    session
        .js_async(
            "const done = arguments[arguments.length - 1];
             (async () => {
               const out = {};
               for (const name of await caches.keys()) {
                 out[name] = (await (await caches.open(name)).keys()).map((r) => r.url);
               }
               return out;
             })().then(done, (e) => done(String(e)));",
            vec![],
        )
        .await
}

async fn set_offline(session: &Browser, offline: bool) {
    session.cdp("Network.enable", json!({})).await;
    session
        .cdp(
            "Network.emulateNetworkConditions",
            json!({"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}),
        )
        .await;
}

#[tokio::test]
async fn the_installed_app_works_offline_and_its_cache_holds_the_build_and_nothing_else() {
    let fixture = ProviderFixture::start().await;
    fixture.enqueue(Reply::text(
        "Lighthouses guide ships past dangerous coasts.\n\n```mermaid\nflowchart LR\n  Ship --> Light\n```\n\n```html\n<p>A lamp</p>\n```\n",
    ));
    let mut session = ready(&fixture).await;
    send(&session, "Tell me about lighthouses").await;
    last_status(&session, "done").await;
    controlled(&session).await;
    // The first worker taking the page is no new version.
    assert_eq!(
        session
            .js("return !!document.getElementById('update-bar')", vec![])
            .await,
        json!(false)
    );

    // The worker's list is this build's files, each of them, and its cache holds exactly
    // them: never an /api/ answer, never another origin.
    let build = build_of_worker();
    let listed: BTreeSet<String> = build["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, files_of_dist(), "the precache list is not dist/");
    assert!(
        listed
            .iter()
            .any(|f| f.ends_with("_bg.wasm") && f.contains("hearth-search"))
    );
    assert!(
        listed.iter().any(|f| f.contains("/split_")),
        "no lazy chunk: {listed:?}"
    );
    let origin = session.origin().to_string();
    let shell = format!("hearth-shell-{}", build["version"].as_str().unwrap());
    let cached = caches(&session).await;
    let held: BTreeSet<String> = cached[&shell]
        .as_array()
        .unwrap_or_else(|| panic!("no {shell} in {cached}"))
        .iter()
        .map(|u| u.as_str().unwrap().trim_start_matches(&origin).to_string())
        .collect();
    // The build, and the sandbox pages as the edge sent them (previews, diagrams, a
    // reply's picture and MCP Apps work offline).
    let mut expected = listed.clone();
    expected.extend([
        "/sandbox/artifact".to_string(),
        "/sandbox/diagram".to_string(),
        "/sandbox/picture".to_string(),
        "/sandbox/app".to_string(),
    ]);
    assert_eq!(held, expected);
    for (name, urls) in cached.as_object().unwrap() {
        for url in urls.as_array().unwrap() {
            let url = url.as_str().unwrap();
            assert!(
                url.starts_with(&origin),
                "{name} holds {url}, of another origin"
            );
            assert!(!url.contains("/api/"), "{name} holds an edge answer: {url}");
        }
    }

    // Installable, as DevTools judges it; the manifest as it parsed.
    let installability = session.cdp("Page.getInstallabilityErrors", json!({})).await;
    assert_eq!(
        installability["installabilityErrors"],
        json!([]),
        "{installability}"
    );
    let manifest = session.cdp("Page.getAppManifest", json!({})).await;
    assert_eq!(manifest["errors"], json!([]), "{manifest}");
    let parsed: Value = serde_json::from_str(manifest["data"].as_str().unwrap()).unwrap();
    let icons = parsed["icons"].as_array().unwrap();
    for (size, purpose) in [
        ("192x192", "any"),
        ("512x512", "any"),
        ("512x512", "maskable"),
    ] {
        assert!(
            icons
                .iter()
                .any(|i| i["sizes"] == size && i["purpose"] == purpose && i["type"] == "image/png"),
            "no {size} {purpose} PNG icon: {icons:?}"
        );
    }
    for icon in icons {
        let src = icon["src"].as_str().unwrap();
        assert!(listed.contains(src), "{src} is not in the build");
    }
    assert_eq!(parsed["share_target"]["action"], "/share");
    assert_eq!(parsed["share_target"]["method"], "POST");
    assert_eq!(
        parsed["file_handlers"][0]["accept"]["application/zip"],
        json!([".zip"])
    );
    let shortcuts: Vec<&str> = parsed["shortcuts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["url"].as_str().unwrap())
        .collect();
    assert_eq!(shortcuts, ["/?action=new-chat", "/?action=search"]);

    // The edge stops and the network goes: the app still starts, from the cache.
    session.stack.hearth.stop();
    set_offline(&session, true).await;
    session.reload_app().await;
    session.wait_for("#offline-badge").await;
    let badge = session.text_of("#offline-badge").await;
    assert!(badge.contains("Offline"), "{badge}");
    // The stored conversation opens and its Markdown renders (the render worker's chunk
    // comes from the cache too).
    open_latest(&session).await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant .markdown')]\
             .some((m) => m.textContent.includes('dangerous coasts'))",
        )
        .await;
    // Its diagram is drawn: Mermaid and the diagram sandbox come from the cache, the
    // sandbox with its own policy (its origin stays opaque).
    session
        .wait_until(
            "document.querySelector('.message--assistant .diagram__image')?.getAttribute('src')
               ?.startsWith('data:image/svg+xml')",
        )
        .await;
    assert_eq!(
        session
            .js(
                "const f = document.querySelector('iframe.diagram-sandbox');
                 try { return f.contentDocument === null; } catch (e) { return true; }",
                vec![]
            )
            .await,
        json!(true),
        "the cached sandbox page lost its policy"
    );
    // A code block previews too, from the kept artifact page.
    session
        .js(
            "document.querySelector('.message--assistant [data-action=\"preview-code\"]').click()",
            vec![],
        )
        .await;
    session
        .wait_until("document.querySelector('dialog.dialog--preview[open] .preview')?.dataset.status === 'shown'")
        .await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog.dialog--preview[open]')")
        .await;
    session.screenshot("pwa-offline").await;
    // Search answers (its worker and index come from the cache and OPFS).
    session.press_ctrl('k').await;
    let input = session.wait_for(".search-palette__input").await;
    input
        .send_keys("lighthouses")
        .await
        .expect("type the query");
    session
        .wait_until("document.querySelectorAll('.search-result').length === 1")
        .await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog.dialog--search')?.open")
        .await;
    // The settings open, and export writes its archive.
    session.open_settings_tab("data").await;
    session.click("#data-export").await;
    session.wait_for_toast("Exported").await;
    session.press(&[fantoccini::key::Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog')?.open")
        .await;

    // Sending says it is offline, and keeps the turn for Retry.
    fixture.enqueue(Reply::text("Fresnel lenses focus the light."));
    send(&session, "And their lenses?").await;
    last_status(&session, "error").await;
    let error = session
        .js(
            "return [...document.querySelectorAll('.message')].at(-1)\
               .querySelector('.status-block__detail')?.textContent ?? ''",
            vec![],
        )
        .await;
    assert!(error.as_str().unwrap().contains("offline"), "{error}");

    // Offline, the page logged nothing but the network's own failures.
    for entry in session.console_errors().await {
        assert!(
            entry.message.contains("net::ERR_"),
            "offline, the page logged more than failed requests: {}",
            entry.message
        );
    }

    // The network and the edge come back: the badge goes, and Retry sends.
    session.stack.hearth.restart();
    set_offline(&session, false).await;
    session
        .wait_until("!document.getElementById('offline-badge')")
        .await;
    click_in_last(&session, "assistant", "Retry").await;
    last_status(&session, "done").await;
    let last = session
        .js("return document.querySelectorAll('.message--assistant .markdown')[1]?.textContent ?? ''", vec![])
        .await;
    assert!(last.as_str().unwrap().contains("Fresnel"), "{last}");
    session.finish().await;
}

/// A copy of `dist/` whose worker is another version (as the next build's would be).
fn next_build() -> tempfile::TempDir {
    let copy = tempfile::tempdir().expect("a temporary directory");
    hearth_e2e::paths::copy_dir(&dist_dir(), copy.path());
    let version = build_of_worker()["version"].as_str().unwrap().to_string();
    let worker = std::fs::read_to_string(copy.path().join("sw.js")).unwrap();
    let next = worker.replace(&version, "0123456789abcdef");
    assert_ne!(worker, next);
    std::fs::write(copy.path().join("sw.js"), next).unwrap();
    copy
}

#[tokio::test]
async fn a_new_version_is_announced_and_taken_on_reload_but_never_during_a_reply() {
    let fixture = ProviderFixture::start().await;
    let mut session = ready(&fixture).await;
    controlled(&session).await;
    let first = build_of_worker()["version"].as_str().unwrap().to_string();

    // The edge now serves the next build; the page asks for updates (as it does hourly,
    // and the browser on each navigation).
    let next = next_build();
    session.stack.hearth.serve(next.path());
    session
        .js_async(
            "const done = arguments[arguments.length - 1];
             navigator.serviceWorker.getRegistration().then((r) => r.update()).then(() => done(true), (e) => done(String(e)));",
            vec![],
        )
        .await;
    // Installing the next build precaches all of it: heavy by design, and slower still
    // on a machine running other browsers at once.
    session
        .wait_until_within(
            "!!document.getElementById('update-reload')",
            std::time::Duration::from_secs(60),
        )
        .await;
    let bar = session.text_of("#update-bar").await;
    assert!(bar.contains("new version"), "{bar}");
    session.screenshot("pwa-update-ready").await;

    // A reply is being written: Reload waits for it.
    session.js("window.__beforeUpdate = true", vec![]).await;
    fixture.enqueue(Reply::text("one two three four").stall_after(2));
    send(&session, "Count to four").await;
    last_status(&session, "streaming").await;
    session.click_by_script("#update-reload").await;
    session
        .wait_until("document.getElementById('update-bar')?.textContent.includes('reply')")
        .await;
    assert_eq!(
        session
            .js("return window.__beforeUpdate === true", vec![])
            .await,
        json!(true)
    );
    assert_eq!(
        session
            .js(
                "return navigator.serviceWorker.controller.scriptURL",
                vec![]
            )
            .await,
        json!(format!("{}/sw.js", session.origin()))
    );

    // The reply ends, and the page reloads into the new version: the old version's cache
    // is kept for any tab still running it, the one before would not be.
    fixture.release();
    session
        .wait_until(
            "window.__beforeUpdate === undefined && !!document.getElementById('composer-input')",
        )
        .await;
    controlled(&session).await;
    session
        .wait_until("!document.getElementById('update-bar')")
        .await;
    let names: Vec<String> = caches(&session)
        .await
        .as_object()
        .unwrap()
        .keys()
        .filter(|name| name.starts_with("hearth-shell-"))
        .cloned()
        .collect();
    assert_eq!(
        names.iter().collect::<BTreeSet<_>>(),
        [
            format!("hearth-shell-{first}"),
            "hearth-shell-0123456789abcdef".to_string()
        ]
        .iter()
        .collect::<BTreeSet<_>>()
    );
    // The reply was not cut: it finished before the reload and is stored.
    open_latest(&session).await;
    last_status(&session, "done").await;
    session.finish().await;
}

/// Submits what another app would share, as the share target's multipart POST.
const SHARE: &str = r#"
const form = document.createElement('form');
form.method = 'post';
form.enctype = 'multipart/form-data';
form.action = '/share';
for (const [name, value] of [['title', 'Trip notes'], ['text', 'Packing list for Kyoto'], ['url', 'https://example.com/kyoto']]) {
  const input = document.createElement('input');
  input.type = 'hidden';
  input.name = name;
  input.value = value;
  form.append(input);
}
const files = document.createElement('input');
files.type = 'file';
files.name = 'files';
files.multiple = true;
const transfer = new DataTransfer();
transfer.items.add(new File(['day 1: temples\nday 2: gardens\n'], 'itinerary.txt', { type: 'text/plain' }));
files.files = transfer.files;
form.append(files);
document.body.append(form);
form.submit();
"#;

/// Shares `arguments[0]` small text files and nothing else.
const SHARE_FILES: &str = r#"
const form = document.createElement('form');
form.method = 'post';
form.enctype = 'multipart/form-data';
form.action = '/share';
const files = document.createElement('input');
files.type = 'file';
files.name = 'files';
files.multiple = true;
const transfer = new DataTransfer();
for (let i = 0; i < arguments[0]; i++) {
  transfer.items.add(new File(['note ' + i + '\n'], 'note-' + i + '.txt', { type: 'text/plain' }));
}
files.files = transfer.files;
form.append(files);
document.body.append(form);
form.submit();
"#;

#[tokio::test]
async fn a_share_lands_in_a_new_chat_and_the_shortcuts_open_what_they_name() {
    let session = AppSession::open(1280, 900).await;
    controlled(&session).await;
    session.js(SHARE, vec![]).await;
    session
        .wait_until("document.getElementById('composer-input')?.value.includes('Kyoto')")
        .await;
    let draft = session
        .js(
            "return document.getElementById('composer-input').value",
            vec![],
        )
        .await;
    assert_eq!(
        draft,
        json!("Trip notes\n\nPacking list for Kyoto\n\nhttps://example.com/kyoto")
    );
    session
        .wait_until(
            "[...document.querySelectorAll('.composer .attachment-chip__name')]\
             .some((n) => n.textContent === 'itinerary.txt') && \
             !document.querySelector('.composer .attachment-chip--busy')",
        )
        .await;
    // The address bar lost the share, and the worker's copy is gone.
    assert_eq!(
        session.js("return location.search", vec![]).await,
        json!("")
    );
    let left = caches(&session).await;
    assert_eq!(left["hearth-share"], json!([]), "{left}");

    // More files than a message holds: the worker keeps 10, the composer shows them,
    // and the page says how many were not received.
    session.js(SHARE_FILES, vec![json!(12)]).await;
    session
        .wait_until(
            "[...document.querySelectorAll('.toast')].some((t) => \
               t.textContent.includes('2 of the shared files could not be received'))",
        )
        .await;
    session
        .wait_until(
            "document.querySelectorAll('.composer .attachment-chip').length === 10 && \
             !document.querySelector('.composer .attachment-chip--busy')",
        )
        .await;
    let left = caches(&session).await;
    assert_eq!(left["hearth-share"], json!([]), "{left}");

    // A share id nobody made: said, and nothing else happens.
    session.open_app("/?share=..%2F..%2Fapi%2Fconfig").await;
    session.wait_for_toast("shared").await;

    // The shortcuts.
    session.open_app("/?action=search").await;
    session
        .wait_until("!!document.querySelector('dialog.dialog--search')?.open")
        .await;
    assert_eq!(
        session.js("return location.search", vec![]).await,
        json!("")
    );
    session.open_app("/?action=new-chat").await;
    session
        .wait_until("document.activeElement?.id === 'composer-input'")
        .await;
    session.finish().await;
}

/// The manifest the page links, its parse errors, and its parsed data, as DevTools reads
/// them.
async fn manifest_of(session: &Browser) -> (String, Value, Value) {
    let manifest = session.cdp("Page.getAppManifest", json!({})).await;
    let parsed = serde_json::from_str(manifest["data"].as_str().unwrap_or("null")).unwrap();
    (
        manifest["url"].as_str().unwrap_or_default().to_string(),
        manifest["errors"].clone(),
        parsed,
    )
}

/// [`manifest_of`] once DevTools reads the manifest at `path`. Chromium learns of a
/// changed `<link rel=manifest>` from the page by a message of its own, so right after
/// a reload it may still answer with the manifest the page started with; a page that
/// never links `path` fails here.
async fn manifest_at(session: &Browser, path: &str) -> (Value, Value) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (url, errors, parsed) = manifest_of(session).await;
        if url.ends_with(path) {
            return (errors, parsed);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "DevTools still reads {url}, not {path}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The shortcuts' names of a parsed manifest.
fn shortcut_names(parsed: &Value) -> Vec<String> {
    parsed["shortcuts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_installed_apps_name_and_shortcuts_are_in_the_users_language() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    controlled(&session).await;
    let (url, errors, parsed) = manifest_of(&session).await;
    assert!(url.ends_with("/manifest.webmanifest"), "{url}");
    assert_eq!(errors, json!([]));
    assert_eq!(
        shortcut_names(&parsed),
        ["New chat", "Search conversations"]
    );

    // Chosen before the page starts: the page links the Japanese manifest from the start,
    // and the app stays installable with it.
    session.reload_in("ja").await;
    assert_eq!(
        session
            .js(
                "return document.querySelector('link[rel=manifest]').getAttribute('href')",
                vec![]
            )
            .await,
        json!("/manifest.ja.webmanifest")
    );
    let (errors, parsed) = manifest_at(&session, "/manifest.ja.webmanifest").await;
    assert_eq!(errors, json!([]));
    assert_eq!(parsed["lang"], "ja");
    assert_eq!(shortcut_names(&parsed), ["新しいチャット", "会話を検索"]);
    let installability = session.cdp("Page.getInstallabilityErrors", json!({})).await;
    assert_eq!(
        installability["installabilityErrors"],
        json!([]),
        "{installability}"
    );

    // Chosen in Settings: the link follows at once.
    session.open_settings_tab("general").await;
    session
        .wait_for("#settings-language")
        .await
        .select_by_value("zh-CN")
        .await
        .expect("choose Chinese");
    session
        .wait_until(
            "document.querySelector('link[rel=manifest]').getAttribute('href') === '/manifest.zh-CN.webmanifest'",
        )
        .await;
    let (errors, parsed) = manifest_at(&session, "/manifest.zh-CN.webmanifest").await;
    assert_eq!(errors, json!([]));
    assert_eq!(shortcut_names(&parsed), ["新对话", "搜索对话"]);
    session.finish().await;
}

/// Each translated manifest is the English one with only its words translated: the same
/// icons, shortcuts' targets, share target and file handler, so no language loses one.
#[test]
fn the_translated_manifests_differ_from_the_english_one_only_in_their_words() {
    let read = |name: &str| -> Value {
        let path = hearth_e2e::paths::repo_root().join("public").join(name);
        serde_json::from_str(&std::fs::read_to_string(&path).expect("a manifest"))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let english = read("manifest.webmanifest");
    assert_eq!(english["lang"], "en");
    for tag in ["zh-CN", "ja"] {
        let catalog: Value = serde_json::from_str(
            &std::fs::read_to_string(
                hearth_e2e::paths::repo_root().join(format!("app/locales/{tag}.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let mut translated = read(&format!("manifest.{tag}.webmanifest"));
        assert_eq!(translated["lang"], tag);
        let description = translated["description"].as_str().unwrap().to_string();
        assert!(!description.is_empty() && translated["description"] != english["description"]);
        // The shortcuts say what the app's own sidebar and palette say.
        assert_eq!(
            translated["shortcuts"][0]["name"],
            catalog["sidebar.new_chat"]
        );
        assert_eq!(translated["shortcuts"][1]["name"], catalog["search.title"]);
        assert_eq!(
            translated["shortcuts"][1]["short_name"],
            catalog["sidebar.search"]
        );
        // Put the English words back: what is left must be the English manifest.
        translated["lang"] = english["lang"].clone();
        translated["description"] = english["description"].clone();
        for i in 0..2 {
            for field in ["name", "short_name"] {
                translated["shortcuts"][i][field] = english["shortcuts"][i][field].clone();
            }
        }
        assert_eq!(translated, english, "{tag}");
    }
}
