//! The composer's `/` and `@` menus and the form that fills a template or an MCP
//! prompt, in their own lazily loaded chunk (the first `/` or `@` typed loads it). `/`
//! lists the composer's own commands (new chat, temporary chat, search, templates,
//! skills), the user's prompt templates, the installed MCP servers' prompts, the
//! installed skills and the assistants (choosing one starts a chat with it); `@`
//! lists everything the chat can reach: this chat's earlier files to attach again, the
//! knowledge collections to answer from (`super::collections`), the plugins to turn on
//! or off and the assistants to hand the chat to ([`mention`]), and the servers'
//! resources to attach ([`items`], [`mcp`]). Best match first
//! (`hearth_core::slash`); a listbox the text area points at (`aria-activedescendant`),
//! so the keyboard never leaves the text: ↑ and ↓ move, Enter or Tab chooses, Escape
//! closes it until the text changes. A template or prompt with variables or arguments
//! opens its form ([`form`]); a resource is read into the draft's attachments
//! ([`attach`]); a skill's entry turns it on or off for the messages that follow.

mod attach;
mod form;
mod items;
mod mcp;
mod mention;

use hearth_core::plugin::mcp_prompt::McpPrompt;
use hearth_core::slash::{self, Entry};
use items::{Action, Item};
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

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
    /// The composer's attachments, which a resource chosen with `@` joins.
    pub draft: crate::attachments::Draft,
}

/// What the text asks a menu for.
#[derive(Clone, Debug, PartialEq)]
enum Asked {
    /// `/` and what follows it.
    Command(String),
    /// `@` at byte `start` of the text, and what follows it.
    Mention { start: usize, query: String },
}

impl Asked {
    fn query(&self) -> &str {
        match self {
            Self::Command(query) | Self::Mention { query, .. } => query,
        }
    }

