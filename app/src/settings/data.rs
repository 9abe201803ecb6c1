//! Settings › Data: what this browser holds for Hearth and what the user can do with it.
//! Storage use against the quota and whether the browser promised to keep it (with a way
//! to ask); export of every conversation, message, preference and provider (never a
//! key) as one JSON file; import of such a file, checked whole by
//! `hearth_core::chat::archive` and written in one transaction, keeping whichever copy
//! of a record is newer; and deleting every conversation after an explicit confirmation.

use std::collections::HashMap;

use hearth_core::chat::archive::{Archive, ArchiveError, ImportPlan, MAX_ARCHIVE_BYTES};
use hearth_core::chat::{ConversationRecord, MessageRecord};
use hearth_core::preferences::Preferences;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::chat::use_chat;
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::preferences::use_prefs;
use crate::providers::{Provider, use_providers};
use crate::storage::{Batch, CONVERSATIONS, MESSAGES, StorageError};
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

#[derive(Debug, Clone, PartialEq)]
struct PendingImport {
    file: String,
    archive: Archive,
    plan: ImportPlan,
}

/// `1536` as `1.5 KB`, in the units people read (1000-based, as browsers show quota).
fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = n.max(0.0);
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 || value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn storage_message(i18n: I18n, error: &StorageError) -> String {
    match error {
        StorageError::QuotaExceeded => i18n.t(Key::StorageFull),
        other => i18n.t_with(Key::DataFailed, &[("reason", &other.to_string())]),
    }
}

fn archive_message(i18n: I18n, error: &ArchiveError) -> String {
    match error {
        ArchiveError::TooLarge(_) => i18n.t_with(
            Key::DataImportTooLarge,
            &[("max", &bytes(MAX_ARCHIVE_BYTES as f64))],
        ),
        ArchiveError::NotJson | ArchiveError::NotAnExport => i18n.t(Key::DataImportNotAnExport),
        ArchiveError::NewerVersion(_) => i18n.t(Key::DataImportNewer),
        ArchiveError::Damaged(why) | ArchiveError::Inconsistent(why) => {
            i18n.t_with(Key::DataImportDamaged, &[("reason", why)])
        }
    }
}

/// Every stored conversation and message, or the message to show.
async fn everything(
    chat: crate::chat::Chat,
    i18n: I18n,
) -> Result<(Vec<ConversationRecord>, Vec<MessageRecord>), String> {
    let db = chat
        .database()
        .await
        .ok_or_else(|| i18n.t(Key::StorageUnavailable))?;
    let conversations = db
        .all_records::<ConversationRecord>(CONVERSATIONS)
        .await
        .map_err(|e| storage_message(i18n, &e))?;
    let messages = db
        .all_records::<MessageRecord>(MESSAGES)
        .await
        .map_err(|e| storage_message(i18n, &e))?;
    Ok((conversations, messages))
}

/// Today as `YYYY-MM-DD`, for the export's file name.
fn today() -> String {
    let date = js_sys::Date::new_0();
    format!(
        "{:04}-{:02}-{:02}",
        date.get_full_year(),
        date.get_month() + 1,
        date.get_date()
    )
}

