//! Images a chat model sends inside its reply, on the real build in Chromium: each in its
//! place among the text (Gemini's inline data, OpenAI-compatible `delta.images`), kept
//! across a reload, shown through object URLs that are revoked when they leave the
//! screen, kept in the record when the private file system refuses them, a link never
//! loaded, and an image that is not one said so instead of dropped.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use fantoccini::key::Key;
use hearth_core::provider::request::ANSWER_IMAGE_NOT_SENT;
use hearth_e2e::AppSession;
use hearth_e2e::attach::gradient_png;
use hearth_e2e::chat::{
    self, choose_menu_item, last_status, open_latest, open_reply_menu, reply_menu, send,
};
use hearth_e2e::paths;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply, image_signature};
use serde_json::{Value, json};

/// The last reply's blocks in order: `text:<text>`, `image:<natural width>` or
/// `lost:<reason code>`; `remote:<link>` for a linked image.
const BLOCKS: &str = "const m = [...document.querySelectorAll('.message--assistant')].at(-1);
return [...m.querySelectorAll('.message__markdown > .markdown, .message__markdown > .reply-image')]
  .map((e) => {
    if (!e.classList.contains('reply-image')) return 'text:' + e.textContent.trim();
    const lost = e.querySelector('[data-lost]');
    if (lost) return 'lost:' + lost.dataset.lost;
    const link = e.querySelector('.reply-image__remote a');
    if (link) return 'remote:' + link.href;
    const img = e.querySelector('img');
    return 'image:' + (img && img.complete ? img.naturalWidth : 'loading');
  })
  .filter((b) => b !== 'text:');";

async fn blocks_are(session: &AppSession, expected: &Value) {
    session
        .wait_for_value(&format!("(() => {{ {BLOCKS} }})()"), expected)
        .await;
}

/// Counts the page's live object URLs from now on (`window.liveBlobs`).
async fn count_object_urls(session: &AppSession) {
    session
        .js(
            "window.liveBlobs = new Set();
             const create = URL.createObjectURL.bind(URL);
             const revoke = URL.revokeObjectURL.bind(URL);
             URL.createObjectURL = (blob) => { const url = create(blob); liveBlobs.add(url); return url; };
             URL.revokeObjectURL = (url) => { liveBlobs.delete(url); revoke(url); };",
            vec![],
        )
        .await;
}

/// A session whose model is the fixture's Gemini `fixture-small`.
async fn gemini_session(fixture: &ProviderFixture) -> AppSession {
    let session = AppSession::open(1280, 900).await;
    chat::prepare_gemini(&session, fixture).await;
    session
}

/// The cat (20 px wide), the dog (30 px) and an SVG, base64.
fn animals() -> (String, String, String) {
    (
        STANDARD.encode(gradient_png(20, 10)),
        STANDARD.encode(gradient_png(30, 10)),
        STANDARD.encode("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>"),
    )
}

/// A reply with two animals and an SVG among its text. "Here is a cat." is 14
/// characters, " Now a dog." 11 more. The dog is labelled JPEG: its bytes say PNG, and
/// they decide.
fn animals_reply() -> Reply {
    let (cat, dog, svg) = animals();
    Reply::text("Here is a cat. Now a dog. That is all.")
        .text_chunk_chars(4)
        .image(14, "image/png", cat)
        .image(25, "image/jpeg", dog)
        .image(25, "image/svg+xml", svg)
}

/// The blocks [`animals_reply`] shows: the SVG is not an image it keeps.
fn animals_blocks() -> Value {
    json!([
        "text:Here is a cat.",
        "image:20",
        "text:Now a dog.",
        "image:30",
        "lost:not_an_image",
        "text:That is all."
    ])
}

/// A Gemini session that asked for the animals and got [`animals_reply`].
async fn animals_drawn(fixture: &ProviderFixture) -> AppSession {
    let session = gemini_session(fixture).await;
    fixture.enqueue(animals_reply());
    send(&session, "Draw me two animals").await;
    last_status(&session, "done").await;
    session
}

