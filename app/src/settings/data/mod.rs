//! Settings › Data: what this browser holds for Hearth and what the user can do with it.
//! Storage use against the quota and whether the browser promised to keep it (with a way
//! to ask); export, import and delete-all, each done by the data service
//! ([`crate::archive`]) while this tab shows where it stands (with the files done of
//! the files in all), asks before an import or a delete (for another app's export:
//! which app, and what it held that is not imported), and says what happened.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

mod words;

use words::{bytes, data_message, knowledge_message, left_out_message, partial_message};

use crate::archive::{Counts, DataError, PartialImport, PendingImport, use_data};
use crate::browser;
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::toast::{ToastKind, use_toasts};

/// Where an action of this tab stands.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Idle,
    Working,
    /// An import read and checked, waiting for the user's go-ahead.
    Confirm(Box<PendingImport>),
    /// The delete-all confirmation is showing.
    ConfirmDelete,
}

/// The Data tab.
#[component]
pub fn DataPanel() -> impl IntoView {
    let data = use_data();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let usage = RwSignal::new(None::<(f64, f64)>);
    let persisted = RwSignal::new(None::<bool>);
    let counts = RwSignal::new(None::<Counts>);
    let step = RwSignal::new(Step::Idle);
    // Files done and in all, while an export or an import works through them.
    let progress = RwSignal::new(None::<(Key, usize, usize)>);
    let error = RwSignal::new(None::<DataError>);
    // What the last import could not bring in beside the conversations.
    let partial = RwSignal::new(Vec::<PartialImport>::new());
    let file_input = NodeRef::<leptos::html::Input>::new();

    let refresh = move || {
        spawn_local(async move {
            usage.set(browser::storage_estimate().await);
            persisted.set(browser::storage_persisted().await);
            if let Ok(now) = data.counts().await {
                counts.set(Some(now));
            }
        });
    };
    refresh();

    let ask_persist = move |_| {
        spawn_local(async move {
            let granted = browser::storage_persist().await.unwrap_or(false);
            persisted.set(Some(granted));
            let key = if granted {
                Key::DataPersistGranted
            } else {
                Key::DataPersistRefused
            };
            toasts.show(ToastKind::Info, i18n.t(key));
        });
    };

    let export = move |_| {
        if step.get_untracked() == Step::Working {
            return;
        }
        step.set(Step::Working);
        error.set(None);
        partial.set(Vec::new());
        spawn_local(async move {
            let report = |done: usize, total: usize| {
                progress.set(Some((Key::DataExportProgress, done, total)))
            };
            let outcome = data.export(&report).await;
            progress.set(None);
            step.set(Step::Idle);
            match outcome {
                Ok(written) => {
                    let mut text = i18n.t_with(
                        Key::DataExported,
                        &[
                            ("conversations", &written.records.conversations.to_string()),
                            ("messages", &written.records.messages.to_string()),
                            ("files", &written.files.to_string()),
                        ],
                    );
                    if written.missing > 0 {
                        let missing = i18n.t_with(
                            Key::DataExportMissing,
                            &[("count", &written.missing.to_string())],
                        );
                        text = format!("{text} {missing}");
                    }
                    if written.skills_left_out {
                        text = format!("{text} {}", i18n.t(Key::DataExportSkillsLeftOut));
                    }
                    if written.memory_left_out {
                        text = format!("{text} {}", i18n.t(Key::DataExportMemoryLeftOut));
                    }
                    if written.workspaces_left_out {
                        text = format!("{text} {}", i18n.t(Key::DataExportWorkspacesLeftOut));
                    }
                    if written.assistants_left_out {
                        text = format!("{text} {}", i18n.t(Key::DataExportAssistantsLeftOut));
                    }
                    if written.templates_left_out {
                        text = format!("{text} {}", i18n.t(Key::DataExportTemplatesLeftOut));
                    }
                    if written.web_search_left_out {
                        text = format!("{text} {}", i18n.t(Key::DataExportWebSearchLeftOut));
                    }
                    if written.prices_left_out {
                        text = format!("{text} {}", i18n.t(Key::DataExportPricesLeftOut));
                    }
                    if written.knowledge_left_out {
                        text = format!("{text} {}", i18n.t(Key::DataExportKnowledgeLeftOut));
                    } else if written.collections > 0 {
                        let knowledge = i18n.t_with(
                            Key::DataExportKnowledge,
                            &[
                                ("collections", &written.collections.to_string()),
                                ("files", &written.knowledge_files.to_string()),
                            ],
                        );
                        text = format!("{text} {knowledge}");
                    }
                    toasts.show(ToastKind::Info, text);
                }
                Err(problem) => error.set(Some(problem)),
            }
        });
    };

    // What reading the chosen file planned: asked about, or said why not.
    let show_plan = move |planned: Result<Option<PendingImport>, DataError>| match planned {
        Ok(Some(pending)) => {
            step.set(Step::Confirm(Box::new(pending)));
            browser::focus_by_id("data-import-confirm");
        }
        Ok(None) => step.set(Step::Idle),
        Err(problem) => {
            step.set(Step::Idle);
            error.set(Some(problem));
        }
    };
    let start_planning = move || {
        step.set(Step::Working);
        error.set(None);
        partial.set(Vec::new());
    };

    let on_file = move |_| {
        let Some(input) = file_input.get_untracked() else {
            return;
        };
        let input: web_sys::HtmlInputElement = input.unchecked_into();
        start_planning();
        spawn_local(async move { show_plan(data.prepare_import(&input).await) });
    };

    // An export file Hearth was opened with (the manifest's file handler): planned and
    // asked about like a chosen one, never imported without the user's yes.
    let pwa = crate::pwa::use_pwa();
    Effect::new(move |_| {
        if let Some(file) = pwa.take_opened_file() {
            start_planning();
            spawn_local(async move {
                show_plan(data.prepare_file_import(file).await.map(Some));
            });
        }
    });

    let import = move |_| {
        let Step::Confirm(pending) = step.get_untracked() else {
            return;
        };
        step.set(Step::Working);
        error.set(None);
        partial.set(Vec::new());
        spawn_local(async move {
            let report = |done: usize, total: usize| {
                progress.set(Some((Key::DataImportProgress, done, total)))
            };
            let outcome = data.import(*pending, &report).await;
            progress.set(None);
            step.set(Step::Idle);
            match outcome {
                Ok(imported) => {
                    refresh();
                    partial.set(imported.partial);
                    let done = i18n.t_with(
                        Key::DataImported,
                        &[
                            ("conversations", &imported.written.conversations.to_string()),
                            ("messages", &imported.written.messages.to_string()),
                            ("files", &imported.files.to_string()),
                            ("skipped", &imported.skipped.to_string()),
                        ],
                    );
                    // Files that could not be read after all are said, not dropped.
                    let mut text = match left_out_message(i18n, &imported.left_out) {
                        left if left.is_empty() => done,
                        left => format!("{done} {left}"),
                    };
                    if let Some(merged) = imported.knowledge {
                        text = format!("{text} {}", knowledge_message(i18n, &merged));
                    }
                    toasts.show(ToastKind::Info, text);
                }
                Err(problem) => error.set(Some(problem)),
            }
        });
    };

    let delete_all = move |_| {
        step.set(Step::Working);
        error.set(None);
        partial.set(Vec::new());
        spawn_local(async move {
            let outcome = data.delete_all().await;
            step.set(Step::Idle);
            refresh();
            match outcome {
                Ok(()) => toasts.show(ToastKind::Info, i18n.t(Key::DataDeleted)),
                Err(problem) => error.set(Some(problem)),
            }
        });
    };

    let working = move || step.with(|s| *s == Step::Working);
    let usage_text = move || match usage.get() {
        Some((used, quota)) => i18n.t_with(
            Key::DataUsage,
            &[("used", &bytes(used)), ("quota", &bytes(quota))],
        ),
        None => i18n.t(Key::DataUsageUnknown),
    };
    let usage_fraction = move || {
        usage
            .get()
            .filter(|(_, quota)| *quota > 0.0)
            .map(|(used, quota)| (used / quota).clamp(0.0, 1.0))
            .unwrap_or(0.0)
    };
    let counts_text = move || {
        counts.get().map(|now| {
            i18n.t_with(
                Key::DataCounts,
                &[
                    ("conversations", &now.conversations.to_string()),
                    ("messages", &now.messages.to_string()),
                ],
            )
        })
    };
    let persisted_text = move || match persisted.get() {
        Some(true) => i18n.t(Key::DataPersisted),
        Some(false) => i18n.t(Key::DataNotPersisted),
        None => String::new(),
    };

    view! {
        <div class="settings-section data-panel" aria-busy=move || working().to_string()>
            <section class="data-block" aria-labelledby="data-storage-title">
                <h3 class="settings-subheading" id="data-storage-title">{tr(Key::DataStorage)}</h3>
                <p class="settings-section__text" id="data-usage">{usage_text}</p>
                <meter
                    class="data-meter"
                    min="0"
                    max="1"
                    low="0.7"
                    high="0.9"
                    optimum="0"
                    aria-labelledby="data-usage"
                    prop:value=usage_fraction
                ></meter>
                <p class="settings-section__text" id="data-counts">{counts_text}</p>
                <p class="settings-section__text" id="data-persisted">{persisted_text}</p>
                <Show when=move || persisted.get() == Some(false)>
                    <button type="button" id="data-persist-ask" class="button button--secondary data-block__action" on:click=ask_persist>
                        {tr(Key::DataPersistAsk)}
                    </button>
                </Show>
            </section>

            <section class="data-block" aria-labelledby="data-export-title">
                <h3 class="settings-subheading" id="data-export-title">{tr(Key::DataExport)}</h3>
                <p class="settings-section__text">{tr(Key::DataExportHint)}</p>
                <button
                    type="button"
                    id="data-export"
                    class="button button--secondary data-block__action"
                    disabled=working
                    on:click=export
                >
                    {tr(Key::DataExportButton)}
                </button>
            </section>

            <section class="data-block" aria-labelledby="data-import-title">
                <h3 class="settings-subheading" id="data-import-title">{tr(Key::DataImport)}</h3>
                <p class="settings-section__text" id="data-import-hint">{tr(Key::DataImportHint)}</p>
                <label class="button button--secondary data-block__action file-button">
                    <input
                        node_ref=file_input
                        id="data-import-file"
                        class="visually-hidden"
                        type="file"
                        accept="application/zip,.zip,application/json,.json"
                        aria-describedby="data-import-hint"
                        disabled=working
                        on:change=on_file
                    />
                    {tr(Key::DataImportButton)}
                </label>
                {move || match step.get() {
                    Step::Confirm(pending) => {
                        let conversations = pending.plan.conversations.len().to_string();
                        let messages = pending.plan.messages.len().to_string();
                        let skipped = (pending.plan.skipped + pending.files_present).to_string();
                        let (summary, left_out) = match &pending.from {
                            Some(report) => (
                                i18n.t_with(
                                    Key::DataImportFrom,
                                    &[
                                        ("file", &pending.file),
                                        ("app", report.source.name()),
                                        ("conversations", &conversations),
                                        ("messages", &messages),
                                        ("files", &pending.files_to_write().to_string()),
                                        ("skipped", &skipped),
                                    ],
                                ),
                                left_out_message(i18n, &report.omitted),
                            ),
                            None => (
                                i18n.t_with(
                                    Key::DataImportSummary,
                                    &[
                                        ("file", &pending.file),
                                        ("conversations", &conversations),
                                        ("messages", &messages),
                                        ("files", &pending.files_to_write().to_string()),
                                        ("skipped", &skipped),
                                    ],
                                ),
                                String::new(),
                            ),
                        };
                        Some(view! {
                            <div class="confirm-box" role="group" aria-labelledby="data-import-summary">
                                <p class="confirm-box__text" id="data-import-summary">{summary}</p>
                                {pending.knowledge.map(|(collections, files)| view! {
                                    <p class="confirm-box__text" id="data-import-knowledge">
                                        {i18n.t_with(
                                            Key::DataImportKnowledge,
                                            &[
                                                ("collections", &collections.to_string()),
                                                ("files", &files.to_string()),
                                            ],
                                        )}
                                    </p>
                                })}
                                {(!left_out.is_empty()).then(|| view! {
                                    <p class="confirm-box__text" id="data-import-left-out">{left_out}</p>
                                })}
                                <div class="provider-form__actions">
                                    <button type="button" class="button button--secondary" on:click=move |_| step.set(Step::Idle)>
                                        {tr(Key::ProviderCancel)}
                                    </button>
                                    <button type="button" id="data-import-confirm" class="button button--primary" on:click=import>
                                        {tr(Key::DataImportConfirm)}
                                    </button>
                                </div>
                            </div>
                        })
                    }
                    _ => None,
                }}
            </section>

            <super::archived::ArchivedConversations />

            <section class="data-block" aria-labelledby="data-delete-title">
                <h3 class="settings-subheading" id="data-delete-title">{tr(Key::DataDelete)}</h3>
                <p class="settings-section__text">{tr(Key::DataDeleteHint)}</p>
                <Show
                    when=move || step.get() == Step::ConfirmDelete
                    fallback=move || view! {
                        <button
                            type="button"
                            id="data-delete"
                            class="button button--secondary data-block__action"
                            disabled=working
                            on:click=move |_| {
                                step.set(Step::ConfirmDelete);
                                browser::focus_by_id("data-delete-cancel");
                            }
                        >
                            {tr(Key::DataDeleteButton)}
                        </button>
                    }
                >
                    <div class="confirm-box confirm-box--danger" role="alert">
                        <p class="confirm-box__text">{tr(Key::DataDeleteConfirmText)}</p>
                        <div class="provider-form__actions">
                            <button type="button" id="data-delete-cancel" class="button button--secondary" on:click=move |_| step.set(Step::Idle)>
                                {tr(Key::ProviderCancel)}
                            </button>
                            <button type="button" id="data-delete-confirm" class="button button--danger" on:click=delete_all>
                                {tr(Key::DataDeleteConfirm)}
                            </button>
                        </div>
                    </div>
                </Show>
            </section>

            {move || progress.get().map(|(key, done, total)| {
                let text = i18n.t_with(
                    key,
                    &[("done", &done.to_string()), ("total", &total.to_string())],
                );
                view! {
                    <div class="data-progress" id="data-progress" role="status">
                        <p class="settings-section__text">{text.clone()}</p>
                        <progress
                            class="data-progress__bar"
                            max=total.max(1).to_string()
                            value=done.to_string()
                            aria-label=text
                        ></progress>
                    </div>
                }
            })}
            <p class="field__error" id="data-error" role="alert">
                {move || match error.get() {
                    Some(problem) => Some(data_message(i18n, &problem)),
                    None => partial.with(|p| (!p.is_empty()).then(|| partial_message(i18n, p))),
                }}
            </p>
        </div>
    }
}
