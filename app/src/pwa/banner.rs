//! What the installed app tells the user: that the device is offline (in the top bar,
//! while it lasts) and that a new version is ready (a bar under it, with Reload). Both
//! live regions exist from the first render, so a change is announced.

use leptos::prelude::*;

use super::{NewVersion, use_pwa};
use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::icon::{Icon, icon};

/// "Offline", beside the top bar's actions, while the browser says so.
#[component]
pub fn OfflineBadge() -> impl IntoView {
    let pwa = use_pwa();
    let i18n = use_i18n();
    view! {
        <span class="offline-badge-region" role="status">
            <Show when=move || !pwa.online.get()>
                <span id="offline-badge" class="offline-badge" title=move || i18n.t(Key::PwaOfflineHint)>
                    {icon(Icon::CloudOff)}
                    <span>{tr(Key::PwaOffline)}</span>
                    <span class="visually-hidden">{tr(Key::PwaOfflineHint)}</span>
                </span>
            </Show>
        </span>
    }
}

/// "A new version is ready", with the button that takes it.
#[component]
pub fn UpdateBar() -> impl IntoView {
    let pwa = use_pwa();
    let chat = use_chat();
    view! {
        <div class="update-bar-region" role="status">
            {move || {
                let text = match pwa.update.get() {
                    NewVersion::Current => return None,
                    NewVersion::Ready => Key::PwaUpdateReady,
                    NewVersion::AfterReply => Key::PwaUpdateAfterReply,
                    NewVersion::Applying => Key::PwaUpdateApplying,
                };
                let idle = pwa.update.get() == NewVersion::Ready;
                Some(view! {
                    <div id="update-bar" class="update-bar">
                        {icon(Icon::Refresh)}
                        <p>{tr(text)}</p>
                        <Show when=move || idle>
                            <button
                                type="button"
                                id="update-reload"
                                class="button button--secondary button--small"
                                on:click=move |_| pwa.apply_update(chat)
                            >
                                {tr(Key::StorageReload)}
                            </button>
                        </Show>
                    </div>
                })
            }}
        </div>
    }
}