#[tokio::test]
async fn gemini_images_stand_in_their_places_survive_a_reload_and_free_their_urls() {
    let fixture = ProviderFixture::start().await;
    let session = animals_drawn(&fixture).await;
    let expected = animals_blocks();
    blocks_are(&session, &expected).await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown p')].at(-1)?.textContent === 'That is all.'")
        .await;
    session.screenshot("reply-images").await;
    let lost = session
        .js(
            "return document.querySelector('[data-lost]').textContent",
            vec![],
        )
        .await;
    assert_eq!(
        lost,
        "An image the model sent could not be kept: it is not a PNG, JPEG, WebP or GIF image"
    );
    // Nothing of the SVG reached the page as markup or as an image.
    let inert = session
        .js(
            "return !document.querySelector('.message svg script') &&
               ![...document.images].some((i) => i.src.startsWith('data:image/svg'))",
            vec![],
        )
        .await;
    assert_eq!(inert, json!(true));

    // Stored: a reload shows the same blocks, from the private file system.
    session.reload_app().await;
    blocks_are(&session, &expected).await;

    // Each image on screen holds one object URL; leaving the conversation frees them.
    count_object_urls(&session).await;
    session.click_by_script("#sidebar-new-chat").await;
    session
        .wait_until("!document.querySelector('.message--assistant')")
        .await;
    open_latest(&session).await;
    blocks_are(&session, &expected).await;
    let shown = session
        .js(
            "const srcs = [...document.querySelectorAll('.reply-image img')].map((i) => i.src);
             return [liveBlobs.size, srcs.every((s) => liveBlobs.has(s))];",
            vec![],
        )
        .await;
    assert_eq!(shown, json!([2, true]));
    session.click_by_script("#sidebar-new-chat").await;
    session
        .wait_until("!document.querySelector('.message--assistant') && liveBlobs.size === 0")
        .await;
}

/// The parts of the first model turn the fixture's newest Gemini request carried.
fn first_model_parts(fixture: &ProviderFixture) -> Value {
    let request = fixture
        .requests()
        .into_iter()
        .rfind(|r| r.method == "POST" && r.path.contains(":streamGenerateContent"))
        .expect("a Gemini request");
    let body = request.json();
    body["contents"]
        .as_array()
        .and_then(|contents| contents.iter().find(|c| c["role"] == "model"))
        .map(|content| content["parts"].clone())
        .unwrap_or_else(|| panic!("no model turn in {body}"))
}

#[tokio::test]
async fn a_gemini_reply_goes_back_with_its_images_and_their_signatures_after_a_reload() {
    let fixture = ProviderFixture::start().await;
    let session = animals_drawn(&fixture).await;
    // Read back from the private file system, not from memory.
    session.reload_app().await;
    blocks_are(&session, &animals_blocks()).await;
    let ask = |question: &'static str, answer: &'static str| {
        let session = &session;
        let fixture = &fixture;
        async move {
            fixture.enqueue(Reply::text(answer));
            send(session, question).await;
            session
                .wait_until(&format!(
                    "[...document.querySelectorAll('.message--assistant')].at(-1)?.textContent.includes('{answer}')"
                ))
                .await;
        }
    };
    // The fixture's listing says nothing of vision: the images are notes in their
    // places, and no byte or signature goes.
    ask("Make them blue", "Both are blue now.").await;
    let note = json!({"text": ANSWER_IMAGE_NOT_SENT});
    assert_eq!(
        first_model_parts(&fixture),
        json!([
            {"text": "Here is a cat."}, note, {"text": " Now a dog."}, note,
            {"text": " That is all."},
        ])
    );

    // The user says the model sees images: the next request carries them.
    chat::say_model_takes(&session, "fixture-small", "vision").await;
    ask("Now green", "Both are green now.").await;
    let (cat, dog, _) = animals();
    // The first answer as the model sent it: the images in their places, each with its own
    // signature, the dog as the PNG its bytes are; the SVG, never kept, is not sent.
    assert_eq!(
        first_model_parts(&fixture),
        json!([
            {"text": "Here is a cat."},
            {"inlineData": {"mimeType": "image/png", "data": cat},
             "thoughtSignature": image_signature(0)},
            {"text": " Now a dog."},
            {"inlineData": {"mimeType": "image/png", "data": dog},
             "thoughtSignature": image_signature(1)},
            {"text": " That is all."},
        ])
    );
}

