//! Mermaid diagrams in replies, on the real build in Chromium. A diagram is drawn by the
//! vendored Mermaid inside the diagram sandbox (an opaque origin with no network) and
//! shown in the reply as an image: while its fence streams it keeps its last good
//! drawing, and an error shows only once the fence has closed. Hostile sources (HTML and
//! scripts in labels, `javascript:` links, `%%{init}%%` asking for `loose`, CSS reaching
//! out) stay inert: nothing runs in the app, nothing reaches another host. Full screen
//! zooms and pans, closes with Escape and gives focus back; SVG and PNG files are saved.
//! A Mermaid that fails its integrity check never runs: the code is shown with a note.

use fantoccini::key::Key;
use hearth_e2e::AppSession;
use hearth_e2e::chat::{last_status, ready, reload_in_theme, reply_menu, send};
use hearth_e2e::paths;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::tap::counting_listener;
use serde_json::{Value, json};
use std::sync::atomic::Ordering;

/// Every diagram of the last reply: whether its fence is open, what it shows, its
/// picture's SVG (decoded from the image's `data:` URL), its error.
const DIAGRAMS: &str = "
    const reply = [...document.querySelectorAll('.message--assistant')].at(-1);
    return [...(reply ? reply.querySelectorAll('[data-diagram]') : [])].map((block) => {
      const image = block.querySelector('.diagram__image');
      const src = image ? image.getAttribute('src') : null;
      return {
        open: block.hasAttribute('data-diagram-open'),
        shown: block.getAttribute('data-diagram-shown'),
        busy: block.getAttribute('aria-busy'),
        alt: image ? image.alt : null,
        tag: image ? image.tagName : null,
        src: src ? src.slice(0, 40) : null,
        svg: src ? new TextDecoder().decode(
          Uint8Array.from(atob(src.slice(src.indexOf(',') + 1)), (c) => c.charCodeAt(0))) : null,
        error: block.querySelector('.diagram__error')?.textContent ?? null,
        codeShown: getComputedStyle(block.querySelector('pre')).display !== 'none',
      };
    });";

async fn diagrams(session: &AppSession) -> Vec<Value> {
    session
        .js(DIAGRAMS, vec![])
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Waits until every diagram of the last reply shows a picture or an error.
async fn all_settled(session: &AppSession, count: usize) -> Vec<Value> {
    session
        .wait_until(&format!(
            "(() => {{ const blocks = [...document.querySelectorAll('.message--assistant')].at(-1)
                 ?.querySelectorAll('[data-diagram]') ?? [];
               return blocks.length === {count} && [...blocks].every((b) =>
                 !b.hasAttribute('aria-busy') && b.querySelector('.diagram__image, .diagram__error')); }})()"
        ))
        .await;
    diagrams(session).await
}

const FLOWCHART_HEAD: &str =
    "```mermaid\nflowchart TD\n  A[Start] --> B{Ready?}\n  B -->|yes| C[Lighthouse]\n";
const FLOWCHART_TAIL: &str = "  B -->|no| D[Harbour]\n  D --> A\n```\n\nThat is the plan.";

