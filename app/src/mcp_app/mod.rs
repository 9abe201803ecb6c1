//! MCP Apps in a reply: a finished call whose tool has a `ui://` page
//! (`hearth_core::plugin::mcp_app`) shows that page under its card. The page comes from
//! the tool's own server (`resources/read` through the edge, kept for the session) and
//! runs in the MCP Apps sandbox (`/sandbox/app`, served by the edge with its own policy:
//! an opaque origin, no network, no popups or navigation), framed without a `sandbox`
//! attribute so that the service worker can answer it offline; nothing is posted until
//! the frame is seen to be isolated. `host` speaks the extension's JSON-RPC with it.
//!
//! A call finished while this tab wrote the reply shows its page at once; one read back
//! from storage offers a Show app button (a page may call tools as it starts, and
//! reading history should not do that unasked). The module and its sentences load with
//! the conversation view, its English with the later English.

mod host;

use std::cell::RefCell;
use std::collections::{BTreeSet, VecDeque};

use hearth_core::chat::tools::ToolCallRecord;
use hearth_core::plugin::mcp_app::AppResource;
use leptos::prelude::*;

use crate::i18n::{Key, tr, use_i18n};
use crate::plugins::{Plugins, use_plugins};

/// How many pages are kept for the session (by plugin and URI).
const KEPT_PAGES: usize = 8;

thread_local! {
    /// Pages read this session: (plugin, URI) → page.
    static PAGES: RefCell<VecDeque<((String, String), AppResource)>> = const { RefCell::new(VecDeque::new()) };
    /// Calls whose page was shown this session: shown again when their card comes back
    /// (the message list unmounts what scrolls away).
    static SHOWN: RefCell<BTreeSet<String>> = const { RefCell::new(BTreeSet::new()) };
    /// Whether a card asked for the plugin list this page.
    static LISTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn kept_page(plugin_id: &str, uri: &str) -> Option<AppResource> {
    PAGES.with_borrow(|pages| {
        pages
            .iter()
            .find(|((p, u), _)| p == plugin_id && u == uri)
            .map(|(_, page)| page.clone())
    })
}

fn keep_page(plugin_id: &str, uri: &str, page: &AppResource) {
    PAGES.with_borrow_mut(|pages| {
        pages.retain(|((p, u), _)| !(p == plugin_id && u == uri));
        pages.push_back(((plugin_id.to_string(), uri.to_string()), page.clone()));
        while pages.len() > KEPT_PAGES {
            pages.pop_front();
        }
    });
}

/// What a call's page is: its plugin, the plugin's title, the tool's page and the
/// tool's description and input schema (for the page's host context).
#[derive(Debug, Clone, PartialEq)]
struct Page {
    plugin_id: String,
    plugin_title: String,
    uri: String,
    tool: String,
    description: String,
    input_schema: serde_json::Value,
}

/// The page of `call`'s tool, if the installed plugin it ran on has one for it.
fn page_of(plugins: Plugins, call: &ToolCallRecord) -> Option<Page> {
    let plugin_id = call.plugin_id.as_deref()?;
    plugins.installed.with(|installed| {
        let plugin = &installed.iter().find(|r| r.plugin.id == plugin_id)?.plugin;
        plugin.mcp.as_ref()?;
        let function = plugin.functions.iter().find(|f| f.name == call.name)?;
        Some(Page {
            plugin_id: plugin.id.clone(),
            plugin_title: plugin.title.clone(),
            uri: function.app_page()?.to_string(),
            tool: function.tool.clone().unwrap_or_default(),
            description: function.description.clone(),
            input_schema: function.parameters.clone(),
        })
    })
}

/// The MCP App of a finished call, under its card; nothing when its tool has no page.
/// `live`: the call finished while this tab wrote the reply.
#[component]
pub fn CallApp(
    /// The finished call.
    call: ToolCallRecord,
    /// Whether it finished while this tab wrote the reply.
    live: bool,
) -> impl IntoView {
    let plugins = use_plugins();
    // After a reload the plugins are listed on first use: a card with a call of an
    // installed plugin is such a use, once per page (a long conversation has many).
    if call.plugin_id.is_some() && !LISTED.with(|asked| asked.replace(true)) {
        leptos::task::spawn_local(async move { plugins.ensure_listed().await });
    }
    let call = StoredValue::new(call);
    let page = Memo::new(move |_| call.with_value(|call| page_of(plugins, call)));
    let shown =
        RwSignal::new(live || SHOWN.with_borrow(|s| call.with_value(|c| s.contains(&c.id))));
    Effect::new(move |_| {
        if shown.get() {
            SHOWN.with_borrow_mut(|s| s.insert(call.with_value(|c| c.id.clone())));
        }
    });
    let i18n = use_i18n();
    // Its sentences are in the later English, fetched only for a card that has a page
    // (a conversation has many tool cards, few of them apps).
    let ready = RwSignal::new(false);
    Effect::new(move |_| {
        if page.with(Option::is_some) && !ready.get_untracked() {
            leptos::task::spawn_local(async move {
                crate::i18n::load_later_english().await;
                let _ = ready.try_set(true);
            });
        }
    });
    move || {
        let page = page.get().filter(|_| ready.get())?;
        let title = i18n.t_with(Key::McpAppFrom, &[("plugin", &page.plugin_title)]);
        Some(if shown.get() {
            let label = title.clone();
            let uri = page.uri.clone();
            view! {
                <section class="mcp-app" aria-label=label data-mcp-app=uri>
                    <header class="mcp-app__bar">
                        <span class="mcp-app__title">{title}</span>
                        <button type="button" class="button button--secondary button--small" data-action="mcp-app-hide"
                            on:click=move |_| {
                                SHOWN.with_borrow_mut(|s| s.remove(&call.with_value(|c| c.id.clone())));
                                shown.set(false);
                            }>
                            {tr(Key::McpAppHide)}
                        </button>
                    </header>
                    <host::AppHost call=call.get_value() page=page />
                </section>
            }
            .into_any()
        } else {
            view! {
                <div class="mcp-app mcp-app--folded">
                    <span class="mcp-app__offer">{i18n.t_with(Key::McpAppOffer, &[("plugin", &page.plugin_title)])}</span>
                    <button type="button" class="button button--secondary button--small" data-action="mcp-app-show"
                        on:click=move |_| shown.set(true)>
                        {tr(Key::McpAppShow)}
                    </button>
                </div>
            }
            .into_any()
        })
    }
}
