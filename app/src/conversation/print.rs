//! The print view of one reply ("Print or save as PDF"): a copy of what the reply shows
//! (its text, images and sources, already rendered and sanitised; no tool calls, reasoning or
//! actions) placed beside the app, the only thing `@media print` shows while
//! `<html class="printing">` is set, in the light scheme whatever the theme. It goes
//! when printing ends.

use leptos::prelude::{document, window};

/// The print view's id.
const VIEW_ID: &str = "print-view";

/// Prints message `id` alone (the browser's dialog offers "Save as PDF").
pub fn print_reply(id: &str) {
    let document = document();
    end_print();
    let Ok(Some(article)) = document.query_selector(&format!("[data-message-id=\"{id}\"]")) else {
        return;
    };
    let (Ok(view), Some(body), Ok(parts)) = (
        document.create_element("div"),
        document.body(),
        article.query_selector_all(".message__markdown, .reply-sources"),
    ) else {
        return;
    };
    view.set_id(VIEW_ID);
    view.set_class_name("print-view");
    for index in 0..parts.length() {
        if let Some(Ok(copy)) = parts
            .item(index)
            .map(|part| part.clone_node_with_deep(true))
        {
            let _ = view.append_child(&copy);
        }
    }
    if body.append_child(&view).is_err() {
        return;
    }
    if let Some(root) = document.document_element() {
        let _ = root.class_list().add_1("printing");
    }
    // Ends with the print dialog (printed, saved or cancelled).
    gloo_events::EventListener::once(&window(), "afterprint", |_| end_print()).forget();
    let _ = window().print();
}

/// Takes the print view away.
fn end_print() {
    let document = document();
    if let Some(view) = document.get_element_by_id(VIEW_ID) {
        view.remove();
    }
    if let Some(root) = document.document_element() {
        let _ = root.class_list().remove_1("printing");
    }
}
