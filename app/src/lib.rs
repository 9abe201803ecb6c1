//! # hearth-app
//!
//! Hearth's browser app: a Leptos client-side-rendered app compiled to WebAssembly. It
//! owns the user's data (IndexedDB now; OPFS files with the chat work) and talks to the
//! edge only for what a browser cannot do alone.
//!
//! ## Layout
//!
//! - [`access_gate`]: the password screen of a protected deployment.
//! - [`shell`]: what the user sees first: sidebar, top bar, empty state, composer.
//! - [`conversation`]: the conversation pane: virtualised message list, messages with
//!   their actions and status, the queue.
//! - [`chat`]: conversations and messages: storage, streaming runs, branches, two tabs.
//! - [`render`]: Markdown rendering in a lazily started Web Worker.
//! - [`diagram`]: a reply's Mermaid diagrams, drawn in a sandbox frame and shown as
//!   images, full screen, saved as SVG or PNG.
//! - [`picture`]: a reply saved as a PNG, drawn by the picture sandbox.
//! - [`mcp_app`]: MCP Apps: a tool's `ui://` page shown under its call, in the app
//!   sandbox, its tool calls confirmed like a model's.
//! - [`search`]: global search: the index in a lazily started Web Worker, kept current
//!   through the search journal, and the search palette.
//! - [`settings`]: the settings dialog and its tabs.
//! - [`assistants`]: the user's assistants, the built-in catalogue, the one a new chat
//!   starts with, and starting a chat with one.
//! - [`workspaces`]: the user's workspaces, the current one (the sidebar lists its
//!   conversations) and the dialog that moves a conversation.
//! - [`catalogue`]: the catalogues served with the app (skills, assistants), the saved
//!   copy of each and the line that says where the list on screen came from.
//! - [`templates`]: the user's prompt templates (the `/` menu and Settings › Templates).
//! - [`ui`]: shared primitives with correct keyboard and focus behaviour: `Dialog`,
//!   `Menu`, `Toast`, `Field`, `ModelPicker`, `SafeImage`, icons.
//! - [`i18n`]: translation catalogs (English compiled in, zh-CN and ja fetched when in
//!   effect) and the reactive locale.
//! - [`theme`]: light, dark and system themes.
//! - [`envelope`]: sealing secrets for the edge (BYOK envelopes, WebCrypto).
//! - [`edge`]: typed calls to the app's own edge server.
//! - [`models`]: fetching model lists, directly or through the edge relay.
//! - [`preferences`]: default and title models, system prompt, per-model metadata.
//! - [`providers`]: the user's providers (settings in IndexedDB, keys in the vault).
//! - [`archive`]: the data service: export, import and delete-all (the Data tab only
//!   asks it).
//! - [`storage`]: the IndexedDB database (settings, sealed secrets, the vault key).
//! - [`vault`]: secrets at rest, sealed with a non-extractable WebCrypto key.
//! - [`browser`]: small wrappers over browser APIs that tolerate their absence.
//! - [`locks`]: Web Locks shared by the origin's tabs (who writes a conversation's reply).
//! - [`pwa`]: the installed app: the service worker and new versions, online or not, and
//!   what a launch brought (a shortcut, a share, an opened export file).
//!
//! Rules (validation, parsing, policies) live in `hearth-core`, not here.

pub mod access_gate;
pub mod archive;
pub mod assistants;
pub mod attachments;
pub mod browser;
pub mod catalogue;
pub mod chat;
pub mod conversation;
pub mod diagram;
pub mod documents;
pub mod edge;
pub mod envelope;
pub mod files;
pub mod http;
pub mod i18n;
pub mod knowledge;
pub mod locks;
pub mod mcp_app;
pub mod memory;
pub mod models;
pub mod picture;
pub mod plugins;
pub mod preferences;
pub mod providers;
pub mod pwa;
pub mod render;
pub mod search;
pub mod settings;
pub mod shell;
pub mod skills;
pub mod storage;
pub mod templates;
pub mod theme;
pub mod ui;
pub mod usage;
pub mod vault;
pub mod voice;
pub mod web_search;
pub mod workspaces;

use leptos::prelude::*;

use crate::i18n::{I18n, Key, tr};
use crate::pwa::banner::UpdateBar;
use crate::shell::{COMPOSER_INPUT_ID, Composer, ShellState, Sidebar, Topbar};
use crate::theme::Theme;
use crate::ui::toast::{ToastRegion, Toasts};

