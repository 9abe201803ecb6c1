//! What a launch brought, handled once at start: the manifest's shortcuts (a new chat, the
//! search palette), an export file opened with Hearth (through `launchQueue`, into the Data
//! tab's import, which asks before it changes anything) and something shared into Hearth
//! (taken from the service worker's `hearth-share` cache into a new chat's composer).
//! The query leaves the address bar at once, so a reload does not repeat the launch.

use hearth_core::launch::{Launch, MAX_SHARED_FILES, ShareMeta};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wasm_bindgen_futures::JsFuture;

use super::{Pwa, Shared};
use crate::chat::Chat;
use crate::i18n::{I18n, Key};
use crate::search::Search;
use crate::shell::ShellState;
use crate::ui::toast::{ToastKind, Toasts};

/// The cache the service worker keeps shares in (`public/sw.js`).
const SHARE_CACHE: &str = "hearth-share";

/// Everything a launch may need.
#[derive(Clone, Copy)]
pub struct LaunchContext {
    /// Where a share or a shortcut lands.
    pub chat: Chat,
    /// For the "Search" shortcut.
    pub search: Search,
    /// For an opened file: the Data tab.
    pub shell: ShellState,
    /// For a share that could not be read.
    pub toasts: Toasts,
    /// For its message.
    pub i18n: I18n,
}

/// Reads the launch from the address and does what it asks.
pub fn handle(pwa: Pwa, context: LaunchContext) {
    let location = window().location();
    let launch = Launch::parse(&location.search().unwrap_or_default());
    if launch.is_start() {
        return;
    }
    forget_query();
    match launch {
        Launch::Start => {}
        Launch::NewChat => {
            context.chat.new_chat();
            pwa.focus_composer.set(true);
        }
        Launch::Search => context.search.open_palette(),
        Launch::OpenFile => take_launched_files(pwa, context),
        Launch::ShareFailed => share_failed(context),
        Launch::Share(id) => {
            context.chat.new_chat();
            leptos::task::spawn_local(async move {
                match take_share(id).await {
                    Some(shared) => {
                        if shared.lost > 0 {
                            let text = context.i18n.t_with(
                                Key::PwaSharePartial,
                                &[("count", &shared.lost.to_string())],
                            );
                            context.toasts.show(ToastKind::Error, text);
                        }
                        pwa.shared.set(Some(shared));
                    }
                    None => share_failed(context),
                }
            });
        }
    }
}

fn share_failed(context: LaunchContext) {
    context
        .toasts
        .show(ToastKind::Error, context.i18n.t(Key::PwaShareFailed));
}

/// Drops the query from the address bar (the path and the hash stay).
fn forget_query() {
    let location = window().location();
    let url = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.hash().unwrap_or_default()
    );
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// The files of a file-handler launch (`launchQueue`, Chromium only), the first of them
/// to the Data tab.
fn take_launched_files(pwa: Pwa, context: LaunchContext) {
    let shell = context.shell;
    let queue = js_sys::Reflect::get(&window(), &"launchQueue".into()).unwrap_or_default();
    let Ok(set_consumer) = js_sys::Reflect::get(&queue, &"setConsumer".into())
        .and_then(|f| f.dyn_into::<js_sys::Function>())
    else {
        return;
    };
    let consumer = Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(move |params| {
        let files = js_sys::Reflect::get(&params, &"files".into()).unwrap_or_default();
        let Some(handle) = js_sys::Array::from(&files)
            .get(0)
            .dyn_into::<web_sys::FileSystemFileHandle>()
            .ok()
        else {
            return;
        };
        leptos::task::spawn_local(async move {
            let Ok(file) = JsFuture::from(handle.get_file()).await else {
                context
                    .toasts
                    .show(ToastKind::Error, context.i18n.t(Key::PwaOpenFailed));
                return;
            };
            pwa.opened_file.set(Some(file.unchecked_into()));
            shell.settings_tab.set("data".to_string());
            shell.settings_open.set(true);
        });
    });
    let _ = set_consumer.call1(&queue, consumer.as_ref());
    consumer.forget();
}

/// The share kept under `id`, taken out of the cache (the entries go, read or not).
async fn take_share(id: String) -> Option<Shared> {
    take_share_lazily(id).await
}

#[lazy]
async fn take_share_lazily(id: String) -> Option<Shared> {
    let caches = window().caches().ok()?;
    let cache: web_sys::Cache = JsFuture::from(caches.open(SHARE_CACHE))
        .await
        .ok()?
        .unchecked_into();
    let prefix = format!("/__share/{id}/");
    let meta = read_entry(&cache, &format!("{prefix}meta")).await;
    let meta: Option<ShareMeta> = match &meta {
        Some(response) => match response.text() {
            Ok(promise) => JsFuture::from(promise)
                .await
                .ok()
                .and_then(|text| text.as_string())
                .and_then(|text| serde_json::from_str(&text).ok()),
            Err(_) => None,
        },
        None => None,
    };
    let mut files = Vec::new();
    let mut lost = 0;
    if let Some(meta) = &meta {
        lost = meta.files.len().saturating_sub(MAX_SHARED_FILES);
        for (index, shared) in meta.files.iter().enumerate().take(MAX_SHARED_FILES) {
            let Some(response) = read_entry(&cache, &format!("{prefix}{index}")).await else {
                lost += 1;
                continue;
            };
            let Some(blob) = JsFuture::from(response.blob().ok()?).await.ok() else {
                lost += 1;
                continue;
            };
            let options = web_sys::FilePropertyBag::new();
            options.set_type(&shared.mime);
            let parts = js_sys::Array::of1(&blob);
            if let Ok(file) =
                web_sys::File::new_with_blob_sequence_and_options(&parts, &shared.name, &options)
            {
                files.push(file);
            } else {
                lost += 1;
            }
        }
    }
    // Everything under the prefix goes, whatever was read.
    if let Ok(keys) = JsFuture::from(cache.keys()).await {
        for request in js_sys::Array::from(&keys).iter() {
            let Ok(request) = request.dyn_into::<web_sys::Request>() else {
                continue;
            };
            if request.url().contains(&prefix) {
                let _ = JsFuture::from(cache.delete_with_request(&request)).await;
            }
        }
    }
    let meta = meta?;
    Some(Shared {
        text: meta.draft(),
        files,
        lost,
    })
}

async fn read_entry(cache: &web_sys::Cache, path: &str) -> Option<web_sys::Response> {
    JsFuture::from(cache.match_with_str(path))
        .await
        .ok()?
        .dyn_into::<web_sys::Response>()
        .ok()
}
