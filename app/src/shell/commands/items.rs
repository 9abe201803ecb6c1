//! The menus' entries: for `/`, the composer's own commands, the templates, the MCP
//! servers' prompts, the installed skills and the assistants (the user's own, then the
//! built-in ones); for `@`, everything the chat can reach ([`Reachable`]): this chat's
//! earlier files, the knowledge collections, the plugins, the assistants and the MCP
//! servers' resources. Each says what choosing it does ([`Action`]); the menu ranks and
//! shows them.

use hearth_core::assistant::Assistant;
use hearth_core::attachment::Attachment;
use hearth_core::knowledge::KnowledgeLibrary;
use hearth_core::plugin::Plugin;
use hearth_core::plugin::mcp_resource::McpResource;
use hearth_core::skill::library::SkillLibrary;
use hearth_core::template::library::{TemplateLibrary, command_from_title};

use super::Filling;
use super::mcp::{Listing, Server};
use crate::i18n::{I18n, Key};

/// What choosing an entry does.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Action {
    /// Starts a new chat.
    New,
    /// Starts a new temporary chat.
    Temporary,
    /// Starts the open conversation's context again after its last message.
    Clear,
    /// Starts a new chat with this assistant.
    Assistant(Box<Assistant>),
    /// Opens the search palette.
    Search,
    /// Opens Settings › Templates.
    Templates,
    /// Opens Settings › Skills.
    Skills,
    /// Opens Settings › Knowledge.
    Knowledge,
    /// Uses the template with this id.
    Template(String),
    /// Fills and gets an MCP prompt.
    Prompt(Filling),
    /// Turns a skill on or off.
    Skill { id: String, active: bool },
    /// Starts or stops answering this conversation from a knowledge collection.
    Collection {
        id: String,
        name: String,
        used: bool,
    },
    /// Attaches an MCP resource.
    Resource {
        plugin_id: String,
        server: String,
        resource: McpResource,
    },
    /// Attaches a file an earlier message of this chat carries.
    File(Box<Attachment>),
    /// Turns a plugin on or off.
    Plugin { id: String, title: String, on: bool },
    /// Hands the open chat to this assistant (with no chat open, starts one with it).
    HandOver(Box<Assistant>),
}

impl Action {
    /// What kind of entry it is, for the page (`data-slash-kind`).
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Self::New
            | Self::Temporary
            | Self::Clear
            | Self::Search
            | Self::Templates
            | Self::Skills
            | Self::Knowledge => "command",
            Self::Assistant(_) => "assistant",
            Self::Template(_) => "template",
            Self::Prompt(_) => "prompt",
            Self::Skill { .. } => "skill",
            Self::Collection { .. } => "collection",
            Self::Resource { .. } => "resource",
            Self::File(_) => "file",
            Self::Plugin { .. } => "plugin",
            Self::HandOver(_) => "hand-over",
        }
    }

    /// Whether it is chosen with `@` (the `@word` goes, the rest of the text stays)
    /// rather than `/`.
    pub(super) fn is_mention(&self) -> bool {
        matches!(
            self,
            Self::Resource { .. }
                | Self::Collection { .. }
                | Self::File(_)
                | Self::Plugin { .. }
                | Self::HandOver(_)
        )
    }
}

/// One entry of a menu.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Item {
    /// What follows the sign to choose it.
    pub command: String,
    /// Its title.
    pub title: String,
    /// What kind of entry it is, in the user's language.
    pub kind: String,
    /// What choosing it does.
    pub action: Action,
}

/// `text` as a command part: its words joined by `-`, else `fallback`.
fn slug(text: &str, fallback: &str) -> String {
    match command_from_title(text) {
        slug if slug.is_empty() => fallback.to_string(),
        slug => slug,
    }
}

