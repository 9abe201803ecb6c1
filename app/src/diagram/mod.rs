//! Mermaid diagrams in replies, on the page. The Markdown renderer marks a `mermaid` code
//! block `data-diagram` (and `data-diagram-open` while its fence is still streaming);
//! [`upgrade`] (called when such HTML is about to be shown) has each one drawn by the
//! diagram sandbox ([`frame`]) and shows the SVG above the code as an image, which runs
//! no script and loads nothing, with buttons for the code, full screen ([`viewer`]) and
//! SVG and PNG files ([`export`]). Nothing of a diagram's source reaches the app's origin
//! but as text and that image.
//!
//! Drawings are cached by theme and source, so a re-rendered block, a remounted message
//! or a finished block that was the streaming tail a moment ago shows at once. While a
//! diagram streams it shows the last drawing of a source it extends until its own
//! arrives, and an error is shown only once its fence has closed. A theme switch, or a
//! change of the system's colour scheme the page follows, draws every diagram again
//! ([`retheme`]).
//!
//! Its sentences are fetched with the later English (`crate::i18n::load_later_english`)
//! before its buttons are made: none is on the first screen's path.

pub mod export;
mod frame;
pub mod viewer;

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hearth_core::diagram::{self as rules, DIAGRAM_MARK, OPEN_MARK};
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::i18n::{Key, message};

/// Set on a diagram once it has been asked for (with the theme it was drawn in).
const ASKED: &str = "data-diagram-asked";
/// Set on a diagram whose picture is shown (its value: `picture` or `code`, what is shown).
const SHOWN: &str = "data-diagram-shown";
/// How a drawing's `data:` URL starts.
const SVG_URL: &str = "data:image/svg+xml;base64,";
/// The most drawings kept, and the most bytes they may hold together.
const CACHE_ENTRIES: usize = 32;
const CACHE_BYTES: usize = 8 * 1024 * 1024;

/// Why a diagram could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DrawError {
    /// Mermaid refused the source; its message, as it wrote it.
    Invalid(String),
    /// The source or the drawing is over its limit.
    TooLarge,
    /// The sandbox did not answer in time.
    Timeout,
    /// The sandbox or Mermaid could not be loaded (offline, or the file failed its check).
    Unavailable,
}

impl DrawError {
    fn text(&self) -> String {
        match self {
            Self::Invalid(reason) => message(Key::DiagramInvalid, &[("reason", reason)]),
            Self::TooLarge => message(Key::DiagramTooLarge, &[]),
            Self::Timeout => message(Key::DiagramTimeout, &[]),
            Self::Unavailable => message(Key::DiagramUnavailable, &[]),
        }
    }
}

/// What a drawing request is for: the theme and the source.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Wanted {
    dark: bool,
    source: String,
}

#[derive(Default)]
struct State {
    /// Drawings (as `data:` URLs) and errors, oldest first.
    cache: VecDeque<(Wanted, Result<String, DrawError>)>,
    /// The blocks waiting for each drawing.
    waiting: HashMap<Wanted, Vec<Element>>,
}

impl State {
    fn cached(&self, wanted: &Wanted) -> Option<Result<String, DrawError>> {
        self.cache
            .iter()
            .find(|(known, _)| known == wanted)
            .map(|(_, drawing)| drawing.clone())
    }

    /// The drawing of the longest source that `wanted` extends (a diagram streaming).
    fn last_good(&self, wanted: &Wanted) -> Option<String> {
        self.cache
            .iter()
            .filter(|(known, drawing)| {
                known.dark == wanted.dark
                    && drawing.is_ok()
                    && wanted.source.starts_with(known.source.as_str())
            })
            .max_by_key(|(known, _)| known.source.len())
            .and_then(|(_, drawing)| drawing.clone().ok())
    }