#[tokio::test]
async fn a_refused_file_store_keeps_the_image_in_the_record_and_links_are_never_loaded() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    // The private file system refuses everything, as a full disk does.
    session
        .js(
            "navigator.storage.getDirectory = () =>
               Promise.reject(new DOMException('full', 'QuotaExceededError'));",
            vec![],
        )
        .await;
    let photo = STANDARD.encode(gradient_png(24, 12));
    fixture.enqueue(
        Reply::text("A photo, then a link. Done.")
            .image(0, "image/png", photo)
            .image_link(21, "https://images.example/cat.png")
            .image(21, "image/png", "@@not base64@@"),
    );
    send(&session, "Show me").await;
    last_status(&session, "done").await;
    let expected = json!([
        "image:24",
        "text:A photo, then a link.",
        "remote:https://images.example/cat.png",
        "lost:undecodable",
        "text:Done."
    ]);
    blocks_are(&session, &expected).await;
    let shown = session
        .js(
            "const link = document.querySelector('.reply-image__remote a');
             return [
               document.querySelector('.reply-image img').src.startsWith('data:image/png;base64,'),
               link.rel, link.target,
               document.querySelector('.reply-image__remote').textContent.includes('images.example'),
               [...document.images].some((i) => i.src.includes('images.example')),
             ];",
            vec![],
        )
        .await;
    assert_eq!(
        shown,
        json!([true, "noopener noreferrer", "_blank", true, false])
    );
    // The finished tail is Markdown, not the plain text shown while it streamed.
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown p')].at(-1)?.textContent === 'Done.'")
        .await;
    session.screenshot("reply-images-link").await;

    // The image was kept in the record: a reload (the file system back) shows it.
    session.reload_app().await;
    blocks_are(&session, &expected).await;
}

#[tokio::test]
async fn a_reply_reads_alone_and_saves_as_markdown_with_its_images() {
    let fixture = ProviderFixture::start().await;
    let session = animals_drawn(&fixture).await;
    session
        .wait_until(
            "document.querySelectorAll('.message--assistant .reply-image img').length === 2",
        )
        .await;

    // Reading mode: the reply alone, its images in place; Escape gives focus back.
    reply_menu(&session, "Read").await;
    session
        .wait_until(
            "document.querySelector('.dialog--reading')?.open &&
             [...document.querySelectorAll('.reading .reply-image img')].map((i) => i.complete && i.naturalWidth).join() === '20,30' &&
             document.querySelector('.reading').textContent.includes('That is all.')",
        )
        .await;
    session.screenshot("reply-reading").await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until(
            "!document.querySelector('.dialog--reading').open &&
             document.activeElement === document.querySelector('.message--assistant .message__actions .menu-anchor > button')",
        )
        .await;

    // The reply as Markdown: text and images in order, the images' own bytes inside.
    let (cat, dog, _) = animals();
    let downloads = paths::scratch_dir("reply-markdown");
    session.allow_downloads(&downloads).await;
    reply_menu(&session, "Save as Markdown").await;
    let file = paths::downloaded_as(&downloads, "md").await;
    assert_eq!(
        file.file_name().unwrap().to_str().unwrap(),
        "Draw me two animals.md"
    );
    let reply = format!(
        "Here is a cat.\n\n![Image 1 of the reply](data:image/png;base64,{cat})\n\n\
         Now a dog.\n\n![Image 2 of the reply](data:image/png;base64,{dog})\n\n\
         *Image 3 is not included.*\n\nThat is all."
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), reply);
    std::fs::remove_file(&file).unwrap();

    // The whole conversation, from the sidebar's menu.
    session
        .click_by_script(".conversation-item .menu-anchor > button")
        .await;
    choose_menu_item(&session, "Export as Markdown").await;
    let file = paths::downloaded_as(&downloads, "md").await;
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!(
            "# Draw me two animals\n\n## You\n\nDraw me two animals\n\n\
             ## Assistant (fixture-small)\n\n{reply}\n"
        )
    );
}

/// A PNG's size and pixels (RGBA).
fn png_pixels(bytes: &[u8]) -> (u32, u32, Vec<[u8; 4]>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buffer = vec![0; reader.output_buffer_size().expect("a buffer size")];
    let info = reader.next_frame(&mut buffer).expect("the PNG's pixels");
    assert_eq!(
        info.color_type,
        png::ColorType::Rgba,
        "a canvas PNG is RGBA"
    );
    let pixels = buffer[..info.buffer_size()]
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect();
    (info.width, info.height, pixels)
}

/// Saves the last reply as a PNG into `downloads` and returns its bytes (the file is
/// removed), checking that the sandbox frame went.
async fn save_png(session: &AppSession, downloads: &std::path::Path) -> Vec<u8> {
    reply_menu(session, "Save as PNG").await;
    let file = paths::downloaded_as(downloads, "png").await;
    assert_eq!(
        file.file_name().unwrap().to_str().unwrap(),
        "Draw me two animals.png"
    );
    let bytes = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    session
        .wait_until("document.querySelectorAll('iframe.picture-sandbox').length === 0")
        .await;
    bytes
}