#[tokio::test]
async fn a_streamed_diagram_keeps_its_last_good_drawing_and_shows_as_an_inert_image() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    // The stream stalls right after the line with C (a whole diagram so far), then goes
    // on through lines that do not parse until they are finished.
    let mut intro = String::from("Here is the flow");
    while !(intro.len() + 2 + FLOWCHART_HEAD.len()).is_multiple_of(8) {
        intro.push('.');
    }
    let head = format!("{intro}\n\n{FLOWCHART_HEAD}");
    fixture.enqueue(
        Reply::text(format!("{head}{FLOWCHART_TAIL}"))
            .text_chunk_chars(8)
            .delay_ms(25)
            .stall_after(head.len() / 8),
    );
    send(&session, "Draw the plan").await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               ?.querySelector('[data-diagram-open] .diagram__image') != null",
        )
        .await;
    let streaming = diagrams(&session).await;
    assert_eq!(streaming.len(), 1, "{streaming:?}");
    let open = &streaming[0];
    assert_eq!(open["open"], json!(true), "{open}");
    assert_eq!(open["tag"], json!("IMG"), "{open}");
    assert!(
        open["src"]
            .as_str()
            .unwrap()
            .starts_with("data:image/svg+xml"),
        "{open}"
    );
    let svg = open["svg"].as_str().unwrap();
    assert!(
        svg.contains("Lighthouse") && !svg.contains("Harbour"),
        "{svg}"
    );
    assert_eq!(open["alt"], json!("Diagram (flowchart)"));
    assert_eq!(
        open["codeShown"],
        json!(false),
        "the picture replaces the code"
    );
    session.screenshot("diagram-streaming").await;

    // From here every frame is watched: the lines that do not parse yet never show an
    // error while the fence is open.
    session
        .js(
            "window.diagramErrors = [];
             const watch = () => {
               const reply = [...document.querySelectorAll('.message--assistant')].at(-1);
               const error = reply.querySelector('[data-diagram-open] .diagram__error');
               if (error) window.diagramErrors.push(error.textContent);
               if (reply.dataset.status !== 'done') requestAnimationFrame(watch);
             };
             requestAnimationFrame(watch);",
            vec![],
        )
        .await;
    fixture.release();
    last_status(&session, "done").await;
    let done = all_settled(&session, 1).await;
    let finished = &done[0];
    assert_eq!(finished["open"], json!(false), "{finished}");
    let svg = finished["svg"].as_str().unwrap();
    assert!(
        svg.contains("Harbour") && svg.contains("Lighthouse"),
        "{svg}"
    );
    assert!(svg.starts_with("<svg") && svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(finished["error"], Value::Null);
    assert_eq!(
        session.js("return window.diagramErrors", vec![]).await,
        json!([]),
        "an error showed while the diagram streamed"
    );

    // The picture was drawn in the sandbox: an opaque origin the app cannot read, made so
    // by the page's own policy (a sandbox attribute would keep the service worker from
    // answering it offline); Mermaid was fetched once, for all the drawings.
    let sandbox = session
        .js(
            "const frames = [...document.querySelectorAll('iframe.diagram-sandbox')];
             const f = frames[0];
             let readable = true;
             try { readable = f.contentDocument !== null; } catch (e) { readable = false; }
             return {
               count: frames.length,
               sandbox: f.getAttribute('sandbox'),
               src: f.getAttribute('src'),
               hidden: f.getAttribute('aria-hidden'),
               readable,
               fetched: performance.getEntriesByType('resource')
                 .filter((e) => e.name.includes('/vendor/mermaid-')).length,
               inMessages: document.querySelectorAll('.message iframe').length,
             };",
            vec![],
        )
        .await;
    assert_eq!(
        sandbox,
        json!({"count": 1, "sandbox": null, "src": "/sandbox/diagram", "hidden": "true",
               "readable": false, "fetched": 1, "inMessages": 0})
    );
    let response = reqwest::get(format!("{}/sandbox/diagram", session.stack.hearth.url()))
        .await
        .unwrap();
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    for directive in [
        "sandbox allow-scripts",
        "connect-src 'none'",
        "script-src 'unsafe-inline' blob:",
        "default-src 'none'",
    ] {
        assert!(policy.contains(directive), "{directive} missing: {policy}");
    }
    session.screenshot("diagram-light").await;
    // The page follows the system's colour scheme: when it turns dark, the diagram is
    // drawn again in Mermaid's dark theme.
    session
        .cdp(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
        )
        .await;
    session
        .wait_until(
            "(() => { const b = [...document.querySelectorAll('.message--assistant')].at(-1).querySelector('[data-diagram]');
               return b.getAttribute('data-diagram-asked') === 'dark' && !b.hasAttribute('aria-busy'); })()",
        )
        .await;
    let redrawn = diagrams(&session).await;
    assert_ne!(
        redrawn[0]["svg"].as_str().unwrap(),
        svg,
        "drawn again in the same colours"
    );
    session
        .cdp("Emulation.setEmulatedMedia", json!({"features": []}))
        .await;
    // A chosen dark theme draws it in Mermaid's dark theme too.
    reload_in_theme(&session, "dark").await;
    hearth_e2e::chat::open_latest(&session).await;
    let dark = all_settled(&session, 1).await;
    let dark_svg = dark[0]["svg"].as_str().unwrap();
    assert_ne!(dark_svg, svg, "the dark drawing is the light one");
    session.screenshot("diagram-dark").await;
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn hostile_diagrams_stay_inert_and_a_broken_one_shows_its_error() {
    let (port, connections) = counting_listener().await;
    let target = format!("http://127.0.0.1:{port}");
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    session
        .js(
            "window.pwned = [];
             window.addEventListener('message', (e) => { if (e.data === 'pwned') window.pwned.push(e.origin); });",
            vec![],
        )
        .await;
    let hostile = [
        "%%{init: {\"securityLevel\": \"loose\", \"htmlLabels\": true}}%%\nflowchart TD\n  A[\"<img src=x onerror=top.postMessage('pwned','*')>\"] --> B\n  click A call alert(1)".to_string(),
        "flowchart TD\n  A[Link] --> B\n  click A href \"javascript:top.postMessage('pwned','*')\"".to_string(),
        format!("flowchart LR\n  A[\"<iframe src='{target}/frame'></iframe>\"] --> B[\"<a href='{target}/link'>x</a>\"]"),
        format!("%%{{init: {{\"themeCSS\": \".node rect {{ fill: url({target}/css) }}\", \"securityLevel\": \"antiscript\"}}}}%%\nflowchart TD\n  A --> B"),
        "sequenceDiagram\n  Alice->>Bob: <script>top.postMessage('pwned','*')</script>hello".to_string(),
        format!("---\nconfig:\n  securityLevel: loose\n---\nflowchart TD\n  A[\"<img src='{target}/image'>\"] --> B"),
        "flowchart TD\n  A -->".to_string(),
    ];
    let text: String = hostile
        .iter()
        .enumerate()
        .map(|(n, source)| format!("Diagram {n}:\n\n```mermaid\n{source}\n```\n\n"))
        .collect();
    fixture.enqueue(Reply::text(text));
    send(&session, "Draw these").await;
    last_status(&session, "done").await;
    let shown = all_settled(&session, hostile.len()).await;
    for (n, diagram) in shown.iter().enumerate().take(hostile.len() - 1) {
        assert_eq!(diagram["tag"], json!("IMG"), "diagram {n}: {diagram}");
        let svg = diagram["svg"].as_str().unwrap();
        // What would act (a handler, a script URL, a frame, CSS fetching); a link or an
        // image naming the listener may stay, since a picture follows or loads nothing
        // (the listener below proves it).
        for forbidden in ["onerror", "javascript:", "<script", "<iframe", "url(http"] {
            assert!(
                !svg.contains(forbidden),
                "diagram {n} kept {forbidden}: {svg}"
            );
        }
    }
    let broken = shown.last().unwrap();
    assert_eq!(broken["tag"], Value::Null, "{broken}");
    let error = broken["error"].as_str().unwrap();
    assert!(
        error.starts_with("This diagram could not be drawn: "),
        "{error}"
    );
    assert_eq!(
        broken["codeShown"],
        json!(true),
        "the code shows with the error"
    );
    // Nothing ran in the app and nothing left the browser.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(session.js("return window.pwned", vec![]).await, json!([]));
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "a diagram reached another host"
    );
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.message [onerror], .message script, .message iframe, .message a[href^=\"javascript\"]').length",
                vec![]
            )
            .await,
        json!(0)
    );
    session.screenshot("diagram-hostile").await;
    // The sandbox's own policy refusing the images the hostile sources name is the
    // defence at work; anything else logged is not.
    session
        .assert_no_console_errors_but(hearth_e2e::browser::sandbox_refusal)
        .await;
    session.finish().await;
}