    fn remember(&mut self, wanted: Wanted, drawing: Result<String, DrawError>) {
        self.cache.retain(|(known, _)| *known != wanted);
        self.cache.push_back((wanted, drawing));
        let size = |(wanted, drawing): &(Wanted, Result<String, DrawError>)| {
            wanted.source.len() + drawing.as_ref().map_or(0, String::len)
        };
        let mut bytes: usize = self.cache.iter().map(size).sum();
        while self.cache.len() > CACHE_ENTRIES || (bytes > CACHE_BYTES && self.cache.len() > 1) {
            if let Some(entry) = self.cache.pop_front() {
                bytes -= size(&entry);
            }
        }
    }
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// Has the page's diagrams drawn: on the next frame (by then the HTML that holds them is
/// in the page), once the later English sentences are here.
pub fn upgrade() {
    follow_the_system_theme();
    leptos::task::spawn_local(async {
        crate::i18n::load_later_english().await;
        leptos::prelude::request_animation_frame(upgrade_diagrams);
    });
}

/// Has the diagrams drawn again when the system's colour scheme changes (which the page
/// follows unless the user chose a theme); once per page.
fn follow_the_system_theme() {
    thread_local! {
        static FOLLOWING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if FOLLOWING.with(|following| following.replace(true)) {
        return;
    }
    let Some(query) = leptos::prelude::window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
    else {
        return;
    };
    let on_change =
        wasm_bindgen::closure::Closure::<dyn Fn(web_sys::Event)>::new(|_: web_sys::Event| {
            retheme()
        });
    let _ = query.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
    on_change.forget();
}

/// Draws every diagram again in the page's theme (the theme changed).
pub fn retheme() {
    // On the next frame: by then `<html data-theme>` has the new choice.
    leptos::prelude::request_animation_frame(|| {
        let dark = page_is_dark();
        for block in diagrams(&format!("[{ASKED}]")) {
            if block.get_attribute(ASKED).as_deref() != Some(theme_name(dark)) {
                let _ = block.remove_attribute(ASKED);
            }
        }
        upgrade();
    });
}

fn theme_name(dark: bool) -> &'static str {
    if dark { "dark" } else { "light" }
}

/// Whether the page shows its dark theme (the choice on `<html>`, or the system's).
pub fn page_is_dark() -> bool {
    let chosen = leptos::prelude::document()
        .document_element()
        .and_then(|root| root.get_attribute("data-theme"));
    match chosen.as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => crate::browser::system_prefers_dark(),
    }
}

fn diagrams(filter: &str) -> Vec<Element> {
    let Ok(found) =
        leptos::prelude::document().query_selector_all(&format!("[{DIAGRAM_MARK}]{filter}"))
    else {
        return Vec::new();
    };
    (0..found.length())
        .filter_map(|index| found.item(index))
        .filter_map(|node| node.dyn_into::<Element>().ok())
        .collect()
}

fn upgrade_diagrams() {
    let dark = page_is_dark();
    for block in diagrams(&format!(":not([{ASKED}])")) {
        let _ = block.set_attribute(ASKED, theme_name(dark));
        let source = block
            .query_selector("code")
            .ok()
            .flatten()
            .and_then(|code| code.text_content())
            .unwrap_or_default();
        let wanted = Wanted { dark, source };
        if wanted.source.trim().is_empty() {
            continue;
        }
        if wanted.source.chars().count() > rules::MAX_SOURCE_CHARS {
            show(&block, Err(DrawError::TooLarge));
            continue;
        }
        let (known, last_good) = STATE.with(|state| {
            let state = state.borrow();
            (state.cached(&wanted), state.last_good(&wanted))
        });
        if let Some(drawing) = known {
            show(&block, drawing);
            continue;
        }
        if let Some(picture) = last_good {
            show(&block, Ok(picture));
        }
        let _ = block.set_attribute("aria-busy", "true");
        let first = STATE.with(|state| {
            let mut state = state.borrow_mut();
            let blocks = state.waiting.entry(wanted.clone()).or_default();
            blocks.push(block);
            blocks.len() == 1
        });
        if first {
            frame::draw(
                wanted.source.clone(),
                wanted.dark,
                move |drawing| match drawing {
                    Some(drawing) => answered(wanted, drawing),
                    None => skipped(&wanted),
                },
            );
        }
    }
}

