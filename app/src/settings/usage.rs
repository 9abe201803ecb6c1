//! Settings › Usage: tokens and cost per day, model and conversation over a chosen
//! period, read from the replies stored in this browser (`crate::usage::scan`), priced
//! with the user's prices and Hearth's defaults; under it, the price table
//! (`super::prices`). The reading is sliced and shows its progress; choosing another
//! period or leaving the tab stops it.

use hearth_core::calendar::civil_from_days;
use hearth_core::cost::compact_count;
use hearth_core::cost::ledger::Spend;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::chat::use_chat;
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::shell::use_shell;
use crate::ui::field::{Control, Field};
use crate::usage::scan::Scanned;

/// How many conversations the view lists.
const CONVERSATIONS_SHOWN: usize = 10;
/// The most days the chart draws (the last ones of the period).
const CHART_DAYS: usize = 120;

/// What the reading has come to.
#[derive(Clone)]
enum Reading {
    /// `done` of `of` conversations read.
    Going { done: usize, of: usize },
    /// Read.
    Done(std::sync::Arc<Scanned>),
    /// Storage failed.
    Failed(String),
}

/// The Usage tab.
#[component]
pub fn UsagePanel() -> impl IntoView {
    let i18n = use_i18n();
    let period = RwSignal::new("30".to_string());
    let reading = RwSignal::new(Reading::Going { done: 0, of: 0 });
    // Each reading has a number; one that is no longer the latest stops.
    let latest = StoredValue::new(0_u64);
    let prices = crate::usage::value();
    Effect::new(move |_| {
        let days = period.get().parse::<u32>().ok();
        // Prices changed in the table below price the view again.
        let _ = prices.get();
        latest.update_value(|n| *n += 1);
        let mine = latest.get_value();
        let wanted = move || latest.try_get_value() == Some(mine);
        reading.set(Reading::Going { done: 0, of: 0 });
        spawn_local(async move {
            let table = match crate::usage::prices().await {
                Ok(table) => table,
                Err(reason) => {
                    if wanted() {
                        reading.set(Reading::Failed(reason));
                    }
                    return;
                }
            };
            let progress = move |done, of| {
                if wanted() {
                    let _ = reading.try_set(Reading::Going { done, of });
                }
            };
            let read = crate::usage::scan::read(table, days, progress, wanted).await;
            if !wanted() {
                return;
            }
            let _ = reading.try_set(match read {
                Ok(Some(scanned)) => Reading::Done(std::sync::Arc::new(scanned)),
                Ok(None) => return,
                Err(reason) => Reading::Failed(reason),
            });
        });
    });
    on_cleanup(move || latest.update_value(|n| *n += 1));

    let body = move || {
        match reading.get() {
        Reading::Going { done, of } => view! {
            <div class="usage-progress" id="usage-progress" role="status">
                <progress max=of.max(1).to_string() value=done.to_string()></progress>
                <span>{i18n.t_with(Key::UsageReading, &[("done", &done.to_string()), ("of", &of.to_string())])}</span>
            </div>
        }
        .into_any(),
        Reading::Failed(reason) => view! {
            <p class="field__error" role="alert" id="usage-failed">
                {i18n.t_with(Key::UsageFailed, &[("reason", &reason)])}
            </p>
        }
        .into_any(),
        Reading::Done(scanned) => view! { <Summary scanned /> }.into_any(),
    }
    };

    view! {
        <div class="settings-section usage-panel" id="usage-panel">
            <p class="field__hint">{tr(Key::UsageIntro)}</p>
            <Field
                id="usage-period"
                label=tr(Key::UsagePeriod)
                control=Control::Select
                value=period
                on_input=move |v: String| period.set(v)
            >
                {[("7", Key::UsagePeriod7), ("30", Key::UsagePeriod30), ("90", Key::UsagePeriod90), ("all", Key::UsagePeriodAll)]
                    .into_iter()
                    .map(|(value, key)| view! {
                        <option value=value selected=move || period.get() == value>{tr(key)}</option>
                    })
                    .collect_view()}
            </Field>
            {body}
            <super::prices::PriceTable />
        </div>
    }
}

/// A day as `2026-12-07`.
fn day_text(day: i64) -> String {
    let (year, month, date) = civil_from_days(day);
    format!("{year:04}-{month:02}-{date:02}")
}

/// A spend's cost, `—` when none of its replies is priced.
fn cost_text(spend: &Spend) -> String {
    if spend.unpriced == spend.replies && spend.replies > 0 {
        "—".into()
    } else {
        spend.cost.to_string()
    }
}

/// Tokens in and out, an estimate marked.
fn tokens_text(i18n: I18n, spend: &Spend) -> String {
    let mark = if spend.estimated_tokens { "~" } else { "" };
    i18n.t_with(
        Key::UsageTokensInOut,
        &[
            ("input", &format!("{mark}{}", compact_count(spend.input))),
            ("output", &format!("{mark}{}", compact_count(spend.output))),
        ],
    )
}

