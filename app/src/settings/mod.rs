//! The settings dialog: a vertical tab list (arrow keys move between tabs, as the ARIA
//! tabs pattern asks) and one panel per tab.

mod about;
mod archived;
mod assistants;
mod data;
mod deployment;
mod document_parsing;
mod general;
mod health;
mod knowledge;
mod knowledge_text;
mod memory;
mod models;
mod prices;
mod providers;
mod saved_key;
mod skills;
mod system;
mod templates;
mod tools;
mod usage;
mod voice;
mod web_search;
mod workspace_files;
mod workspaces;

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::browser;
use crate::i18n::{Key, tr, use_i18n};
use crate::shell::use_shell;
use crate::ui::dialog::Dialog;

/// The settings tabs, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// Appearance and language.
    General,
    /// Model providers and their keys.
    Providers,
    /// Default and task models, per-model metadata.
    Models,
    /// Plugins, their functions and credentials, confirmation.
    Tools,
    /// The web search service and its key.
    WebSearch,
    /// Who reads replies aloud.
    Voice,
    /// Skills: installed, active, the catalogue.
    Skills,
    /// Prompt templates and their versions.
    Templates,
    /// Assistants: recently used, the user's own, the built-in catalogue.
    Assistants,
    /// Workspaces: their instructions and defaults.
    Workspaces,
    /// Knowledge collections and their files.
    Knowledge,
    /// Memory: the switches and every memory.
    Memory,
    /// The system prompt.
    System,
    /// Storage, export, import, delete.
    Data,
    /// Tokens and cost over time, and the price table.
    Usage,
    /// The edge's services.
    Health,
    /// Versions, deployment and privacy.
    About,
}

impl Tab {
    const ALL: [Tab; 17] = [
        Tab::General,
        Tab::Providers,
        Tab::Models,
        Tab::Tools,
        Tab::WebSearch,
        Tab::Voice,
        Tab::Skills,
        Tab::Templates,
        Tab::Assistants,
        Tab::Workspaces,
        Tab::Knowledge,
        Tab::Memory,
        Tab::System,
        Tab::Data,
        Tab::Usage,
        Tab::Health,
        Tab::About,
    ];

    fn key(self) -> Key {
        match self {
            Tab::General => Key::SettingsTabGeneral,
            Tab::Providers => Key::SettingsTabProviders,
            Tab::Models => Key::SettingsTabModels,
            Tab::Tools => Key::SettingsTabTools,
            Tab::WebSearch => Key::SettingsTabWebSearch,
            Tab::Voice => Key::SettingsTabVoice,
            Tab::Skills => Key::SettingsTabSkills,
            Tab::Templates => Key::SettingsTabTemplates,
            Tab::Assistants => Key::SettingsTabAssistants,
            Tab::Workspaces => Key::SettingsTabWorkspaces,
            Tab::Knowledge => Key::SettingsTabKnowledge,
            Tab::Memory => Key::SettingsTabMemory,
            Tab::System => Key::SettingsTabSystem,
            Tab::Data => Key::SettingsTabData,
            Tab::Usage => Key::SettingsTabUsage,
            Tab::Health => Key::SettingsTabHealth,
            Tab::About => Key::SettingsTabAbout,
        }
    }

    /// The tab named by a deep link's slug (`#settings/<slug>`).
    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.slug() == slug)
    }

    /// The slug used in deep links and element ids.
    pub fn slug(self) -> &'static str {
        match self {
            Tab::General => "general",
            Tab::Providers => "providers",
            Tab::Models => "models",
            Tab::Tools => "tools",
            Tab::WebSearch => "web-search",
            Tab::Voice => "voice",
            Tab::Skills => "skills",
            Tab::Templates => "templates",
            Tab::Assistants => "assistants",
            Tab::Workspaces => "workspaces",
            Tab::Knowledge => "knowledge",
            Tab::Memory => "memory",
            Tab::System => "system",
            Tab::Data => "data",
            Tab::Usage => "usage",
            Tab::Health => "health",
            Tab::About => "about",
        }
    }
}

/// The settings dialog, opened through [`crate::shell::ShellState::settings_open`]. The
/// dialog and everything in it is a lazily loaded wasm chunk, mounted the first time the
/// settings open (a deep link opens them at start).
#[component]
pub fn SettingsDialog() -> impl IntoView {
    let shell = use_shell();
    let mounted = RwSignal::new(shell.settings_open.get_untracked());
    Effect::new(move |_| {
        if shell.settings_open.get() && !mounted.get_untracked() {
            mounted.set(true);
        }
    });
    move || {
        mounted
            .get()
            .then(|| crate::ui::lazy::lazy_view(settings_dialog(), "settings--unmounted"))
    }
}

/// The dialog with its content, in its own lazily loaded wasm chunk.
#[lazy]
fn settings_dialog() -> AnyView {
    let shell = use_shell();
    let i18n = use_i18n();
    // Shown once its stylesheet (`crate::ui::lazy_styles`) and its English sentences
    // (`crate::i18n::load_later_english`) are here.
    let styled = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Panels);
    let worded = crate::i18n::later_english_ready();
    view! {
        <Show when=move || styled.get() && worded.get()>
            <Dialog
                open=shell.settings_open
                title=Signal::derive(move || i18n.t(Key::SettingsTitle))
                class="dialog--settings"
            >
                <SettingsTabs />
            </Dialog>
        </Show>
    }
    .into_any()
}