/// The Data tab.
#[component]
pub fn DataPanel() -> impl IntoView {
    let chat = use_chat();
    let providers = use_providers();
    let prefs = use_prefs();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let usage = RwSignal::new(None::<(f64, f64)>);
    let persisted = RwSignal::new(None::<bool>);
    let counts = RwSignal::new(None::<(u32, u32)>);
    let step = RwSignal::new(Step::Idle);
    let error = RwSignal::new(None::<String>);
    let file_input = NodeRef::<leptos::html::Input>::new();

    let refresh = move || {
        spawn_local(async move {
            usage.set(browser::storage_estimate().await);
            persisted.set(browser::storage_persisted().await);
            if let Some(db) = chat.database().await {
                let conversations = db.count(CONVERSATIONS).await.unwrap_or(0);
                let messages = db.count(MESSAGES).await.unwrap_or(0);
                counts.set(Some((conversations, messages)));
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
        spawn_local(async move {
            let outcome = async {
                let (conversations, messages) = everything(chat, i18n).await?;
                let providers: Vec<serde_json::Value> = providers
                    .user_providers()
                    .iter()
                    .filter_map(|p| serde_json::to_value(p).ok())
                    .collect();
                let archive = Archive::new(
                    conversations,
                    messages,
                    Some(prefs.value.get_untracked()),
                    providers,
                    js_sys::Date::now(),
                );
                let text = serde_json::to_string(&archive).map_err(|e| e.to_string())?;
                browser::download(
                    &format!("hearth-export-{}.json", today()),
                    &text,
                    "application/json",
                )?;
                Ok::<_, String>((archive.conversations.len(), archive.messages.len()))
            }
            .await;
            step.set(Step::Idle);
            match outcome {
                Ok((c, m)) => toasts.show(
                    ToastKind::Info,
                    i18n.t_with(
                        Key::DataExported,
                        &[
                            ("conversations", &c.to_string()),
                            ("messages", &m.to_string()),
                        ],
                    ),
                ),
                Err(message) => error.set(Some(message)),
            }
        });
    };

    let on_file = move |_| {
        let Some(input) = file_input.get_untracked() else {
            return;
        };
        let input: web_sys::HtmlInputElement = input.unchecked_into();
        step.set(Step::Working);
        error.set(None);
        spawn_local(async move {
            let outcome = async {
                let (file, text) = match browser::read_chosen_file(&input, MAX_ARCHIVE_BYTES).await
                {
                    Ok(Some(chosen)) => chosen,
                    Ok(None) => return Ok(None),
                    Err(size) => return Err(archive_message(i18n, &ArchiveError::TooLarge(size))),
                };
                let archive = Archive::parse(&text).map_err(|e| archive_message(i18n, &e))?;
                let (stored, stored_messages) = everything(chat, i18n).await?;
                let stored_messages: HashMap<String, (u64, f64)> = stored_messages
                    .into_iter()
                    .map(|m| (m.id, (m.rev, m.updated_at)))
                    .collect();
                let plan = archive.plan(&stored, &stored_messages);
                Ok(Some(Box::new(PendingImport {
                    file,
                    archive,
                    plan,
                })))
            }
            .await;
            // The same file can be chosen again after a refusal.
            input.set_value("");
            match outcome {
                Ok(Some(pending)) => {
                    step.set(Step::Confirm(pending));
                    browser::focus_by_id("data-import-confirm");
                }
                Ok(None) => step.set(Step::Idle),
                Err(message) => {
                    step.set(Step::Idle);
                    error.set(Some(message));
                }
            }
        });
    };

    let import = move |_| {
        let Step::Confirm(pending) = step.get_untracked() else {
            return;
        };
        step.set(Step::Working);
        spawn_local(async move {
            let outcome = async {
                let db = chat
                    .database()
                    .await
                    .ok_or_else(|| i18n.t(Key::StorageUnavailable))?;
                let mut batch = Batch::new();
                for conversation in &pending.plan.conversations {
                    batch.put(CONVERSATIONS, conversation);
                }
                for message in &pending.plan.messages {
                    batch.put(MESSAGES, message);
                }
                // One transaction: a full quota or any failure leaves nothing half-written.
                db.apply(&batch)
                    .await
                    .map_err(|e| storage_message(i18n, &e))?;
                let incoming: Vec<Provider> = pending
                    .archive
                    .providers
                    .iter()
                    .filter_map(|v| serde_json::from_value(v.clone()).ok())
                    .collect();
                // The conversations are in; what did not follow is reported, not dropped.
                let mut partial = Vec::new();
                if let Err(reason) = providers.import(incoming).await {
                    partial.push(reason.to_string());
                }
                if let Some(imported) = pending.archive.preferences.clone()
                    && prefs.value.get_untracked() == Preferences::default()
                    && let Err(reason) = prefs.save(imported).await
                {
                    partial.push(reason.to_string());
                }
                Ok::<_, String>((pending.plan, partial))
            }
            .await;
            step.set(Step::Idle);
            match outcome {
                Ok((plan, partial)) => {
                    chat.after_bulk_change().await;
                    refresh();
                    if !partial.is_empty() {
                        error.set(Some(i18n.t_with(
                            Key::DataImportPartial,
                            &[("reason", &partial.join("; "))],
                        )));
                    }
                    toasts.show(
                        ToastKind::Info,
                        i18n.t_with(
                            Key::DataImported,
                            &[
                                ("conversations", &plan.conversations.len().to_string()),
                                ("messages", &plan.messages.len().to_string()),
                                ("skipped", &plan.skipped.to_string()),
                            ],
                        ),
                    );
                }
                Err(message) => error.set(Some(message)),
            }
        });
    };

    let delete_all = move |_| {
        if chat.any_streaming() {
            error.set(Some(i18n.t(Key::DataDeleteStreaming)));
            step.set(Step::Idle);
            return;
        }
        step.set(Step::Working);
        spawn_local(async move {
            let outcome = match chat.database().await {
                Some(db) => db
                    .clear(&[CONVERSATIONS, MESSAGES])
                    .await
                    .map_err(|e| storage_message(i18n, &e)),
                None => Err(i18n.t(Key::StorageUnavailable)),
            };
            // The images the conversations referred to go with them.
            let outcome = match outcome {
                Ok(()) => crate::files::remove_all(crate::files::IMAGES)
                    .await
                    .map_err(|e| e.to_string()),
                failed => failed,
            };
            step.set(Step::Idle);
            match outcome {
                Ok(()) => {
                    chat.after_bulk_change().await;
                    chat.new_chat();
                    refresh();
                    toasts.show(ToastKind::Info, i18n.t(Key::DataDeleted));
                }
                Err(message) => error.set(Some(message)),
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
        counts.get().map(|(c, m)| {
            i18n.t_with(
                Key::DataCounts,
                &[
                    ("conversations", &c.to_string()),
                    ("messages", &m.to_string()),
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
                    <button type="button" class="button button--secondary data-block__action" on:click=ask_persist>
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
                        accept="application/json,.json"
                        aria-describedby="data-import-hint"
                        disabled=working
                        on:change=on_file
                    />
                    {tr(Key::DataImportButton)}
                </label>
                {move || match step.get() {
                    Step::Confirm(pending) => {
                        let summary = i18n.t_with(
                            Key::DataImportSummary,
                            &[
                                ("file", &pending.file),
                                ("conversations", &pending.plan.conversations.len().to_string()),
                                ("messages", &pending.plan.messages.len().to_string()),
                                ("skipped", &pending.plan.skipped.to_string()),
                            ],
                        );
                        Some(view! {
                            <div class="confirm-box" role="group" aria-labelledby="data-import-summary">
                                <p class="confirm-box__text" id="data-import-summary">{summary}</p>
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

            <p class="field__error" id="data-error" role="alert">{move || error.get()}</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_browsers_show_them() {
        assert_eq!(bytes(0.0), "0 B");
        assert_eq!(bytes(999.0), "999 B");
        assert_eq!(bytes(1_536.0), "1.5 KB");
        assert_eq!(bytes(12_345_678.0), "12.3 MB");
        assert_eq!(bytes(256.0 * 1024.0 * 1024.0), "268 MB");
        assert_eq!(bytes(10e12), "10.0 TB");
    }
}
