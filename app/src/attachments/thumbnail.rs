//! An image attachment's thumbnail on its chip: the small copy kept beside the image
//! (`<id>.thumb`), shown through an object URL that is revoked when the chip goes. In its
//! own lazily loaded chunk: a conversation without images never loads it.

use leptos::prelude::*;

use crate::files::{self, ATTACHMENTS};
use crate::ui::icon::{Icon, icon};
use crate::ui::safe_image::SafeImage;

/// The thumbnail of attachment `id`.
#[lazy]
pub fn thumbnail(id: String) -> AnyView {
    view! { <Thumbnail id=id /> }.into_any()
}

#[component]
fn Thumbnail(id: String) -> impl IntoView {
    let url = RwSignal::new(None::<String>);
    let name = files::attachment_thumbnail_name(&id);
    leptos::task::spawn_local(async move {
        let Ok(loaded) = files::object_url(ATTACHMENTS, &name).await else {
            return;
        };
        if url.try_set(Some(loaded.clone())).is_some() {
            // The chip went away while the file loaded.
            let _ = web_sys::Url::revoke_object_url(&loaded);
        }
    });
    on_cleanup(move || {
        if let Some(Some(src)) = url.try_get_untracked() {
            let _ = web_sys::Url::revoke_object_url(&src);
        }
    });
    move || match url.get() {
        Some(src) => view! {
            <SafeImage src=src alt=String::new() class="attachment-chip__thumb".to_string() />
        }
        .into_any(),
        None => icon(Icon::Image).into_any(),
    }
}