#[component]
fn SettingsTabs() -> impl IntoView {
    let shell = use_shell();
    let selected =
        RwSignal::new(Tab::from_slug(&shell.settings_tab.get_untracked()).unwrap_or(Tab::General));
    // The open tab is the deep link: `#settings/<tab>` can be bookmarked and shared, and
    // a link followed while the dialog is open switches the tab.
    Effect::new(move |_| {
        let tab = selected.get();
        if shell.settings_tab.get_untracked() != tab.slug() {
            shell.settings_tab.set(tab.slug().to_string());
        }
        browser::replace_hash(Some(&format!("settings/{}", tab.slug())));
    });
    Effect::new(move |_| {
        if let Some(tab) = Tab::from_slug(&shell.settings_tab.get())
            && tab != selected.get_untracked()
        {
            selected.set(tab);
        }
    });
    // The tabs arrive after the dialog opened when their chunk loads lazily; the dialog
    // then had only its close button to focus. Move focus to the selected tab, where it
    // would have gone.
    request_animation_frame(move || {
        let header_has_focus = document().active_element().is_none_or(|element| {
            element.closest(".dialog__header").ok().flatten().is_some()
                || element.tag_name().eq_ignore_ascii_case("body")
        });
        // A later frame: the dialog may be closed by then (a `try_` read gives nothing).
        if header_has_focus && let Some(tab) = selected.try_get_untracked() {
            browser::focus_by_id(&format!("settings-tab-{}", tab.slug()));
        }
    });
    let select_and_focus = move |tab: Tab| {
        selected.set(tab);
        browser::focus_by_id(&format!("settings-tab-{}", tab.slug()));
    };
    let on_keydown = move |event: KeyboardEvent| {
        let index = Tab::ALL
            .iter()
            .position(|t| *t == selected.get_untracked())
            .unwrap_or(0);
        let count = Tab::ALL.len();
        let next = match event.key().as_str() {
            "ArrowDown" | "ArrowRight" => Some((index + 1) % count),
            "ArrowUp" | "ArrowLeft" => Some((index + count - 1) % count),
            "Home" => Some(0),
            "End" => Some(count - 1),
            _ => None,
        };
        if let Some(next) = next {
            event.prevent_default();
            select_and_focus(Tab::ALL[next]);
        }
    };
    let tabs = Tab::ALL
        .into_iter()
        .map(|tab| {
            let is_selected = move || selected.get() == tab;
            view! {
                <button
                    type="button"
                    role="tab"
                    class="settings__tab"
                    id=format!("settings-tab-{}", tab.slug())
                    aria-controls="settings-panel"
                    aria-selected=move || is_selected().to_string()
                    tabindex=move || if is_selected() { "0" } else { "-1" }
                    data-autofocus=move || is_selected().then_some("")
                    on:click=move |_| selected.set(tab)
                >
                    {tr(tab.key())}
                </button>
            }
        })
        .collect_view();

    view! {
        <div class="settings">
            <div
                class="settings__tabs"
                role="tablist"
                aria-orientation="vertical"
                aria-label=tr(Key::SettingsSections)
                on:keydown=on_keydown
            >
                {tabs}
            </div>
            <div
                class="settings__panel"
                id="settings-panel"
                role="tabpanel"
                aria-labelledby=move || format!("settings-tab-{}", selected.get().slug())
            >
                {move || match selected.get() {
                    Tab::General => view! { <general::GeneralPanel /> }.into_any(),
                    Tab::Providers => view! { <providers::ProvidersPanel /> }.into_any(),
                    Tab::Models => view! { <models::ModelsPanel /> }.into_any(),
                    Tab::Tools => view! { <tools::PluginsPanel /> }.into_any(),
                    Tab::WebSearch => view! { <web_search::WebSearchPanel /> }.into_any(),
                    Tab::Voice => view! { <voice::VoicePanel /> }.into_any(),
                    Tab::Skills => view! { <skills::SkillsPanel /> }.into_any(),
                    Tab::Templates => view! { <templates::TemplatesPanel /> }.into_any(),
                    Tab::Assistants => view! { <assistants::AssistantsPanel /> }.into_any(),
                    Tab::Workspaces => view! { <workspaces::WorkspacesPanel /> }.into_any(),
                    Tab::Knowledge => view! { <knowledge::KnowledgePanel /> }.into_any(),
                    Tab::Memory => view! { <memory::MemoryPanel /> }.into_any(),
                    Tab::System => view! { <system::SystemPanel /> }.into_any(),
                    Tab::Data => view! { <data::DataPanel /> }.into_any(),
                    Tab::Usage => view! { <usage::UsagePanel /> }.into_any(),
                    Tab::Health => view! { <health::HealthPanel /> }.into_any(),
                    Tab::About => view! { <about::AboutPanel /> }.into_any(),
                }}
            </div>
        </div>
    }
}