/// The sandbox's answer for `wanted`: kept, and shown in every block waiting for it.
fn answered(wanted: Wanted, drawing: Result<String, DrawError>) {
    let drawing = drawing.map(|svg| format!("{SVG_URL}{}", STANDARD.encode(svg)));
    let blocks = STATE.with(|state| {
        let mut state = state.borrow_mut();
        // A timeout or an unloaded sandbox may pass: not kept, so the next look tries again.
        if !matches!(drawing, Err(DrawError::Timeout | DrawError::Unavailable)) {
            state.remember(wanted.clone(), drawing.clone());
        }
        state.waiting.remove(&wanted).unwrap_or_default()
    });
    for block in blocks.into_iter().filter(|block| block.is_connected()) {
        show(&block, drawing.clone());
    }
}

/// A request replaced by a longer source before it was sent: its blocks (gone, as a
/// rule: the streaming tail was rendered again) stop waiting.
fn skipped(wanted: &Wanted) {
    let blocks = STATE.with(|state| state.borrow_mut().waiting.remove(wanted));
    for block in blocks.unwrap_or_default() {
        let _ = block.remove_attribute("aria-busy");
    }
}

/// Shows `drawing` in `block`: the picture above the code (the code hidden) with the
/// diagram's buttons, or the error above the code. An error while the fence is still
/// open is not shown: the source is not finished.
fn show(block: &Element, drawing: Result<String, DrawError>) {
    let _ = block.remove_attribute("aria-busy");
    if drawing.is_err() && block.get_attribute(OPEN_MARK).is_some() {
        return;
    }
    let Some(pre) = block.query_selector("pre").ok().flatten() else {
        return;
    };
    let document = leptos::prelude::document();
    for old in [".diagram__figure", ".diagram__error"] {
        if let Ok(Some(old)) = block.query_selector(old) {
            old.remove();
        }
    }
    match drawing {
        Ok(url) => {
            let Ok(figure) = document.create_element("figure") else {
                return;
            };
            let _ = figure.set_attribute("class", "diagram__figure");
            let Ok(image) = document.create_element("img") else {
                return;
            };
            let source = pre.text_content().unwrap_or_default();
            let alt = match rules::kind(&source) {
                Some(kind) => message(Key::DiagramAlt, &[("kind", kind)]),
                None => message(Key::DiagramTitle, &[]),
            };
            for (name, value) in [
                ("class", "diagram__image"),
                ("src", url.as_str()),
                ("alt", alt.as_str()),
                ("decoding", "async"),
                ("draggable", "false"),
            ] {
                let _ = image.set_attribute(name, value);
            }
            let _ = figure.append_child(&image);
            let _ = block.insert_before(&figure, Some(&pre));
            if block.get_attribute(SHOWN).is_none() {
                let _ = block.set_attribute(SHOWN, "picture");
            }
            add_buttons(block);
        }
        Err(error) => {
            let Ok(note) = document.create_element("p") else {
                return;
            };
            let _ = note.set_attribute("class", "diagram__error");
            let _ = note.set_attribute("role", "note");
            let _ = note.append_child(&document.create_text_node(&error.text()));
            let _ = block.insert_before(&note, Some(&pre));
            let _ = block.remove_attribute(SHOWN);
        }
    }
}

/// The diagram's buttons, before the copy button (once).
fn add_buttons(block: &Element) {
    if block
        .query_selector("[data-action^='diagram-']")
        .ok()
        .flatten()
        .is_some()
    {
        return;
    }
    let Some(bar) = block.query_selector(".code-block__bar").ok().flatten() else {
        return;
    };
    let copy = bar.query_selector(".code-block__copy").ok().flatten();
    let document = leptos::prelude::document();
    for (action, key) in [
        ("diagram-code", Key::DiagramShowCode),
        ("diagram-full", Key::DiagramFullScreen),
        ("diagram-svg", Key::DiagramSaveSvg),
        ("diagram-png", Key::DiagramSavePng),
    ] {
        let Ok(button) = document.create_element("button") else {
            return;
        };
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("class", "code-block__action");
        let _ = button.set_attribute("data-action", action);
        if action == "diagram-code" {
            let _ = button.set_attribute("aria-pressed", "false");
        }
        let _ = button.append_child(&document.create_text_node(&message(key, &[])));
        let _ = bar.insert_before(&button, copy.as_ref().map(|copy| copy.as_ref()));
    }
}