/// Focuses and clicks the button `action` of the last reply's first diagram.
async fn click_diagram_button(session: &AppSession, action: &str) {
    session
        .js(
            "const b = [...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelector(`[data-action='${arguments[0]}']`);
             b.focus(); b.click();",
            vec![json!(action)],
        )
        .await;
}

/// The width and height in a PNG's header.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[tokio::test]
async fn a_diagram_goes_full_screen_and_saves_as_svg_and_png() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let downloads = paths::scratch_dir("diagram-export");
    session.allow_downloads(&downloads).await;
    fixture.enqueue(Reply::text(format!(
        "The plan:\n\n{FLOWCHART_HEAD}{FLOWCHART_TAIL}\n\nAnd a map:\n\n```mermaid\nmindmap\n  root((Hearth))\n    Chat\n      Branches\n    Diagrams\n```\n"
    )));
    send(&session, "Draw the plan and a map").await;
    last_status(&session, "done").await;
    let shown = all_settled(&session, 2).await;
    assert_eq!(
        shown[1]["alt"],
        json!("Diagram (mindmap)"),
        "{:?}",
        shown[1]
    );

    // Show code swaps the picture for the code, and back.
    click_diagram_button(&session, "diagram-code").await;
    let swapped = diagrams(&session).await;
    assert_eq!(swapped[0]["shown"], json!("code"));
    assert_eq!(swapped[0]["codeShown"], json!(true));
    click_diagram_button(&session, "diagram-code").await;
    assert_eq!(diagrams(&session).await[0]["shown"], json!("picture"));

    // Full screen: fitted, zoomed with +, closed with Escape, focus back on its button.
    click_diagram_button(&session, "diagram-full").await;
    session
        .wait_until("document.querySelector('dialog.dialog--diagram[open] .diagram-viewer__image.is-placed') != null")
        .await;
    assert_eq!(
        session
            .js(
                "return document.activeElement.classList.contains('diagram-viewer__stage')",
                vec![]
            )
            .await,
        json!(true),
        "the picture takes focus, for the keys"
    );
    let zoom = || async {
        session
            .js(
                "return parseInt(document.querySelector('.diagram-viewer__zoom').textContent, 10)",
                vec![],
            )
            .await
            .as_i64()
            .unwrap()
    };
    let fitted = zoom().await;
    session
        .client
        .active_element()
        .await
        .unwrap()
        .send_keys("+")
        .await
        .unwrap();
    session
        .wait_until(&format!(
            "parseInt(document.querySelector('.diagram-viewer__zoom').textContent, 10) > {fitted}"
        ))
        .await;
    let transform = session
        .js(
            "return document.querySelector('.diagram-viewer__image').style.transform",
            vec![],
        )
        .await;
    assert!(
        transform.as_str().unwrap().contains("scale("),
        "{transform}"
    );
    session.press(&[Key::Right]).await;
    session.screenshot("diagram-full-screen").await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until(
            "!document.querySelector('dialog.dialog--diagram[open]') &&
             document.activeElement?.dataset.action === 'diagram-full'",
        )
        .await;

    // The files: the SVG as drawn, the PNG at twice its size on the page's background.
    click_diagram_button(&session, "diagram-svg").await;
    let file = paths::downloaded_as(&downloads, "svg").await;
    assert_eq!(file.file_name().unwrap(), "diagram-flowchart.svg");
    let svg = std::fs::read_to_string(&file).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Harbour"), "{svg}");
    assert_eq!(Some(svg.as_str()), shown[0]["svg"].as_str());
    click_diagram_button(&session, "diagram-png").await;
    let file = paths::downloaded_as(&downloads, "png").await;
    assert_eq!(file.file_name().unwrap(), "diagram-flowchart.png");
    let natural = session
        .js(
            "const i = document.querySelector('.diagram__image'); return [i.naturalWidth, i.naturalHeight];",
            vec![],
        )
        .await;
    let (width, height) = png_size(&std::fs::read(&file).unwrap());
    assert_eq!(
        json!([width / 2, height / 2]),
        natural,
        "a PNG of {width}×{height}"
    );
    assert!(std::fs::metadata(&file).unwrap().len() > 2_000);

    // Reading mode shows the pictures too, and their buttons work there: full screen
    // opens above it, and Escape closes only the picture.
    reply_menu(&session, "Read").await;
    session
        .wait_until(
            "document.querySelector('.dialog--reading')?.open &&
             document.querySelectorAll('.reading .diagram__image').length === 2 &&
             ![...document.querySelectorAll('.reading [data-diagram]')].some((b) => b.hasAttribute('aria-busy'))",
        )
        .await;
    session
        .js(
            "const b = document.querySelector('.reading [data-action=\"diagram-full\"]'); b.focus(); b.click();",
            vec![],
        )
        .await;
    session
        .wait_until("document.querySelector('dialog.dialog--diagram[open] .diagram-viewer__image.is-placed') != null")
        .await;
    session.screenshot("diagram-reading-full-screen").await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until(
            "!document.querySelector('dialog.dialog--diagram[open]') &&
             document.querySelector('.dialog--reading').open &&
             document.activeElement?.closest('.reading') != null",
        )
        .await;
    session.assert_no_console_errors().await;
    let _ = std::fs::remove_dir_all(&downloads);
    session.finish().await;
}

