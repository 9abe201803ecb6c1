//! The price table under Settings › Usage: the user's own prices (added, edited,
//! removed; they win over Hearth's) and Hearth's defaults, each of which can be copied
//! into the form to be changed. Amounts are US dollars per million tokens (input, cached
//! input, cache writes, output, and the higher input and output prices of a long
//! prompt), per image a model sends and per search its provider runs.

use hearth_core::cost::price::DEFAULTS;
use hearth_core::cost::{LongContext, Price, PriceEntry};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};
use crate::usage::PriceChangeError;

/// The form's fields, as typed.
#[derive(Clone, Default)]
struct Form {
    model: String,
    input: String,
    cached_input: String,
    output: String,
    per_image: String,
    cache_write: String,
    per_search: String,
    long_above: String,
    long_input: String,
    long_output: String,
}

impl Form {
    fn of(model: &str, price: &Price) -> Self {
        let amount = |v: f64| v.to_string();
        Self {
            model: model.to_string(),
            input: amount(price.input),
            cached_input: price.cached_input.map(amount).unwrap_or_default(),
            output: amount(price.output),
            per_image: price.per_image.map(amount).unwrap_or_default(),
            cache_write: price.cache_write.map(amount).unwrap_or_default(),
            per_search: price.per_search.map(amount).unwrap_or_default(),
            long_above: price
                .long_context
                .map(|tier| tier.above.to_string())
                .unwrap_or_default(),
            long_input: price
                .long_context
                .map(|t| amount(t.input))
                .unwrap_or_default(),
            long_output: price
                .long_context
                .map(|t| amount(t.output))
                .unwrap_or_default(),
        }
    }

    /// The entry typed; an amount that is not a number is refused like a negative one.
    fn entry(&self) -> Result<PriceEntry, PriceChangeError> {
        use hearth_core::cost::price::PriceError;
        fn amount(text: &str) -> Result<Option<f64>, PriceChangeError> {
            let text = text.trim().replace(',', ".");
            if text.is_empty() {
                return Ok(None);
            }
            text.parse::<f64>()
                .map(Some)
                .map_err(|_| PriceChangeError::Refused(PriceError::Amount))
        }
        // A long prompt's prices: all three fields, or none.
        let threshold = PriceChangeError::Refused(PriceError::Threshold);
        let long = [&self.long_above, &self.long_input, &self.long_output];
        let long_context = if long.iter().all(|field| field.trim().is_empty()) {
            None
        } else {
            let above = self
                .long_above
                .trim()
                .replace([',', '_', ' '], "")
                .parse::<u64>()
                .map_err(|_| threshold.clone())?;
            Some(LongContext {
                above,
                input: amount(&self.long_input)?.ok_or_else(|| threshold.clone())?,
                output: amount(&self.long_output)?.ok_or_else(|| threshold.clone())?,
            })
        };
        Ok(PriceEntry {
            model: self.model.clone(),
            price: Price {
                input: amount(&self.input)?.unwrap_or(0.0),
                cached_input: amount(&self.cached_input)?,
                output: amount(&self.output)?.unwrap_or(0.0),
                per_image: amount(&self.per_image)?,
                cache_write: amount(&self.cache_write)?,
                per_search: amount(&self.per_search)?,
                long_context,
            },
        })
    }
}

fn amount_text(value: Option<f64>) -> String {
    value.map_or_else(|| "—".into(), |v| format!("${v}"))
}

/// A price's cache writes, search fee and long-prompt prices, in one cell.
fn other_text(price: &Price, i18n: crate::i18n::I18n) -> String {
    let dollars = |v: f64| format!("${v}");
    let mut parts = Vec::new();
    if let Some(rate) = price.cache_write {
        parts.push(i18n.t_with(Key::PriceOtherCacheWrite, &[("amount", &dollars(rate))]));
    }
    if let Some(fee) = price.per_search {
        parts.push(i18n.t_with(Key::PriceOtherSearch, &[("amount", &dollars(fee))]));
    }
    if let Some(tier) = price.long_context {
        parts.push(i18n.t_with(
            Key::PriceOtherLong,
            &[
                ("above", &tier.above.to_string()),
                ("input", &dollars(tier.input)),
                ("output", &dollars(tier.output)),
            ],
        ));
    }
    if parts.is_empty() {
        "—".into()
    } else {
        parts.join(" · ")
    }
}

