//! The composer's `/` menu and the form that fills a template or an MCP prompt, in
//! their own lazily loaded chunk (the first `/` typed loads it). The menu lists the
//! composer's own commands (new chat, search, templates, skills), the user's prompt
//! templates, the installed MCP servers' prompts ([`prompts`]) and the installed skills,
//! best match first (`hearth_core::slash`); it is a listbox the text area points at
//! (`aria-activedescendant`), so the keyboard never leaves the text: ↑ and ↓ move, Enter
//! or Tab chooses, Escape closes it until the text changes. A template or prompt without
//! variables becomes the text; one with variables or arguments opens its form
//! ([`form`]). A skill's entry turns it on or off for the messages that follow.

mod form;
mod prompts;

use hearth_core::plugin::mcp_prompt::McpPrompt;
use hearth_core::slash::{self, Entry};
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use hearth_core::template::library::command_from_title;

use crate::i18n::{Key, use_i18n};
use crate::shell::{COMPOSER_INPUT_ID, use_shell};
use crate::skills::use_skills;
use crate::templates::use_templates;
use crate::ui::toast::{ToastKind, use_toasts};

/// The listbox's id.
const LISTBOX_ID: &str = "slash-menu";

/// What the composer shares with its `/` menu and template form.
#[derive(Clone, Copy)]
pub struct Commands {
    /// The composer's text.
    pub text: RwSignal<String>,
    /// The menu's key handler while it is shown: the composer hands it every key first,
    /// and a key it took (`true`) goes no further.
    pub keys: StoredValue<Option<Callback<KeyboardEvent, bool>>>,
    /// What the open form fills in.
    pub filling: RwSignal<Option<Filling>>,
}

/// What a form fills in.
#[derive(Clone, Debug, PartialEq)]
pub enum Filling {
    /// The template with this id.
    Template(String),
    /// An MCP server's prompt.
    Prompt {
        /// The server's plugin id.
        plugin_id: String,
        /// The server's title.
        server: String,
        /// The prompt.
        prompt: McpPrompt,
    },
}

/// What an entry does.
#[derive(Clone, Debug, PartialEq)]
enum Action {
    New,
    Search,
    Templates,
    Skills,
    Template(String),
    Prompt(Filling),
    Skill { id: String, active: bool },
}

/// One entry of the menu.
#[derive(Clone, Debug, PartialEq)]
struct Item {
    command: String,
    title: String,
    kind: String,
    action: Action,
}

/// The menu, or the form of the template being filled in: shown once its stylesheet
/// and its English sentences (`crate::i18n::load_later_english`) are here.
pub fn view(commands: Commands) -> AnyView {
    let styled = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Panels);
    let worded = RwSignal::new(crate::i18n::later_english_here());
    if !worded.get_untracked() {
        spawn_local(async move {
            crate::i18n::load_later_english().await;
            let _ = worded.try_set(true);
        });
    }
    view! {
        <Show when=move || styled.get() && worded.get()>
            {move || match commands.filling.get() {
                Some(filling) => view! { <form::FillForm filling commands /> }.into_any(),
                None => view! { <Menu commands /> }.into_any(),
            }}
        </Show>
    }
    .into_any()
}