/// The pixels of the gradient test images (blue 128, red and green apart: nothing else
/// in a reply's picture has that colour), and the dark ones (text in the light theme).
fn gradient_and_dark_pixels(pixels: &[[u8; 4]]) -> (usize, usize) {
    let gradient = pixels
        .iter()
        .filter(|[r, g, b, _]| b.abs_diff(128) <= 2 && r.abs_diff(*g) > 40)
        .count();
    let dark = pixels
        .iter()
        .filter(|[r, g, b, _]| *r < 90 && *g < 90 && *b < 90)
        .count();
    (gradient, dark)
}

#[tokio::test]
async fn a_reply_saves_as_a_png_with_its_images_in_the_pages_theme() {
    let fixture = ProviderFixture::start().await;
    let session = animals_drawn(&fixture).await;
    session
        .wait_until(
            "document.querySelectorAll('.message--assistant .reply-image img').length === 2",
        )
        .await;
    let width = session
        .js(
            "return Math.round(Math.max(...[...[...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelectorAll('.message__markdown')].map((p) => p.getBoundingClientRect().width)))",
            vec![],
        )
        .await
        .as_u64()
        .expect("a width") as u32;
    let downloads = paths::scratch_dir("reply-png");
    session.allow_downloads(&downloads).await;

    // Light: twice the reply's width, on the light surface, the text and both images in.
    let light = save_png(&session, &downloads).await;
    assert_eq!(&light[..8], b"\x89PNG\r\n\x1a\n");
    let (w, h, pixels) = png_pixels(&light);
    assert_eq!(w, width * 2, "the picture is twice the reply's width");
    assert!((100..4000).contains(&h), "height {h}");
    assert_eq!(pixels[0], [255, 255, 255, 255], "the light surface");
    std::fs::write(paths::artifacts_dir().join("reply-png-light.png"), &light).unwrap();
    let (gradient, dark) = gradient_and_dark_pixels(&pixels);
    // The cat (20 × 10) and the dog (30 × 10) at twice their size: 2,000 pixels, of
    // which those off the grey diagonal count (about 1,250); either image alone is
    // under 800.
    assert!(
        (1000..=2000).contains(&gradient),
        "{gradient} pixels of the two images"
    );
    assert!(dark > 300, "{dark} pixels of text");

    // Dark, after a reload: the dark surface, light text, the images again.
    hearth_e2e::chat::reload_in_theme(&session, "dark").await;
    open_latest(&session).await;
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant .reply-image img')].filter((i) => i.complete && i.naturalWidth).length === 2",
        )
        .await;
    let dark_png = save_png(&session, &downloads).await;
    std::fs::write(paths::artifacts_dir().join("reply-png-dark.png"), &dark_png).unwrap();
    let (_, _, pixels) = png_pixels(&dark_png);
    assert_eq!(pixels[0], [28, 26, 23, 255], "the dark surface (#1c1a17)");
    let (gradient, _) = gradient_and_dark_pixels(&pixels);
    assert!((1000..=2000).contains(&gradient), "{gradient}");
    let light_text = pixels
        .iter()
        .filter(|[r, g, b, _]| *r > 200 && *g > 200 && *b > 190)
        .count();
    assert!(light_text > 300, "{light_text} pixels of light text");

    // The sandbox refuses a reply taller than a picture can be, as "too large", and
    // answers nobody but its parent.
    let answer = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             const frame = document.createElement('iframe');
             frame.src = '/sandbox/picture';
             frame.className = 'picture-sandbox';
             window.addEventListener('message', (event) => {
               if (event.source !== frame.contentWindow || event.data?.hearth !== 'picture') return;
               if (event.data.type === 'ready') {
                 frame.contentWindow.postMessage({hearth: 'picture-png', id: 'tall', width: 600,
                   theme: 'light', css: '', images: [],
                   html: '<p style=\"height: 60000px\">tall</p>'}, '*');
               } else {
                 frame.remove();
                 done([event.data.type, event.data.message]);
               }
             });
             document.body.append(frame);",
            vec![],
        )
        .await;
    assert_eq!(answer, json!(["error", "too_large"]));
    session.finish().await;
}

/// The pages of a PDF: its `/Type /Page` objects (not the `/Pages` tree).
fn pdf_pages(pdf: &[u8]) -> usize {
    let text = String::from_utf8_lossy(pdf);
    text.match_indices("/Type")
        .filter(|(at, _)| {
            let rest = text[at + 5..].trim_start();
            rest.starts_with("/Page") && !rest.starts_with("/Pages")
        })
        .count()
}

