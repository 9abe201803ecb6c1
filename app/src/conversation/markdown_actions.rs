//! The buttons inside a reply's rendered Markdown, wherever it shows (the message, the
//! reading mode): a code block's Copy and Preview, a diagram's Show code, Full screen,
//! Save SVG and Save PNG; and the clipboard copy the message's own Copy shares.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::i18n::{I18n, Key};
use crate::ui::toast::{ToastKind, Toasts};

/// Copies `text` to the clipboard and says so.
pub fn copy_text(text: String, toasts: Toasts, i18n: I18n) {
    let clipboard = window().navigator().clipboard();
    leptos::task::spawn_local_scoped(async move {
        let copied = wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&text))
            .await
            .is_ok();
        let key = if copied {
            Key::MessageCopied
        } else {
            Key::MessageCopyFailed
        };
        toasts.show(
            if copied {
                ToastKind::Info
            } else {
                ToastKind::Error
            },
            i18n.t(key),
        );
    });
}

/// What one rendered reply's buttons opened: a code block previewed, a diagram full
/// screen (each dialog exists only while it is shown).
#[derive(Clone, Copy)]
pub struct MarkdownActions {
    preview: RwSignal<Option<super::preview::Artifact>>,
    diagram: RwSignal<Option<crate::diagram::Diagram>>,
}

impl MarkdownActions {
    pub fn new() -> Self {
        Self {
            preview: RwSignal::new(None),
            diagram: RwSignal::new(None),
        }
    }

    /// Carries out a click inside the rendered Markdown, if it was on one of its buttons.
    pub fn on_click(self, event: leptos::ev::MouseEvent, toasts: Toasts, i18n: I18n) {
        let Some(target) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        else {
            return;
        };
        // A citation of a knowledge passage opens it: its source's button does.
        if let Ok(Some(link)) = target.closest("a.citation[href^='#source-']") {
            event.prevent_default();
            let number = link
                .get_attribute("href")
                .unwrap_or_default()
                .trim_start_matches("#source-")
                .chars()
                .filter(char::is_ascii_digit)
                .collect::<String>();
            let button = link
                .closest("[data-message-id], .reading")
                .ok()
                .flatten()
                .and_then(|reply| {
                    reply
                        .query_selector(&format!("[data-source-number='{number}']"))
                        .ok()
                        .flatten()
                })
                .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(button) = button {
                button.click();
            }
            return;
        }
        if let Ok(Some(button)) = target.closest("[data-action='preview-code']") {
            self.preview
                .set(super::preview::Artifact::of_button(&button));
            return;
        }
        if let Ok(Some(button)) = target.closest("[data-action^='diagram-']") {
            crate::diagram::on_click(&button, self.diagram, toasts);
            return;
        }
        let Ok(Some(button)) = target.closest("[data-action='copy-code']") else {
            return;
        };
        let code = button
            .closest(".code-block")
            .ok()
            .flatten()
            .and_then(|block| block.query_selector("code").ok().flatten())
            .and_then(|code| code.text_content());
        if let Some(code) = code {
            copy_text(code, toasts, i18n);
        }
    }

    /// The dialogs its buttons open, while they are open.
    pub fn dialogs(self) -> impl IntoView {
        let Self { preview, diagram } = self;
        view! {
            {move || preview.with(Option::is_some).then(|| view! { <super::preview::PreviewDialog shown=preview /> })}
            {move || diagram.with(Option::is_some).then(|| view! { <crate::diagram::viewer::DiagramViewer shown=diagram /> })}
        }
    }
}