/// The `/` menu.
#[component]
fn Menu(commands: Commands) -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let templates = use_templates();
    let skills = use_skills();
    let shell = use_shell();
    let chat = crate::chat::use_chat();
    let search = crate::search::use_search();
    let plugins = crate::plugins::use_plugins();
    // All are read the first time the menu opens, never at start.
    spawn_local(async move {
        if let Err(error) = templates.ensure_loaded().await {
            leptos::logging::warn!("templates unreadable: {error:?}");
        }
        let _ = skills.ensure_loaded().await;
    });
    // A deployment without plugins answers the list with an error: nothing is asked.
    prompts::ask(plugins);
    let servers = Memo::new(move |_| prompts::servers(plugins));
    let text = commands.text;
    let items = Memo::new(move |_| {
        let mut items = vec![
            builtin("new", i18n.t(Key::SlashNew), Action::New),
            builtin("search", i18n.t(Key::SlashSearch), Action::Search),
            builtin("templates", i18n.t(Key::SlashTemplates), Action::Templates),
            builtin("skills", i18n.t(Key::SlashSkills), Action::Skills),
        ];
        let (action, template, on, off) = (
            i18n.t(Key::SlashKindAction),
            i18n.t(Key::SlashKindTemplate),
            i18n.t(Key::SlashKindSkillOn),
            i18n.t(Key::SlashKindSkillOff),
        );
        let prompt_kind = |server: &str| i18n.t_with(Key::SlashKindPrompt, &[("server", server)]);
        for item in &mut items {
            item.kind.clone_from(&action);
        }
        templates.library().with(|library| {
            for t in library.iter().flat_map(|l| &l.templates) {
                items.push(Item {
                    command: t.command.clone(),
                    title: t.title.clone(),
                    kind: template.clone(),
                    action: Action::Template(t.id.clone()),
                });
            }
        });
        servers.with(|servers| {
            for server in servers {
                let prompts::Listing::Listed(listed) = &server.listing else {
                    continue;
                };
                let prefix = match command_from_title(&server.title) {
                    slug if slug.is_empty() => "mcp".to_string(),
                    slug => slug,
                };
                for prompt in listed {
                    let name = match command_from_title(&prompt.name) {
                        slug if slug.is_empty() => prompt.name.replace(char::is_whitespace, "-"),
                        slug => slug,
                    };
                    items.push(Item {
                        command: format!("{prefix}:{name}"),
                        title: prompt.title.clone(),
                        kind: prompt_kind(&server.title),
                        action: Action::Prompt(Filling::Prompt {
                            plugin_id: server.plugin_id.clone(),
                            server: server.title.clone(),
                            prompt: prompt.clone(),
                        }),
                    });
                }
            }
        });
        skills.library().with(|library| {
            if let Some(library) = library {
                for s in &library.installed {
                    let active = library.is_active(s.id());
                    items.push(Item {
                        command: s.id().to_string(),
                        title: s.skill.meta.title.clone(),
                        kind: if active { on.clone() } else { off.clone() },
                        action: Action::Skill {
                            id: s.id().to_string(),
                            active,
                        },
                    });
                }
            }
        });
        items
    });
    // The text the user closed the menu on: it stays closed until the text changes.
    let dismissed = RwSignal::new(None::<String>);
    let query = Memo::new(move |_| {
        let text = text.get();
        if dismissed.with(|d| d.as_deref() == Some(text.as_str())) {
            return None;
        }
        slash::query(&text)
    });
    let shown = Memo::new(move |_| {
        let Some(query) = query.get() else {
            return Vec::new();
        };
        items.with(|items| {
            let entries: Vec<Entry<'_>> = items
                .iter()
                .map(|i| Entry {
                    command: &i.command,
                    title: &i.title,
                })
                .collect();
            slash::rank(&query, &entries)
                .into_iter()
                .map(|index| items[index].clone())
                .collect::<Vec<_>>()
        })
    });
    let active = RwSignal::new(0usize);
    // A new query starts at the best match.
    Effect::new(move |_| {
        query.track();
        active.set(0);
    });
    let open = move || query.with(Option::is_some);

    let choose = move |item: Item| {
        text.set(String::new());
        match item.action {
            Action::New => {
                chat.new_chat();
            }
            Action::Search => search.open_palette(),
            Action::Templates | Action::Skills => {
                let tab = if item.action == Action::Templates {
                    "templates"
                } else {
                    "skills"
                };
                shell.settings_tab.set(tab.to_string());
                shell.settings_open.set(true);
            }
            Action::Template(id) => {
                let body = templates.library().with_untracked(|l| {
                    l.as_ref().and_then(|l| l.get(&id)).map(|t| t.body.clone())
                });
                match body.map(|b| hearth_core::template::parse(&b).map(|p| (b, p))) {
                    Some(Ok((body, parsed))) if parsed.variables.is_empty() => text.set(body),
                    Some(Ok(_)) => commands.filling.set(Some(Filling::Template(id))),
                    _ => toasts.show(ToastKind::Error, i18n.t(Key::SlashTemplateGone)),
                }
            }
            // Even a prompt without arguments goes through its form: getting it is a
            // request to the server, and the form says while it runs and if it fails.
            Action::Prompt(filling) => commands.filling.set(Some(filling)),
            Action::Skill { id, active } => {
                let title = item.title.clone();
                spawn_local(async move {
                    match skills.change(move |l| l.set_active(&id, !active)).await {
                        Ok(()) => {
                            let key = if active {
                                Key::SlashSkillOff
                            } else {
                                Key::SlashSkillOn
                            };
                            toasts.show(ToastKind::Info, i18n.t_with(key, &[("title", &title)]));
                        }
                        Err(error) => toasts.show(ToastKind::Error, skill_error_text(&error, i18n)),
                    }
                });
            }
        }
        crate::browser::focus_by_id(COMPOSER_INPUT_ID);
    };

    let on_key = Callback::new(move |event: KeyboardEvent| -> bool {
        if !open() || event.is_composing() || event.key_code() == 229 {
            return false;
        }
        let count = shown.with(Vec::len);
        let key = event.key();
        let handled = match key.as_str() {
            "Escape" => {
                dismissed.set(Some(text.get_untracked()));
                true
            }
            _ if count == 0 => false,
            "ArrowDown" => {
                active.update(|a| *a = (*a + 1) % count);
                true
            }
            "ArrowUp" => {
                active.update(|a| *a = (*a + count - 1) % count);
                true
            }
            "Enter" | "Tab" if !event.shift_key() => {
                let chosen = shown.with(|s| s.get(active.get_untracked()).cloned());
                if let Some(item) = chosen {
                    choose(item);
                }
                true
            }
            _ => false,
        };
        if handled {
            event.prevent_default();
        }
        handled
    });
    commands.keys.set_value(Some(on_key));
    on_cleanup(move || {
        commands.keys.set_value(None);
        point_composer_at(None);
    });

    // The text area points at the listbox and its active option while the menu shows.
    Effect::new(move |_| {
        let target = open().then(|| {
            let has_options = shown.with(|s| !s.is_empty());
            has_options.then(|| option_id(active.get()))
        });
        point_composer_at(target);
    });
    // The active option stays in view.
    Effect::new(move |_| {
        let id = option_id(active.get());
        if open() {
            request_animation_frame(move || {
                if let Some(element) = document().get_element_by_id(&id) {
                    element.scroll_into_view_with_bool(false);
                }
            });
        }
    });

    let option = move |(index, item): (usize, Item)| {
        let selected = move || active.get() == index;
        let chosen = item.clone();
        view! {
            <li id=option_id(index) class="search-result slash-option" role="option"
                class:search-result--active=selected
                aria-selected=move || selected().to_string()
                data-slash-command=item.command.clone()
                // Keeps the focus in the text area.
                on:mousedown=|event| event.prevent_default()
                on:click=move |_| choose(chosen.clone())>
                <div class="search-result__head">
                    <span class="search-result__title">
                        <code class="slash-option__command">{format!("/{}", item.command)}</code>
                        " "
                        {item.title.clone()}
                    </span>
                    <span class="search-result__date">{item.kind.clone()}</span>
                </div>
            </li>
        }
    };
    view! {
        <Show when=open>
            <div class="slash-menu">
                <Show when=move || shown.with(|s| !s.is_empty())
                    fallback=move || view! {
                        <p class="slash-menu__empty" role="status" id="slash-menu-empty">
                            {move || i18n.t_with(Key::SlashNoMatch, &[("query", &query.get().unwrap_or_default())])}
                        </p>
                    }>
                    <ul id=LISTBOX_ID class="slash-menu__list" role="listbox"
                        aria-label=move || i18n.t(Key::SlashLabel)>
                        {move || shown.get().into_iter().enumerate().map(option).collect_view()}
                    </ul>
                </Show>
                {move || servers.get().into_iter().filter_map(|server| {
                    let line = match &server.listing {
                        prompts::Listing::Asking => i18n.t_with(Key::SlashPromptsAsking, &[("server", &server.title)]),
                        prompts::Listing::Failed(reason) => i18n.t_with(
                            Key::SlashPromptsFailed,
                            &[("server", &server.title), ("reason", reason)],
                        ),
                        prompts::Listing::Listed(_) => return None,
                    };
                    Some(view! { <p class="slash-menu__empty" role="status" data-prompts-state=server.plugin_id.clone()>{line}</p> })
                }).collect_view()}
                <p class="slash-menu__hint" aria-hidden="true">{move || i18n.t(Key::SlashHint)}</p>
            </div>
        </Show>
    }
}