/// Prints the page as it stands (DevTools' print to PDF) and returns the PDF.
async fn print_to_pdf(session: &AppSession) -> Vec<u8> {
    let printed = session.cdp("Page.printToPDF", json!({})).await;
    STANDARD
        .decode(printed["data"].as_str().expect("PDF data"))
        .expect("base64 PDF")
}

#[tokio::test]
async fn a_reply_prints_alone_in_the_light_scheme_over_as_many_pages_as_it_needs() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    session
        .js("localStorage.setItem('hearth.theme', 'dark')", vec![])
        .await;
    session.reload_app().await;
    let long: String = (1..=150)
        .map(|n| format!("Paragraph {n} of a long answer that keeps going.\n\n"))
        .collect();
    fixture.enqueue(Reply::text("A short answer.").text_chunk_chars(0));
    send(&session, "Short?").await;
    last_status(&session, "done").await;
    session
        .wait_until("document.querySelector('.message--assistant .markdown p')?.textContent === 'A short answer.'")
        .await;
    // The browser's print dialog is not driven here: calling it is enough.
    session
        .js(
            "window.printed = 0; window.print = () => { window.printed += 1; };",
            vec![],
        )
        .await;
    reply_menu(&session, "Print or save as PDF").await;
    session
        .wait_until(
            "window.printed === 1 && document.documentElement.classList.contains('printing') &&
             document.getElementById('print-view')?.textContent.trim() === 'A short answer.'",
        )
        .await;
    // Printed, only the reply shows, dark text on light whatever the theme.
    session
        .cdp("Emulation.setEmulatedMedia", json!({"media": "print"}))
        .await;
    let shown = session
        .js(
            "const view = document.getElementById('print-view');
             return [
               [...document.body.children].filter((e) => getComputedStyle(e).display !== 'none').map((e) => e.id),
               getComputedStyle(view.querySelector('p')).color,
               getComputedStyle(document.body).backgroundColor,
             ];",
            vec![],
        )
        .await;
    assert_eq!(
        shown,
        json!([["print-view"], "rgb(28, 25, 23)", "rgb(255, 255, 255)"])
    );
    let short = print_to_pdf(&session).await;
    assert_eq!(pdf_pages(&short), 1);
    session
        .cdp("Emulation.setEmulatedMedia", json!({"media": ""}))
        .await;
    // The dialog closed: the view goes.
    session
        .js("window.dispatchEvent(new Event('afterprint'))", vec![])
        .await;
    session
        .wait_until(
            "!document.getElementById('print-view') && !document.documentElement.classList.contains('printing')",
        )
        .await;

    // A long reply takes the pages it needs, and only its own.
    fixture.enqueue(Reply::text(long).text_chunk_chars(0));
    send(&session, "Long?").await;
    last_status(&session, "done").await;
    session
        .wait_until("[...document.querySelectorAll('.message--assistant .markdown p')].some((p) => p.textContent.startsWith('Paragraph 150 '))")
        .await;
    // At the bottom of the list, above the composer, the reply's menu opens upwards and
    // shows whole.
    open_reply_menu(&session).await;
    session
        .wait_until(
            "(() => {
               const menu = [...document.querySelectorAll('.message--assistant')].at(-1)
                 .querySelector('.menu');
               const composer = document.querySelector('.composer, #composer-input').getBoundingClientRect();
               const box = menu.getBoundingClientRect();
               return !menu.hidden && menu.classList.contains('menu--up') && box.height > 0 &&
                 box.bottom <= composer.top && box.top >= 0;
             })()",
        )
        .await;
    session.press(&[Key::Escape]).await;
    // The list shows what fits: the long reply's own menu, the last one.
    reply_menu(&session, "Print or save as PDF").await;
    session
        .wait_until(
            "window.printed === 2 && document.getElementById('print-view')?.textContent.includes('Paragraph 150 of')
             && !document.getElementById('print-view').textContent.includes('A short answer.')",
        )
        .await;
    session
        .cdp("Emulation.setEmulatedMedia", json!({"media": "print"}))
        .await;
    session.screenshot("reply-print").await;
    let long_pdf = print_to_pdf(&session).await;
    let pages = pdf_pages(&long_pdf);
    assert!((3..=12).contains(&pages), "{pages} pages");
    assert!(
        long_pdf.len() > short.len(),
        "{} vs {}",
        long_pdf.len(),
        short.len()
    );
}