/// The price table.
#[component]
pub fn PriceTable() -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let prices = RwSignal::from(crate::usage::value());
    let unreadable = RwSignal::new(None::<String>);
    spawn_local(async move {
        if let Err(reason) = crate::usage::prices().await {
            let _ = unreadable.try_set(Some(reason));
        }
    });
    let form = RwSignal::new(Form::default());
    let error = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);
    let edit = move |model: &str, price: &Price| {
        form.set(Form::of(model, price));
        error.set(None);
        crate::browser::focus_by_id("price-input");
    };

    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        let entry = match form.with_untracked(Form::entry) {
            Ok(entry) => entry,
            Err(refused) => {
                error.set(Some(refused.text(&i18n)));
                return;
            }
        };
        saving.set(true);
        spawn_local(async move {
            let outcome = crate::usage::set(entry).await;
            saving.set(false);
            match outcome {
                Ok(()) => {
                    form.set(Form::default());
                    error.set(None);
                    toasts.show(ToastKind::Info, i18n.t(Key::PriceSaved));
                }
                Err(refused) => {
                    error.set(Some(refused.text(&i18n)));
                    crate::browser::focus_by_id("price-model");
                }
            }
        });
    };
    let remove = move |model: String| {
        spawn_local(async move {
            match crate::usage::remove(model).await {
                Ok(()) => toasts.show(ToastKind::Info, i18n.t(Key::PriceRemoved)),
                Err(refused) => toasts.show(ToastKind::Error, refused.text(&i18n)),
            }
        });
    };
    let field = move |pick: fn(&Form) -> String| Signal::derive(move || form.with(pick));
    // Editing the form clears the last refusal.
    let set = move |put: fn(&mut Form, String)| {
        Callback::new(move |v: String| {
            form.update(|f| put(f, v));
            error.set(None);
        })
    };

    let mine = move || {
        prices
            .get()
            .map(|p| p.entries)
            .unwrap_or_default()
            .into_iter()
            .map(|entry| {
                let PriceEntry { model, price } = entry;
                let label = |key: Key| format!("{}: {}", i18n.t(key), model);
                let (edit_label, remove_label) = (label(Key::PriceEdit), label(Key::PriceRemove));
                let (for_edit, for_remove) = (model.clone(), model.clone());
                view! {
                    <tr data-price-model=model.clone()>
                        <th scope="row">{model.clone()}</th>
                        <td>{amount_text(Some(price.input))}</td>
                        <td>{amount_text(price.cached_input)}</td>
                        <td>{amount_text(Some(price.output))}</td>
                        <td>{amount_text(price.per_image)}</td>
                        <td>{other_text(&price, i18n)}</td>
                        <td class="usage-table__actions">
                            <button type="button" class="button button--secondary button--small"
                                aria-label=edit_label on:click=move |_| edit(&for_edit, &price)>
                                {tr(Key::PriceEdit)}
                            </button>
                            <button type="button" class="button button--secondary button--small"
                                aria-label=remove_label on:click=move |_| remove(for_remove.clone())>
                                {tr(Key::PriceRemove)}
                            </button>
                        </td>
                    </tr>
                }
            })
            .collect_view()
    };
    let has_mine = move || prices.with(|p| p.as_ref().is_some_and(|p| !p.entries.is_empty()));
    let defaults = DEFAULTS
        .iter()
        .map(|(model, price)| {
            let copy_label = format!("{}: {model}", i18n.t(Key::PriceEdit));
            view! {
                <tr>
                    <th scope="row">{*model}</th>
                    <td>{amount_text(Some(price.input))}</td>
                    <td>{amount_text(price.cached_input)}</td>
                    <td>{amount_text(Some(price.output))}</td>
                    <td>{other_text(price, i18n)}</td>
                    <td class="usage-table__actions">
                        <button type="button" class="button button--secondary button--small"
                            aria-label=copy_label on:click=move |_| edit(model, price)>
                            {tr(Key::PriceEdit)}
                        </button>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let head = move |with_image: bool| {
        view! {
            <thead><tr>
                <th scope="col">{tr(Key::PriceModel)}</th>
                <th scope="col">{tr(Key::PriceInput)}</th>
                <th scope="col">{tr(Key::PriceCachedInput)}</th>
                <th scope="col">{tr(Key::PriceOutput)}</th>
                {with_image.then(|| view! { <th scope="col">{tr(Key::PricePerImage)}</th> })}
                <th scope="col">{tr(Key::PriceOther)}</th>
                <th scope="col"><span class="visually-hidden">{tr(Key::PriceActions)}</span></th>
            </tr></thead>
        }
    };

    view! {
        <section class="usage-prices" id="prices" aria-labelledby="prices-title">
            <h3 class="settings-subheading" id="prices-title">{tr(Key::PricesTitle)}</h3>
            <p class="field__hint">{tr(Key::PricesIntro)}</p>
            {move || unreadable.get().map(|reason| view! {
                <p class="field__error" role="alert">{i18n.t_with(Key::PriceErrorStorage, &[("reason", &reason)])}</p>
            })}
            <form class="price-form" id="price-form" on:submit=submit novalidate>
                <Field id="price-model" label=tr(Key::PriceModel) value=field(|f| f.model.clone())
                    on_input=set(|f, v| f.model = v) hint=tr(Key::PriceModelHint)
                    error=Signal::derive(move || error.get()) />
                <div class="price-form__amounts">
                    <Field id="price-input" label=tr(Key::PriceInput) control=Control::Number
                        value=field(|f| f.input.clone()) on_input=set(|f, v| f.input = v) />
                    <Field id="price-cached-input" label=tr(Key::PriceCachedInput) control=Control::Number
                        value=field(|f| f.cached_input.clone()) on_input=set(|f, v| f.cached_input = v) />
                    <Field id="price-output" label=tr(Key::PriceOutput) control=Control::Number
                        value=field(|f| f.output.clone()) on_input=set(|f, v| f.output = v) />
                    <Field id="price-per-image" label=tr(Key::PricePerImage) control=Control::Number
                        value=field(|f| f.per_image.clone()) on_input=set(|f, v| f.per_image = v) />
                    <Field id="price-cache-write" label=tr(Key::PriceCacheWrite) control=Control::Number
                        value=field(|f| f.cache_write.clone()) on_input=set(|f, v| f.cache_write = v) />
                    <Field id="price-per-search" label=tr(Key::PricePerSearch) control=Control::Number
                        value=field(|f| f.per_search.clone()) on_input=set(|f, v| f.per_search = v)
                        hint=tr(Key::PricePerSearchHint) />
                </div>
                <fieldset class="price-form__long" aria-describedby="price-long-hint">
                    <legend>{tr(Key::PriceLongContext)}</legend>
                    <p class="field__hint" id="price-long-hint">{tr(Key::PriceLongContextHint)}</p>
                    <div class="price-form__amounts">
                        <Field id="price-long-above" label=tr(Key::PriceLongAbove) control=Control::Number
                            value=field(|f| f.long_above.clone()) on_input=set(|f, v| f.long_above = v) />
                        <Field id="price-long-input" label=tr(Key::PriceLongInput) control=Control::Number
                            value=field(|f| f.long_input.clone()) on_input=set(|f, v| f.long_input = v) />
                        <Field id="price-long-output" label=tr(Key::PriceLongOutput) control=Control::Number
                            value=field(|f| f.long_output.clone()) on_input=set(|f, v| f.long_output = v) />
                    </div>
                </fieldset>
                <div class="provider-form__actions">
                    <button type="submit" class="button button--primary" id="price-save"
                        aria-busy=move || saving.get().to_string() disabled=move || saving.get()>
                        {tr(Key::PriceSave)}
                    </button>
                </div>
            </form>
            <h4 class="usage-prices__heading" id="prices-mine-title">{tr(Key::PricesMine)}</h4>
            <Show when=has_mine fallback=|| view! { <p class="settings-section__text" id="prices-none">{tr(Key::PricesNone)}</p> }>
                <div class="usage-table-wrap">
                    <table class="usage-table" id="prices-mine" aria-labelledby="prices-mine-title">
                        {head(true)}
                        <tbody>{mine}</tbody>
                    </table>
                </div>
            </Show>
            <details class="usage-prices__defaults">
                <summary id="prices-defaults-title">{tr(Key::PricesDefaults)}</summary>
                <div class="usage-table-wrap">
                    <table class="usage-table" id="prices-defaults" aria-labelledby="prices-defaults-title">
                        {head(false)}
                        <tbody>{defaults}</tbody>
                    </table>
                </div>
            </details>
        </section>
    }
}