/// Why a skill's switch did not change, in the user's language.
fn skill_error_text(error: &crate::skills::SkillsError, i18n: crate::i18n::I18n) -> String {
    use crate::skills::SkillsError;
    use hearth_core::skill::library::{LibraryError, MAX_ACTIVE};
    match error {
        SkillsError::Library(LibraryError::TooManyActive) => {
            i18n.t_with(Key::SlashSkillsFull, &[("max", &MAX_ACTIVE.to_string())])
        }
        SkillsError::Storage(reason) | SkillsError::Unreadable(reason) => {
            i18n.t_with(Key::SlashSkillFailed, &[("reason", reason)])
        }
        _ => i18n.t(Key::SlashSkillGone),
    }
}

/// A composer command: its entry, kind filled in later.
fn builtin(command: &str, title: String, action: Action) -> Item {
    Item {
        command: command.to_string(),
        title,
        kind: String::new(),
        action,
    }
}

/// The id of the option at `index`.
fn option_id(index: usize) -> String {
    format!("slash-option-{index}")
}

/// Points the composer's text area at the listbox's option `option` (`Some(None)`: the
/// menu shows without options), or at nothing.
fn point_composer_at(option: Option<Option<String>>) {
    let Some(input) = document().get_element_by_id(COMPOSER_INPUT_ID) else {
        return;
    };
    match option {
        Some(active) => {
            let _ = input.set_attribute("aria-autocomplete", "list");
            let _ = input.set_attribute("aria-controls", LISTBOX_ID);
            match active {
                Some(id) => {
                    let _ = input.set_attribute("aria-activedescendant", &id);
                }
                None => {
                    let _ = input.remove_attribute("aria-activedescendant");
                }
            }
        }
        None => {
            for name in [
                "aria-autocomplete",
                "aria-controls",
                "aria-activedescendant",
            ] {
                let _ = input.remove_attribute(name);
            }
        }
    }
}