    fn offer(&self) -> mcp::Offer {
        match self {
            Self::Command(_) => mcp::Offer::Prompts,
            Self::Mention { .. } => mcp::Offer::Resources,
        }
    }
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

/// The menu, or the form of the template being filled in: shown once its stylesheet
/// and its English sentences (`crate::i18n::load_later_english`) are here.
pub fn view(commands: Commands) -> AnyView {
    let styled = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Panels);
    let worded = crate::i18n::later_english_ready();
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

/// The `/` and `@` menus (one at a time: what the text asks for).
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
    let prefs = crate::preferences::use_prefs();
    let knowledge = crate::knowledge::use_knowledge();
    let library = knowledge.library();
    let assistants = crate::assistants::use_assistants();
    let own = assistants.library();
    let (catalogue, _) = crate::catalogue::use_catalogue(|tag| async move {
        crate::assistants::catalog::load(&tag).await
    });
    // Each is read the first time the menu opens, never at start; one that cannot be
    // read is said in the menu, not shown as having nothing.
    let unreadable = RwSignal::new(Vec::<String>::new());
    spawn_local(async move {
        let mut said = Vec::new();
        if let Err(crate::templates::TemplatesError::Unreadable(reason)) =
            templates.ensure_loaded().await
        {
            said.push(i18n.t_with(Key::TemplatesReadFailed, &[("reason", &reason)]));
        }
        if let Err(crate::skills::SkillsError::Unreadable(reason)) = skills.ensure_loaded().await {
            said.push(i18n.t_with(Key::SkillsReadFailed, &[("reason", &reason)]));
        }
        if let Err(error) = knowledge.load().await {
            said.push(crate::knowledge::error_text(&error, i18n));
        }
        if let Err(error @ crate::assistants::AssistantsError::Unreadable(_)) =
            assistants.ensure_loaded().await
        {
            said.push(crate::assistants::words::error_text(&error, i18n));
        }
        let _ = unreadable.try_set(said);
    });
    let text = commands.text;
    // The text the user closed the menu on: it stays closed until the text changes.
    let dismissed = RwSignal::new(None::<String>);
    let asked = Memo::new(move |_| {
        let text = text.get();
        if dismissed.with(|d| d.as_deref() == Some(text.as_str())) {
            return None;
        }
        slash::query(&text)
            .map(Asked::Command)
            .or_else(|| slash::mention(&text).map(|(start, query)| Asked::Mention { start, query }))
    });
    let offer = Memo::new(move |_| asked.with(|a| a.as_ref().map(Asked::offer)));
    // Each server is asked when its offer is wanted (the menu opens) and its list is
    // missing, stale by its caching hint, or failed (a deployment without plugins answers
    // the list with an error: nothing is asked then).
    Effect::new(move |_| {
        if let Some(offer) = offer.get() {
            mcp::ask(plugins, offer);
        }
    });
    let servers = Memo::new(move |_| {
        offer
            .get()
            .map(|offer| mcp::servers(plugins, offer))
            .unwrap_or_default()
    });
    let offered_assistants = move || {
        own.with(|own| {
            catalogue.with(|state| {
                items::assistants(
                    own.as_ref().map_or(&[], |l| &l.custom),
                    state.shown().map_or(&[], |c| &c.assistants),
                )
            })
        })
    };
    let items = Memo::new(move |_| match offer.get() {
        Some(mcp::Offer::Prompts) => {
            let offered = offered_assistants();
            templates.library().with(|t| {
                skills.library().with(|s| {
                    servers.with(|servers| {
                        items::commands(i18n, t.as_ref(), s.as_ref(), &offered, servers)
                    })
                })
            })
        }
        Some(mcp::Offer::Resources) => {
            let used = super::collections::in_use(chat);
            let files = items::chat_files(&chat.open.path_attachments());
            let listed: Vec<_> = plugins
                .builtins
                .get()
                .into_iter()
                .chain(plugins.installed.get())
                .map(|r| r.plugin)
                .collect();
            let switched: Vec<_> = prefs.value.with(|p| {
                listed
                    .into_iter()
                    .map(|plugin| {
                        let on = p.tools.plugin_on(&plugin);
                        (plugin, on)
                    })
                    .collect()
            });
            let offered = offered_assistants();
            library.with(|l| {
                servers.with(|servers| {
                    let reachable = items::Reachable {
                        files: &files,
                        collections: l.as_ref(),
                        used: &used,
                        plugins: &switched,
                        assistants: &offered,
                        chat_open: chat.open.current().is_some(),
                    };
                    items::mentions(i18n, reachable, servers)
                })
            })
        }
        None => Vec::new(),
    });
    let shown = Memo::new(move |_| {
        let Some(query) = asked.with(|a| a.as_ref().map(|a| a.query().to_string())) else {
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
    // What the menu says of servers still being asked, or that failed.
    let notes = Memo::new(move |_| {
        let mentions = offer.get() == Some(mcp::Offer::Resources);
        // Without the plugins' list there are no plugins (nor servers) to offer: said.
        let unlisted = match plugins.state.get() {
            crate::plugins::ListState::Failed(error) if mentions => Some((
                "plugins".to_string(),
                i18n.t_with(
                    Key::MentionPluginsFailed,
                    &[("reason", &crate::i18n::edge_errors::describe(&i18n, &error))],
                ),
            )),
            _ => None,
        };
        servers.with(|servers| {
            unlisted
                .into_iter()
                .chain(servers.iter().filter_map(|server| {
                    let (asking, failed) = if mentions {
                        (Key::MentionResourcesAsking, Key::MentionResourcesFailed)
                    } else {
                        (Key::SlashPromptsAsking, Key::SlashPromptsFailed)
                    };
                    let line = match &server.listing {
                        mcp::Listing::Asking => i18n.t_with(asking, &[("server", &server.title)]),
                        mcp::Listing::Failed(reason) => {
                            i18n.t_with(failed, &[("server", &server.title), ("reason", reason)])
                        }
                        _ => return None,
                    };
                    Some((server.plugin_id.clone(), line))
                }))
                .collect::<Vec<_>>()
        })
    });
    let active = RwSignal::new(0usize);
    // A new query starts at the best match.
    Effect::new(move |_| {
        asked.track();
        active.set(0);
    });
    // `/` always shows (its own commands are there); `@` only when a server offers
    // resources or is being asked, so without any an ordinary `@` brings up nothing.
    let open = Memo::new(move |_| match asked.get() {
        Some(Asked::Command(_)) => true,
        Some(Asked::Mention { .. }) => {
            items.with(|i| !i.is_empty()) || notes.with(|n| !n.is_empty())
        }
        None => false,
    });

    let draft = commands.draft;
    let choose = move |item: Item| {
        if item.action.is_mention() {
            // The `@word` goes; the rest of the text stays.
            if let Some(Asked::Mention { start, .. }) = asked.get_untracked() {
                text.update(|t| t.truncate(start));
            }
        } else {
            text.set(String::new());
        }
        match item.action {
            Action::New => {
                chat.new_chat();
            }
            Action::Temporary => {
                chat.new_chat();
                chat.temporary.set(true);
            }
            Action::Clear => chat.clear_context(),
            Action::Assistant(assistant) => {
                crate::assistants::start::start(*assistant, chat, shell, toasts, i18n);
            }
            Action::Search => search.open_palette(),
            Action::Templates | Action::Skills | Action::Knowledge => {
                let tab = match item.action {
                    Action::Templates => "templates",
                    Action::Skills => "skills",
                    _ => "knowledge",
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
            Action::Resource {
                plugin_id,
                server,
                resource,
            } => attach::attach((plugins, draft, toasts, i18n), plugin_id, server, resource),
            Action::File(attachment) => {
                mention::attach_file((draft, toasts, i18n), *attachment);
            }
            Action::Plugin { id, title, on } => {
                mention::switch_plugin((prefs, toasts, i18n), id, title, on);
            }
            Action::HandOver(assistant) => {
                mention::hand_over((chat, shell, toasts, i18n), *assistant);
            }
            Action::Collection { id, name, used } => {
                super::collections::set_used(chat, (i18n, toasts), id, name, !used);
            }
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
        if !open.get_untracked() || event.is_composing() || event.key_code() == 229 {
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
        let target = open.get().then(|| {
            let has_options = shown.with(|s| !s.is_empty());
            has_options.then(|| option_id(active.get()))
        });
        point_composer_at(target);
    });
    // The active option stays in view.
    Effect::new(move |_| {
        let id = option_id(active.get());
        if open.get() {
            request_animation_frame(move || {
                if let Some(element) = document().get_element_by_id(&id) {
                    element.scroll_into_view_with_bool(false);
                }
            });
        }
    });

    let option = move |(index, item): (usize, Item)| {
        let sign = if item.action.is_mention() { "@" } else { "/" };
        let selected = move || active.get() == index;
        let chosen = item.clone();
        view! {
            <li id=option_id(index) class="search-result slash-option" role="option"
                class:search-result--active=selected
                aria-selected=move || selected().to_string()
                data-slash-command=item.command.clone()
                data-slash-kind=item.action.kind()
                // Keeps the focus in the text area.
                on:mousedown=|event| event.prevent_default()
                on:click=move |_| choose(chosen.clone())>
                <div class="search-result__head">
                    <span class="search-result__title">
                        <code class="slash-option__command">{format!("{sign}{}", item.command)}</code>
                        " "
                        {item.title.clone()}
                    </span>
                    <span class="search-result__date">{item.kind.clone()}</span>
                </div>
            </li>
        }
    };
    let no_match = move || {
        asked.with(|a| match a {
            Some(Asked::Mention { query, .. }) => {
                i18n.t_with(Key::MentionNoMatch, &[("query", query)])
            }
            other => i18n.t_with(
                Key::SlashNoMatch,
                &[("query", other.as_ref().map_or("", Asked::query))],
            ),
        })
    };
    let label = move || {
        let mentions = offer.get() == Some(mcp::Offer::Resources);
        i18n.t(if mentions {
            Key::MentionLabel
        } else {
            Key::SlashLabel
        })
    };
    view! {
        <Show when=move || open.get()>
            <div class="slash-menu">
                <Show when=move || shown.with(|s| !s.is_empty())
                    fallback=move || view! {
                        <p class="slash-menu__empty" role="status" id="slash-menu-empty">{no_match}</p>
                    }>
                    <ul id=LISTBOX_ID class="slash-menu__list" role="listbox" aria-label=label>
                        {move || shown.get().into_iter().enumerate().map(option).collect_view()}
                    </ul>
                </Show>
                {move || offer.get().is_some().then(|| {
                    unreadable.get().into_iter().map(|line| view! {
                        <p class="slash-menu__empty" role="alert" data-menu-unreadable="">{line}</p>
                    }).collect_view()
                })}
                {move || (offer.get() == Some(mcp::Offer::Prompts)).then(|| {
                    catalogue.with(|state| match state {
                        crate::catalogue::CatalogState::Failed(error) => Some(i18n.t_with(
                            Key::AssistantsCatalogFailed,
                            &[("reason", &error.to_string())],
                        )),
                        _ => None,
                    }).map(|line| view! {
                        <p class="slash-menu__empty" role="status" id="slash-menu-assistants">{line}</p>
                    })
                })}
                {move || notes.get().into_iter().map(|(plugin_id, line)| view! {
                    <p class="slash-menu__empty" role="status" data-mcp-state=plugin_id>{line}</p>
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