/// The root component.
#[component]
pub fn App() -> impl IntoView {
    let toasts = Toasts::new();
    let i18n = I18n::from_browser();
    provide_context(i18n);
    provide_context(Theme::from_browser());
    provide_context(toasts);
    provide_context(providers::Providers::load());
    provide_context(preferences::Prefs::load());
    provide_context(plugins::Plugins::load());
    let chat = chat::Chat::load();
    provide_context(chat);
    let search = search::Search::new(chat);
    provide_context(search);
    let pwa = pwa::Pwa::new(chat);
    provide_context(pwa);
    // A deep link `#settings/<tab>` opens the settings at that tab, on load and when the
    // hash changes (our own tab switches use replaceState, which fires no hashchange).
    let deep_tab = || {
        browser::location_hash()
            .strip_prefix("settings")
            .map(|rest| rest.trim_start_matches('/').to_string())
    };
    let initial = deep_tab();
    let shell = ShellState {
        drawer_open: RwSignal::new(false),
        settings_open: RwSignal::new(initial.is_some()),
        settings_tab: RwSignal::new(initial.unwrap_or_default()),
        sidebar_hidden: RwSignal::new(false),
        shortcuts_open: RwSignal::new(false),
        placing: RwSignal::new(None),
        reveal: RwSignal::new(None),
    };
    // Ctrl+K (⌘K on Apple keyboards) searches, and the other shortcuts, from anywhere.
    shell::shortcuts::listen(chat, search, shell);
    let _ = window_event_listener(leptos::ev::hashchange, move |_| {
        if let Some(tab) = deep_tab() {
            shell.settings_tab.set(tab);
            shell.settings_open.set(true);
        }
    });
    provide_context(shell);
    pwa::launch::handle(
        pwa,
        pwa::launch::LaunchContext {
            chat,
            search,
            shell,
            toasts,
            i18n,
        },
    );
    pwa.start();
    shell::address::follow(chat, toasts, i18n);

    Effect::new(move |_| {
        let tag = i18n.locale().tag();
        browser::set_root_attribute("lang", Some(tag));
        browser::link_manifest(tag);
    });
    // Closing the settings drops its deep link.
    Effect::new(move |previous: Option<bool>| {
        let open = shell.settings_open.get();
        if previous == Some(true) && !open {
            browser::replace_hash(None);
        }
        open
    });
    // Opening the drawer moves focus into it, so keyboard users land where they asked to
    // go. The drawer is `visibility: hidden` until its class is applied, hence the frame.
    Effect::new(move |_| {
        if shell.drawer_open.get() {
            request_animation_frame(|| browser::focus_by_id("sidebar-new-chat"));
        }
    });

    view! {
        <access_gate::AccessGate>
            <div class=move || {
                match (shell.drawer_open.get(), shell.sidebar_hidden.get()) {
                    (true, _) => "shell shell--drawer-open",
                    (false, true) => "shell shell--sidebar-hidden",
                    (false, false) => "shell",
                }
            }>
                <a class="skip-link" href=format!("#{COMPOSER_INPUT_ID}")>
                    {tr(Key::SkipToComposer)}
                </a>
                <Sidebar />
                <div
                    class="shell__backdrop"
                    aria-hidden="true"
                    on:click=move |_| shell.drawer_open.set(false)
                ></div>
                <main class="main">
                    <Topbar />
                    <UpdateBar />
                    <conversation::ConversationView />
                    <div class="composer-dock">
                        <conversation::queue::QueueView />
                        <Composer />
                    </div>
                </main>
                <settings::SettingsDialog />
                {search::palette()}
                {shell::shortcuts::dialog(shell)}
            </div>
        </access_gate::AccessGate>
        <ToastRegion />
    }
}

/// Mounts the app on `<body>`. Called by the wasm entry point.
///
/// A page starting in a language other than English first waits for that catalog
/// (bounded by [`i18n::FETCH_TIMEOUT_MS`]; the boot splash stays meanwhile), so the first
/// render is already in the user's language. Without it the page starts in English.
pub fn start() {
    console_error_panic_hook::set_once();
    let locale = I18n::wanted_at_start();
    if i18n::is_loaded(locale) {
        mount();
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(error) = i18n::load(locale).await {
            i18n::warn_unloaded(locale, &error);
        }
        mount();
    });
}

fn mount() {
    mount_to_body(App);
    // The static splash in index.html covers the time the wasm takes to load.
    if let Some(splash) = document().get_element_by_id("boot") {
        splash.remove();
    }
    browser::mark("hearth:shell");
}