/// A diagram on the page: its picture and what to name its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagram {
    /// The picture, a `data:image/svg+xml` URL.
    pub url: String,
    /// Its accessible description.
    pub alt: String,
    /// The exported files' name without extension (`diagram-flowchart`).
    pub stem: String,
    /// It was drawn for the dark theme.
    pub dark: bool,
}

impl Diagram {
    /// The diagram that `button` (one of its buttons) belongs to, once its picture shows.
    pub fn of_button(button: &Element) -> Option<Self> {
        let block = button.closest(&format!("[{DIAGRAM_MARK}]")).ok()??;
        let image = block.query_selector(".diagram__image").ok()??;
        let source = block.query_selector("code").ok()??.text_content()?;
        Some(Self {
            url: image.get_attribute("src")?,
            alt: image.get_attribute("alt").unwrap_or_default(),
            stem: rules::file_stem(&source),
            dark: block.get_attribute(ASKED).as_deref() == Some("dark"),
        })
    }

    /// The SVG document itself.
    pub fn svg(&self) -> Option<String> {
        let bytes = STANDARD.decode(self.url.strip_prefix(SVG_URL)?).ok()?;
        String::from_utf8(bytes).ok()
    }
}

/// Carries out a click on `button`, one of a diagram's buttons
/// (`[data-action^='diagram-']`): swaps the code and the picture, opens the picture full
/// screen in `viewer`, or saves it (a failure is said in a toast).
pub fn on_click(
    button: &Element,
    viewer: leptos::prelude::RwSignal<Option<Diagram>>,
    toasts: crate::ui::toast::Toasts,
) {
    use leptos::prelude::Set;
    let Some(action) = button.get_attribute("data-action") else {
        return;
    };
    if action == "diagram-code" {
        let Some(block) = button.closest(&format!("[{DIAGRAM_MARK}]")).ok().flatten() else {
            return;
        };
        let to_code = block.get_attribute(SHOWN).as_deref() == Some("picture");
        let _ = block.set_attribute(SHOWN, if to_code { "code" } else { "picture" });
        let _ = button.set_attribute("aria-pressed", if to_code { "true" } else { "false" });
        return;
    }
    let Some(diagram) = Diagram::of_button(button) else {
        return;
    };
    let format = match action.as_str() {
        "diagram-full" => {
            viewer.set(Some(diagram));
            return;
        }
        "diagram-svg" => export::Format::Svg,
        "diagram-png" => export::Format::Png,
        _ => return,
    };
    export::save(&diagram, format, toasts);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted(source: &str) -> Wanted {
        Wanted {
            dark: false,
            source: source.into(),
        }
    }

    #[test]
    fn a_streaming_diagram_shows_the_longest_good_drawing_it_extends() {
        let mut state = State::default();
        state.remember(wanted("graph TD"), Ok("one".into()));
        state.remember(wanted("graph TD\nA-->B"), Ok("two".into()));
        state.remember(
            wanted("graph TD\nA-->B\nB-"),
            Err(DrawError::Invalid("x".into())),
        );
        assert_eq!(
            state.last_good(&wanted("graph TD\nA-->B\nB-->C")),
            Some("two".into())
        );
        assert_eq!(state.last_good(&wanted("flowchart LR")), None);
        let dark = Wanted {
            dark: true,
            source: "graph TD\nA-->B\nB-->C".into(),
        };
        assert_eq!(state.last_good(&dark), None, "drawn in the other theme");
        assert_eq!(state.cached(&wanted("graph TD")), Some(Ok("one".into())));
    }

    #[test]
    fn the_cache_keeps_its_bounds() {
        let mut state = State::default();
        for n in 0..(CACHE_ENTRIES + 5) {
            state.remember(wanted(&format!("graph {n}")), Ok("x".into()));
        }
        assert_eq!(state.cache.len(), CACHE_ENTRIES);
        assert!(state.cached(&wanted("graph 0")).is_none());
        state.remember(wanted("big"), Ok("y".repeat(CACHE_BYTES)));
        assert_eq!(
            state.cache.len(),
            1,
            "one drawing over the bytes is kept alone"
        );
    }
}