#[tokio::test]
async fn a_mermaid_that_fails_its_integrity_check_never_runs_and_the_code_shows() {
    let fixture = ProviderFixture::start().await;
    let mut session = ready(&fixture).await;
    // The edge now serves a build whose Mermaid was swapped for a script that would
    // report itself and draw anything; neither cache may answer in its place.
    let tampered = paths::scratch_dir("diagram-tampered");
    paths::copy_dir(&paths::dist_dir(), &tampered);
    let vendor = tampered.join("vendor");
    let script = std::fs::read_dir(&vendor)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("mermaid-"))
        .expect("the vendored Mermaid in dist/vendor");
    std::fs::write(
        &script,
        "top.postMessage('tampered', '*'); window.mermaid = { initialize() {}, \
         render: async () => ({ svg: '<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"9\" height=\"9\"><text>TAMPERED</text></svg>' }) };",
    )
    .unwrap();
    session.cdp("Network.enable", json!({})).await;
    session
        .cdp("Network.setBypassServiceWorker", json!({"bypass": true}))
        .await;
    session
        .cdp("Network.setCacheDisabled", json!({"cacheDisabled": true}))
        .await;
    session.stack.hearth.serve(&tampered);
    session
        .js(
            "window.tampered = 0; window.addEventListener('message', (e) => { if (e.data === 'tampered') window.tampered += 1; });",
            vec![],
        )
        .await;
    fixture.enqueue(Reply::text(format!("{FLOWCHART_HEAD}{FLOWCHART_TAIL}")));
    send(&session, "Draw the plan").await;
    last_status(&session, "done").await;
    let shown = all_settled(&session, 1).await;
    assert_eq!(
        shown[0]["error"],
        json!("Diagrams could not be loaded; the code is shown.")
    );
    assert_eq!(shown[0]["codeShown"], json!(true));
    assert_eq!(shown[0]["tag"], Value::Null);
    assert_eq!(session.js("return window.tampered", vec![]).await, json!(0));
    session
        .assert_no_console_errors_but(|m| m.contains("integrity") || m.contains("/vendor/mermaid-"))
        .await;
    let _ = std::fs::remove_dir_all(&tampered);
    session.finish().await;
}
