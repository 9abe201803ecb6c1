//! Settings › Models › the details: every listed model with a one-line summary of what a
//! run of it may use (the listing's capabilities with the user's corrections), filtered
//! by name or provider, at most [`MAX_ROWS`] at once, each opening its [`ModelForm`].

use hearth_core::preferences::ModelRef;
use hearth_core::provider::request::ModelCapabilities;
use leptos::prelude::*;

use super::Group;
use super::editor::ModelForm;
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::preferences::use_prefs;
use crate::ui::field::{Control, Field};

/// The most model rows shown at once; a filter finds the others.
const MAX_ROWS: usize = 200;

/// `128000` and `131072` as `128K`, `1000000` and `1048576` as `1M`, others as they are.
fn short_tokens(tokens: u64) -> String {
    match tokens {
        0 => "0".into(),
        n if n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n % 1_048_576 == 0 => format!("{}M", n / 1_048_576),
        n if n % 1_000 == 0 => format!("{}K", n / 1_000),
        n if n % 1_024 == 0 => format!("{}K", n / 1_024),
        n => n.to_string(),
    }
}

/// A one-line summary of what a run of this model may use.
fn facts(i18n: I18n, caps: ModelCapabilities) -> String {
    let limit = |tokens: Option<u64>| {
        tokens
            .map(short_tokens)
            .unwrap_or_else(|| i18n.t(Key::ModelsUnknown))
    };
    let mut parts = vec![
        i18n.t_with(
            Key::ModelsFactContext,
            &[("tokens", &limit(caps.context_window))],
        ),
        i18n.t_with(
            Key::ModelsFactOutput,
            &[("tokens", &limit(caps.max_output_tokens))],
        ),
    ];
    for (on, key) in [
        (caps.vision, Key::ModelsVision),
        (caps.tools, Key::ModelsTools),
        (caps.reasoning, Key::ModelsReasoning),
    ] {
        if on {
            parts.push(i18n.t(key));
        }
    }
    parts.join(" · ")
}

/// Every listed model with the capabilities a run uses, filterable, each editable.
#[component]
pub(super) fn ModelDetails(groups: Memo<Vec<Group>>) -> impl IntoView {
    let prefs = use_prefs();
    let i18n = use_i18n();
    let filter = RwSignal::new(String::new());
    let editing = RwSignal::new(None::<ModelRef>);
    // (model, listed capabilities) of every model matching the filter.
    let rows = Memo::new(move |_| {
        let needle = filter.get().trim().to_lowercase();
        groups.with(|groups| {
            groups
                .iter()
                .flat_map(|g| {
                    g.models.iter().map(|info| {
                        (
                            ModelRef {
                                provider_id: g.provider_id.clone(),
                                model: info.id.clone(),
                            },
                            g.provider_name.clone(),
                            info.capabilities,
                        )
                    })
                })
                .filter(|(model, provider, _)| {
                    needle.is_empty()
                        || model.model.to_lowercase().contains(&needle)
                        || provider.to_lowercase().contains(&needle)
                })
                .collect::<Vec<_>>()
        })
    });
    let hidden = move || rows.with(|r| r.len().saturating_sub(MAX_ROWS));
    let row = move |(model, provider, listed): (ModelRef, String, ModelCapabilities)| {
        let this = model.clone();
        let is_editing = move || editing.with(|e| e.as_ref() == Some(&this));
        let edit_target = model.clone();
        let summary_model = model.clone();
        let overridden_model = model.clone();
        let label = i18n.t_with(Key::ModelsEditLabel, &[("model", &model.model)]);
        let expanded = {
            let is_editing = is_editing.clone();
            move || is_editing().to_string()
        };
        let name = model.model.clone();
        let data_model = model.model.clone();
        view! {
            <li class="model-row" data-model=data_model>
                <div class="model-row__head">
                    <div class="model-row__main">
                        <span class="model-row__name">{name}</span>
                        <span class="model-row__facts" data-testid="model-facts">
                            {move || {
                                let caps = prefs.value.with(|p| p.capabilities(&summary_model, listed));
                                facts(i18n, caps)
                            }}
                        </span>
                        <span class="model-row__provider">
                            {provider}
                            {move || {
                                let edited = prefs.value.with(|p| !p.overrides(&overridden_model).is_empty());
                                edited.then(|| format!(" · {}", i18n.t(Key::ModelsEdited)))
                            }}
                        </span>
                    </div>
                    <button
                        type="button"
                        class="button button--secondary button--small"
                        aria-label=label
                        aria-expanded=expanded
                        on:click=move |_| {
                            let target = edit_target.clone();
                            editing.update(|e| {
                                *e = if e.as_ref() == Some(&target) { None } else { Some(target) };
                            });
                        }
                    >
                        {tr(Key::ModelsEdit)}
                    </button>
                </div>
                <Show when=is_editing>
                    <ModelForm model=model.clone() listed=listed editing=editing />
                </Show>
            </li>
        }
    };
    view! {
        <section class="model-details" aria-labelledby="models-details-title">
            <h3 class="settings-subheading" id="models-details-title">{tr(Key::ModelsDetails)}</h3>
            <p class="settings-section__text">{tr(Key::ModelsDetailsHint)}</p>
            <Field
                id="models-filter"
                label=tr(Key::ModelsFilter)
                label_hidden=true
                control=Control::Search
                value=filter
                on_input=move |v| filter.set(v)
                placeholder=tr(Key::ModelsFilter)
            />
            <ul class="model-list">
                {move || rows.get().into_iter().take(MAX_ROWS).map(row).collect_view()}
            </ul>
            {move || {
                let count = hidden();
                (count > 0).then(|| view! {
                    <p class="field__hint">
                        {move || i18n.t_with(Key::ModelsMore, &[("count", &count.to_string())])}
                    </p>
                })
            }}
            {move || rows.with(Vec::is_empty).then(|| view! {
                <p class="field__hint">{tr(Key::ModelsNoMatch)}</p>
            })}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_read_short() {
        assert_eq!(short_tokens(128_000), "128K");
        assert_eq!(short_tokens(131_072), "128K");
        assert_eq!(short_tokens(1_048_576), "1M");
        assert_eq!(short_tokens(2_000_000), "2M");
        assert_eq!(short_tokens(1_500_000), "1500K");
        assert_eq!(short_tokens(4_096), "4K");
        assert_eq!(short_tokens(4_097), "4097");
        assert_eq!(short_tokens(500), "500");
    }
}
