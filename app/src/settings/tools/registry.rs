//! Settings › Tools › the MCP registry: the official registry browsed through the edge
//! (`/api/mcp/servers`), a search, pages on demand, each server's text shown as text,
//! and for a server Hearth can reach a button that fills the install form.

use hearth_core::api::{McpServer, McpTransport};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::install::{Draft, InstallKind};
use crate::edge::EdgeError;
use crate::i18n::{Key, tr, use_i18n};

/// Browsing the official MCP registry through the edge: a search, a page of servers
/// (their text shown as text), more pages on demand, and for a server Hearth can reach
/// (a streamable-HTTP remote) a button that fills the install form.
#[component]
pub(super) fn RegistrySection(draft: Draft) -> impl IntoView {
    let i18n = use_i18n();
    let search = RwSignal::new(String::new());
    let servers = RwSignal::new(Vec::<McpServer>::new());
    let cursor = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<EdgeError>);
    let searched = RwSignal::new(false);
    let load = move |more: bool| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        error.set(None);
        let term = search.get_untracked();
        let from = if more { cursor.get_untracked() } else { None };
        spawn_local(async move {
            let page = crate::edge::browse_mcp_registry(&term, from.as_deref()).await;
            busy.set(false);
            searched.set(true);
            match page {
                Ok(page) => {
                    if more {
                        servers.update(|list| list.extend(page.servers));
                    } else {
                        servers.set(page.servers);
                    }
                    cursor.set(page.next_cursor);
                }
                Err(reason) => error.set(Some(reason)),
            }
        });
    };
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        load(false);
    };
    let row = move |server: McpServer| {
        let remote = server
            .remotes
            .iter()
            .find(|r| r.transport == McpTransport::StreamableHttp)
            .cloned();
        let needs = remote
            .as_ref()
            .and_then(|r| r.headers.iter().find(|h| h.required).cloned());
        let title = server.title.clone().unwrap_or_else(|| server.name.clone());
        let use_it = remote.clone().map(|remote| {
            move |_| {
                draft.kind.set(InstallKind::Mcp);
                draft.url.set(remote.url.clone());
                // A secret header other than Authorization carries the token; required
                // plain headers are listed for the user to fill in.
                let secret = remote
                    .headers
                    .iter()
                    .find(|h| h.secret && !h.name.eq_ignore_ascii_case("authorization"));
                draft
                    .auth_header
                    .set(secret.map(|h| h.name.clone()).unwrap_or_default());
                draft.headers.set(
                    remote
                        .headers
                        .iter()
                        .filter(|h| h.required && !h.secret)
                        .map(|h| format!("{}: ", h.name))
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
                crate::browser::focus_by_id("plugin-install-url");
            }
        });
        view! {
            <li class="registry-row" data-registry-name=server.name.clone()>
                <div class="registry-row__main">
                    <span class="plugin-card__title">{title}</span>
                    <span class="plugin-card__meta">{format!("{} · {}", server.name, server.version)}</span>
                    <p class="plugin-card__description">{server.description.clone()}</p>
                    {remote.map(|r| view! { <span class="plugin-card__url">{r.url}</span> })}
                    {needs.map(|h| view! {
                        <p class="field__hint">{i18n.t_with(Key::RegistryNeedsHeader, &[("name", &h.name), ("description", &h.description)])}</p>
                    })}
                </div>
                {match use_it {
                    Some(use_it) => view! {
                        <button type="button" class="button button--secondary button--small" data-registry-use="" on:click=use_it>
                            {tr(Key::RegistryUse)}
                        </button>
                    }.into_any(),
                    None => view! {
                        <span class="field__hint">{tr(Key::RegistryNotInstallable)}</span>
                    }.into_any(),
                }}
            </li>
        }
    };
    view! {
        <section class="data-block" aria-labelledby="registry-title">
            <h3 class="settings-subheading" id="registry-title">{tr(Key::RegistryTitle)}</h3>
            <form class="registry-search" role="search" on:submit=submit>
                <label class="visually-hidden" for="registry-search">{tr(Key::RegistrySearch)}</label>
                <input id="registry-search" class="input" type="search" autocomplete="off"
                    placeholder=tr(Key::RegistrySearch)
                    prop:value=move || search.get()
                    on:input=move |e| search.set(event_target_value(&e)) />
                <button type="submit" class="button button--secondary" id="registry-search-submit"
                    aria-busy=move || busy.get().to_string() disabled=move || busy.get()>
                    {tr(Key::RegistryBrowse)}
                </button>
            </form>
            <p class="field__error" role="alert" id="registry-error">{move || error.get().map(|e| i18n.t_with(Key::RegistryFailed, &[("reason", &crate::i18n::edge_errors::describe(&i18n, &e))]))}</p>
            <Show when=move || busy.get()>
                <p class="field__hint" role="status">{tr(Key::RegistryLoading)}</p>
            </Show>
            {move || (searched.get() && servers.with(Vec::is_empty) && error.with(Option::is_none) && !busy.get())
                .then(|| view! { <p class="field__hint" id="registry-empty">{tr(Key::RegistryEmpty)}</p> })}
            <ul class="plugin-list registry-list" id="registry-results">
                {move || servers.get().into_iter().map(row).collect_view()}
            </ul>
            <Show when=move || cursor.with(Option::is_some)>
                <button type="button" class="button button--secondary" id="registry-more"
                    disabled=move || busy.get() on:click=move |_| load(true)>
                    {tr(Key::RegistryMore)}
                </button>
            </Show>
        </section>
    }
}