/// The sums of one reading.
#[component]
fn Summary(scanned: std::sync::Arc<Scanned>) -> impl IntoView {
    let i18n = use_i18n();
    let total = scanned.ledger.total();
    if total.replies == 0 {
        return view! { <p class="settings-section__text" id="usage-empty">{tr(Key::UsageEmpty)}</p> }
            .into_any();
    }
    let notes = [
        (total.unpriced > 0).then(|| {
            i18n.t_with(
                Key::UsageUnpriced,
                &[("count", &total.unpriced.to_string())],
            )
        }),
        (total.cost.estimated || total.estimated_tokens).then(|| i18n.t(Key::UsageEstimated)),
    ];
    view! {
        <dl class="usage-summary" id="usage-summary">
            <div><dt>{tr(Key::UsageCost)}</dt><dd id="usage-total-cost">{cost_text(&total)}</dd></div>
            <div><dt>{tr(Key::UsageTokens)}</dt><dd id="usage-total-tokens">{tokens_text(i18n, &total)}</dd></div>
            <div><dt>{tr(Key::UsageReplies)}</dt><dd id="usage-total-replies">{total.replies.to_string()}</dd></div>
        </dl>
        {notes.into_iter().flatten().map(|note| view! { <p class="field__hint usage-note">{note}</p> }).collect_view()}
        <Chart scanned=scanned.clone() />
        <ModelTable scanned=scanned.clone() />
        <ConversationTable scanned />
    }
    .into_any()
}

/// The days as bars: the cost where replies are priced, else the tokens. Drawn for the
/// eye only; the tables below say the same in words.
#[component]
fn Chart(scanned: std::sync::Arc<Scanned>) -> impl IntoView {
    let i18n = use_i18n();
    let days = scanned.ledger.days(scanned.today);
    let days = &days[days.len().saturating_sub(CHART_DAYS)..];
    let by_cost = days.iter().any(|(_, s)| s.cost.usd > 0.0);
    let measure = |s: &Spend| {
        if by_cost {
            s.cost.usd
        } else {
            s.tokens() as f64
        }
    };
    let highest = days.iter().map(|(_, s)| measure(s)).fold(0.0, f64::max);
    let bars = days
        .iter()
        .map(|(day, spend)| {
            let share = if highest > 0.0 { measure(spend) / highest * 100.0 } else { 0.0 };
            let title = format!(
                "{} · {} · {}",
                day_text(*day),
                cost_text(spend),
                tokens_text(i18n, spend)
            );
            view! {
                <li class="usage-chart__day" title=title data-day=day_text(*day) data-share=format!("{share:.1}")>
                    <span class="usage-chart__bar"></span>
                </li>
            }
        })
        .collect_view();
    let first = days.first().map(|(d, _)| day_text(*d)).unwrap_or_default();
    let last = days.last().map(|(d, _)| day_text(*d)).unwrap_or_default();
    // Each bar's height, set through the style object (the CSP refuses style attributes).
    let chart = NodeRef::<leptos::html::Ol>::new();
    Effect::new(move |_| {
        let Some(list) = chart.get() else { return };
        let bars = list.children();
        for index in 0..bars.length() {
            let Some(day) = bars.item(index) else {
                continue;
            };
            let share = day.get_attribute("data-share").unwrap_or_default();
            if let Some(bar) = day.first_element_child()
                && let Ok(bar) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(bar)
            {
                let _ = bar.style().set_property("--usage-share", &share);
            }
        }
    });
    view! {
        <h3 class="settings-subheading">{tr(Key::UsageByDay)}</h3>
        <ol class="usage-chart" id="usage-chart" aria-hidden="true" node_ref=chart>{bars}</ol>
        <div class="usage-chart__axis" aria-hidden="true"><span>{first}</span><span>{last}</span></div>
    }
}

/// A table of spends: a heading, then one row per entry (its first cell given, then
/// replies, tokens and cost).
fn spend_table(
    id: &'static str,
    heading: Key,
    first_column: Key,
    rows: Vec<(AnyView, Spend)>,
) -> impl IntoView {
    let i18n = use_i18n();
    let title_id = format!("{id}-title");
    let rows = rows
        .into_iter()
        .map(|(first, spend)| {
            view! {
                <tr>
                    <th scope="row">{first}</th>
                    <td>{spend.replies.to_string()}</td>
                    <td>{tokens_text(i18n, &spend)}</td>
                    <td>{cost_text(&spend)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3 class="settings-subheading" id=title_id.clone()>{tr(heading)}</h3>
        <div class="usage-table-wrap">
            <table class="usage-table" id=id aria-labelledby=title_id>
                <thead><tr>
                    <th scope="col">{tr(first_column)}</th>
                    <th scope="col">{tr(Key::UsageReplies)}</th>
                    <th scope="col">{tr(Key::UsageTokens)}</th>
                    <th scope="col">{tr(Key::UsageCost)}</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// Each model's spend.
#[component]
fn ModelTable(scanned: std::sync::Arc<Scanned>) -> impl IntoView {
    let i18n = use_i18n();
    let rows = scanned
        .ledger
        .models()
        .into_iter()
        .map(|(model, spend)| {
            let name = if model.is_empty() {
                i18n.t(Key::UsageUnknownModel)
            } else {
                model
            };
            (name.into_any(), spend)
        })
        .collect();
    spend_table("usage-models", Key::UsageByModel, Key::UsageColModel, rows)
}

/// The conversations that cost most, each to open.
#[component]
fn ConversationTable(scanned: std::sync::Arc<Scanned>) -> impl IntoView {
    let i18n = use_i18n();
    let chat = use_chat();
    let shell = use_shell();
    let rows = scanned
        .ledger
        .conversations(CONVERSATIONS_SHOWN)
        .into_iter()
        .map(|(id, spend)| {
            let title = scanned
                .titles
                .get(&id)
                .filter(|t| !t.is_empty())
                .cloned()
                .unwrap_or_else(|| i18n.t(Key::ConversationUntitled));
            let open = move |_| {
                chat.open.open(id.clone());
                shell.settings_open.set(false);
            };
            let button = view! {
                <button type="button" class="usage-open" on:click=open>{title}</button>
            };
            (button.into_any(), spend)
        })
        .collect();
    spend_table(
        "usage-conversations",
        Key::UsageByConversation,
        Key::UsageColConversation,
        rows,
    )
}