/// The `/` menu's entries, in the order shown for a bare `/`.
pub(super) fn commands(
    i18n: I18n,
    templates: Option<&TemplateLibrary>,
    skills: Option<&SkillLibrary>,
    assistants: &[Assistant],
    servers: &[Server],
) -> Vec<Item> {
    let action = i18n.t(Key::SlashKindAction);
    let builtin = |command: &str, key: Key, action_of: Action| Item {
        command: command.to_string(),
        title: i18n.t(key),
        kind: action.clone(),
        action: action_of,
    };
    let mut items = vec![
        builtin("new", Key::SlashNew, Action::New),
        builtin("temporary", Key::SlashTemporary, Action::Temporary),
        builtin("clear", Key::SlashClear, Action::Clear),
        builtin("search", Key::SlashSearch, Action::Search),
        builtin("templates", Key::SlashTemplates, Action::Templates),
        builtin("skills", Key::SlashSkills, Action::Skills),
        builtin("knowledge", Key::SlashKnowledge, Action::Knowledge),
    ];
    let template = i18n.t(Key::SlashKindTemplate);
    for t in templates.iter().flat_map(|l| &l.templates) {
        items.push(Item {
            command: t.command.clone(),
            title: t.title.clone(),
            kind: template.clone(),
            action: Action::Template(t.id.clone()),
        });
    }
    for server in servers {
        let Listing::Prompts(prompts) = &server.listing else {
            continue;
        };
        let prefix = slug(&server.title, "mcp");
        let kind = i18n.t_with(Key::SlashKindPrompt, &[("server", &server.title)]);
        for prompt in prompts {
            let name = slug(&prompt.name, &prompt.name.replace(char::is_whitespace, "-"));
            items.push(Item {
                command: format!("{prefix}:{name}"),
                title: prompt.title.clone(),
                kind: kind.clone(),
                action: Action::Prompt(Filling::Prompt {
                    plugin_id: server.plugin_id.clone(),
                    server: server.title.clone(),
                    prompt: prompt.clone(),
                }),
            });
        }
    }
    let (on, off) = (
        i18n.t(Key::SlashKindSkillOn),
        i18n.t(Key::SlashKindSkillOff),
    );
    if let Some(library) = skills {
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
    let assistant = i18n.t(Key::SlashKindAssistant);
    for a in assistants {
        items.push(Item {
            command: slug(&a.name, &a.id),
            title: titled(a),
            kind: assistant.clone(),
            action: Action::Assistant(Box::new(a.clone())),
        });
    }
    items
}

/// The assistants `/` offers: the user's own, then the built-in ones (`catalogue`), each
/// id once.
pub(super) fn assistants(own: &[Assistant], catalogue: &[Assistant]) -> Vec<Assistant> {
    let mut all = own.to_vec();
    for a in catalogue {
        if !all.iter().any(|mine| mine.id == a.id) {
            all.push(a.clone());
        }
    }
    all
}

/// What `@` offers besides the servers' resources.
pub(super) struct Reachable<'a> {
    /// The files this chat's messages carry, newest first, each once.
    pub files: &'a [Attachment],
    /// The knowledge collections.
    pub collections: Option<&'a KnowledgeLibrary>,
    /// The collections this conversation uses.
    pub used: &'a [String],
    /// Every plugin, built-in or installed, and whether it is on.
    pub plugins: &'a [(Plugin, bool)],
    /// The assistants (the user's own, then the built-in ones).
    pub assistants: &'a [Assistant],
    /// Whether a chat is open (an assistant takes it over; otherwise one starts).
    pub chat_open: bool,
}

/// The `@` menu's entries: this chat's files, the knowledge collections, the plugins,
/// the assistants, then every listed resource of every server.
pub(super) fn mentions(i18n: I18n, reachable: Reachable<'_>, servers: &[Server]) -> Vec<Item> {
    let file = i18n.t(Key::MentionKindFile);
    let mut items: Vec<Item> = reachable
        .files
        .iter()
        .map(|attachment| Item {
            command: slug(&attachment.name, "file"),
            title: attachment.name.clone(),
            kind: file.clone(),
            action: Action::File(Box::new(attachment.clone())),
        })
        .collect();
    let (on, off) = (
        i18n.t(Key::MentionKindCollectionOn),
        i18n.t(Key::MentionKindCollection),
    );
    for collection in reachable.collections.iter().flat_map(|l| &l.collections) {
        let used = reachable.used.contains(&collection.id);
        items.push(Item {
            command: slug(&collection.name, "collection"),
            title: collection.name.clone(),
            kind: if used { on.clone() } else { off.clone() },
            action: Action::Collection {
                id: collection.id.clone(),
                name: collection.name.clone(),
                used,
            },
        });
    }
    let (on, off) = (
        i18n.t(Key::MentionKindPluginOn),
        i18n.t(Key::MentionKindPlugin),
    );
    for (plugin, is_on) in reachable.plugins {
        items.push(Item {
            command: slug(&plugin.title, "plugin"),
            title: plugin.title.clone(),
            kind: if *is_on { on.clone() } else { off.clone() },
            action: Action::Plugin {
                id: plugin.id.clone(),
                title: plugin.title.clone(),
                on: *is_on,
            },
        });
    }
    let assistant = i18n.t(if reachable.chat_open {
        Key::MentionKindAssistant
    } else {
        Key::MentionKindAssistantNew
    });
    for a in reachable.assistants {
        items.push(Item {
            command: slug(&a.name, &a.id),
            title: titled(a),
            kind: assistant.clone(),
            action: Action::HandOver(Box::new(a.clone())),
        });
    }
    for server in servers {
        let Listing::Resources(resources) = &server.listing else {
            continue;
        };
        let kind = i18n.t_with(Key::MentionKindResource, &[("server", &server.title)]);
        for resource in resources {
            items.push(Item {
                command: slug(&resource.title, "resource"),
                title: resource.title.clone(),
                kind: kind.clone(),
                action: Action::Resource {
                    plugin_id: server.plugin_id.clone(),
                    server: server.title.clone(),
                    resource: resource.clone(),
                },
            });
        }
    }
    items
}

/// An assistant's name, after its emoji when it has one.
fn titled(a: &Assistant) -> String {
    if a.emoji.is_empty() {
        a.name.clone()
    } else {
        format!("{} {}", a.emoji, a.name)
    }
}

/// The files of a chat (`carried`, in the order its messages carry them, root first),
/// newest first, each once.
pub(super) fn chat_files(carried: &[Attachment]) -> Vec<Attachment> {
    let mut seen = std::collections::HashSet::new();
    carried
        .iter()
        .rev()
        .filter(|attachment| seen.insert(attachment.id.as_str()))
        .cloned()
        .collect()
}
