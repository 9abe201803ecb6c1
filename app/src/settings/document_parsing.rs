//! Settings › Knowledge › Document parsing: who turns PDFs and Office files into text
//! for attachments and collections (`crate::documents`): the edge itself (the default,
//! the file goes nowhere else), MinerU or LlamaParse. A remote parser says that the
//! file is uploaded to it, takes the user's key (sealed in the vault; shown masked,
//! forgettable) or the deployment's when the operator has one, and the resolver's
//! verdict (`hearth_core::document_parsing::route`) is shown before anything is sent.

use hearth_core::api::doc_parse::DocParseProvider;
use hearth_core::document_parsing::{self, Missing, ParsingSettings};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};

fn parser_name(parser: DocParseProvider) -> Key {
    match parser {
        DocParseProvider::Local => Key::ParsingLocal,
        DocParseProvider::Mineru => Key::ParsingMineru,
        DocParseProvider::LlamaParse => Key::ParsingLlamaParse,
    }
}

fn missing_key(missing: Missing) -> Key {
    match missing {
        Missing::DeploymentKey => Key::ParsingMissingDeploymentKey,
        Missing::Key => Key::ParsingMissingKey,
        Missing::Sealing => Key::ParsingMissingSealing,
    }
}

/// The document parsing form.
#[component]
pub fn DocumentParsing() -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let parser = RwSignal::new(DocParseProvider::Local);
    let deployment_key = RwSignal::new(false);
    let key = RwSignal::new(String::new());
    let saved_key = RwSignal::new(None::<String>);
    let offered = RwSignal::new(document_parsing::Offered::default());
    let loaded = RwSignal::new(false);
    let saving = RwSignal::new(false);
    let show_saved_key = move || {
        let chosen = parser.get_untracked();
        spawn_local(async move {
            let masked = if chosen.is_remote() {
                crate::documents::masked_key(chosen).await
            } else {
                None
            };
            if parser.try_get_untracked() == Some(chosen) {
                let _ = saved_key.try_set(masked);
            }
        });
    };
    spawn_local(async move {
        let settings = crate::documents::settings().await.unwrap_or_default();
        let _ = offered.try_set(crate::documents::offered().await);
        let _ = parser.try_set(settings.parser);
        let _ = deployment_key.try_set(settings.deployment_key);
        show_saved_key();
        let _ = loaded.try_set(true);
    });
    let verdict = move || {
        let settings = ParsingSettings {
            parser: parser.get(),
            deployment_key: deployment_key.get(),
        };
        let own = saved_key.with(Option::is_some) || !key.with(|k| k.trim().is_empty());
        offered.with(|offered| document_parsing::route(settings, own, offered))
    };
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        saving.set(true);
        let (chosen, use_deployment, typed) = (
            parser.get_untracked(),
            deployment_key.get_untracked(),
            key.get_untracked(),
        );
        spawn_local(async move {
            let mut outcome = Ok(());
            if chosen.is_remote() && !typed.trim().is_empty() {
                outcome = crate::documents::save_key(chosen, &typed).await;
            }
            if outcome.is_ok() {
                outcome = crate::documents::change(|s| {
                    s.parser = chosen;
                    s.deployment_key = use_deployment;
                })
                .await;
            }
            let _ = saving.try_set(false);
            match outcome {
                Ok(()) => {
                    key.set(String::new());
                    show_saved_key();
                    toasts.show(ToastKind::Info, i18n.t(Key::ParsingSaved));
                }
                Err(reason) => toasts.show(
                    ToastKind::Error,
                    i18n.t_with(Key::ParsingNotSaved, &[("reason", &reason)]),
                ),
            }
        });
    };
    let forget = move |_| {
        let chosen = parser.get_untracked();
        spawn_local(async move {
            if let Err(reason) = crate::documents::save_key(chosen, "").await {
                toasts.show(
                    ToastKind::Error,
                    i18n.t_with(Key::ParsingNotSaved, &[("reason", &reason)]),
                );
            }
            show_saved_key();
        });
    };
    let remote = move || parser.get().is_remote();
    let choice = Signal::derive(move || parser.get().as_str().to_string());
    view! {
        <form class="data-block" id="parsing-form" on:submit=submit novalidate
            data-loaded=move || loaded.get().to_string()>
            <h3 class="settings-subheading">{tr(Key::ParsingTitle)}</h3>
            <p class="field__hint">{tr(Key::ParsingIntro)}</p>
            <Field
                id="parsing-parser"
                label=tr(Key::ParsingParser)
                control=Control::Select
                value=choice
                on_input=move |v: String| {
                    let chosen = DocParseProvider::parse(&v).unwrap_or_default();
                    parser.set(chosen);
                    key.set(String::new());
                    show_saved_key();
                }
            >
                {[DocParseProvider::Local, DocParseProvider::Mineru, DocParseProvider::LlamaParse]
                    .into_iter()
                    .map(|p| view! {
                        <option value=p.as_str() selected=move || parser.get() == p>{tr(parser_name(p))}</option>
                    })
                    .collect_view()}
            </Field>
            <Show when=remote>
                <p class="field__hint" id="parsing-leaves">
                    {move || i18n.t_with(Key::ParsingLeaves, &[("parser", &i18n.t(parser_name(parser.get())))])}
                </p>
                <Show when=move || offered.with(|o| o.deployment_keys.contains(&parser.get()))>
                    <label class="switch">
                        <input type="checkbox" id="parsing-deployment-key" prop:checked=move || deployment_key.get()
                            on:change=move |event| deployment_key.set(event_target_checked(&event)) />
                        <span>{tr(Key::ParsingDeploymentKey)}</span>
                    </label>
                </Show>
                <Show when=move || !deployment_key.get()>
                    <super::saved_key::SavedKeyField id="parsing-api-key" forget_id="parsing-forget-key"
                        key saved=saved_key on_forget=forget />
                </Show>
            </Show>
            <p class="field__hint" id="parsing-verdict" role="status"
                data-ready=move || verdict().is_ok().to_string()>
                {move || match verdict() {
                    Ok(route) if route.parser.is_remote() && route.credential == Some(document_parsing::Credential::Keyless) => {
                        i18n.t(Key::ParsingReadyKeyless)
                    }
                    Ok(_) => i18n.t(Key::ParsingReady),
                    Err(missing) => i18n.t(missing_key(missing)),
                }}
            </p>
            <div class="provider-form__actions">
                <button type="submit" class="button button--primary" id="parsing-save"
                    aria-busy=move || saving.get().to_string() disabled=move || saving.get() || !loaded.get()>
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}
