//! The one way the app shows an image whose URL it did not write itself. The URL must
//! pass [`is_safe_image_src`] (no `javascript:`, no SVG data, no network-path tricks);
//! the image loads lazily, decodes off the main thread and sends no `Referer`. A refused
//! or broken image becomes a labelled placeholder, never a broken-image icon.

use hearth_core::safe_url::is_safe_image_src;
use leptos::prelude::*;

use crate::i18n::{Key, use_i18n};
use crate::ui::icon::{Icon, icon};

/// An image with a checked source.
#[component]
pub fn SafeImage(
    /// The image URL.
    #[prop(into)]
    src: Signal<String>,
    /// The text alternative; empty for decorative images.
    #[prop(into)]
    alt: Signal<String>,
    /// Extra class.
    #[prop(optional, into)]
    class: String,
) -> impl IntoView {
    let i18n = use_i18n();
    let failed = RwSignal::new(false);
    // A new source gets a fresh chance to load.
    Effect::new(move |_| {
        src.track();
        failed.set(false);
    });
    let class = StoredValue::new(class);
    move || {
        let url = src.get();
        if is_safe_image_src(&url) && !failed.get() {
            view! {
                <img
                    class=format!("safe-image {}", class.get_value())
                    src=url
                    alt=move || alt.get()
                    loading="lazy"
                    decoding="async"
                    referrerpolicy="no-referrer"
                    on:error=move |_| failed.set(true)
                />
            }
            .into_any()
        } else {
            let label = move || {
                let alt = alt.get();
                if alt.is_empty() {
                    String::new()
                } else {
                    i18n.t_with(Key::ImageBlocked, &[("alt", &alt)])
                }
            };
            view! {
                <span
                    class=format!("safe-image safe-image--placeholder {}", class.get_value())
                    role="img"
                    aria-label=label
                    aria-hidden=move || alt.get().is_empty().then_some("true")
                >
                    {icon(Icon::Image)}
                </span>
            }
            .into_any()
        }
    }
}
