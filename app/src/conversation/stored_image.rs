//! An image kept in the private file system's `images/` (one a tool, the image generator
//! or the model made), shown through an object URL that lives as long as the view: made
//! when it shows, revoked when it goes (or when the view went before the file loaded).

use leptos::prelude::*;

use crate::files::{self, FileError, IMAGES};
use crate::i18n::{Key, use_i18n};
use crate::ui::safe_image::SafeImage;

/// The stored image `name`, with `alt` as its text alternative.
#[component]
pub fn StoredImage(name: String, alt: String) -> impl IntoView {
    let url = RwSignal::new(None::<Result<String, FileError>>);
    let file = name.clone();
    leptos::task::spawn_local(async move {
        let loaded = files::object_url(IMAGES, &file).await;
        if url.try_set(Some(loaded.clone())).is_some()
            && let Ok(orphan) = loaded
        {
            // The view went away while the file loaded.
            let _ = web_sys::Url::revoke_object_url(&orphan);
        }
    });
    on_cleanup(move || {
        if let Some(Some(Ok(src))) = url.try_get_untracked() {
            let _ = web_sys::Url::revoke_object_url(&src);
        }
    });
    let i18n = use_i18n();
    move || {
        match url.get() {
        None => view! { <div class="stored-image__placeholder" role="status">{i18n.t(Key::ToolImageLoading)}</div> }.into_any(),
        Some(Ok(src)) => {
            let href = src.clone();
            view! {
            <a class="stored-image" href=href target="_blank" rel="noopener noreferrer" data-image=name.clone()>
                <SafeImage src=src alt=alt.clone() class="stored-image__image".to_string() />
            </a>
            }
            .into_any()
        }
        Some(Err(error)) => view! {
            <div class="stored-image__placeholder">{i18n.t_with(Key::ToolImageMissing, &[("reason", &error.to_string())])}</div>
        }
        .into_any(),
    }
    }
}
