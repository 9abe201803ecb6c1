//! The composer's "Compare models" button and its dialog (in the composer's lazily
//! loaded chunk, `super::search_switch::switch`): the user ticks up to three more models
//! that the next messages also go to (`crate::chat::ModelChoice::compare_with`); the
//! button shows how many answer, pressed while a comparison is on. Shown only when more
//! than one model is on offer. Its sentences are "later" ones.

use hearth_core::chat::compare::MAX_MODELS;
use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::dialog::Dialog;
use crate::ui::icon::{Icon, icon};

/// The button, and its dialog while open.
#[component]
pub fn ComparePicker() -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let open = RwSignal::new(false);
    // The dialog's styles (`panels.css`) are linked on the first click, not before.
    let styled = RwSignal::new(None::<Signal<bool>>);
    let shown = Signal::derive(move || styled.get().is_some_and(|s| s.get()));
    // The `<dialog>` is in the page only while open (and the frame it closes in, so it
    // gives focus back): a closed one would be the first `<dialog>` of every page.
    let mounted = RwSignal::new(false);
    Effect::new(move |_| {
        if !open.get() {
            request_animation_frame(move || {
                if open.try_get_untracked() == Some(false) {
                    let _ = mounted.try_set(false);
                }
            });
        }
    });
    let offered = chat.choice.offered();
    let many = Memo::new(move |_| {
        offered.with(|o| o.iter().map(|(_, _, ids)| ids.len()).sum::<usize>() > 1)
    });
    // Its English sentences come with the catalogue, fetched only once the button is to
    // be shown (never on a first screen with one model or none).
    let worded = crate::i18n::later_english_when(move || many.get());
    let also = Memo::new(move |_| chat.choice.also());
    let label = move || match also.with(Vec::len) {
        0 => i18n.t(Key::ComparePicker),
        n => i18n.t_with(Key::ComparePickerCount, &[("count", &(n + 1).to_string())]),
    };
    view! {
        <Show when=move || many.get() && worded.get()>
            <button
                type="button"
                id="composer-compare"
                class="icon-button composer__compare"
                class:composer__compare--on=move || !also.with(Vec::is_empty)
                aria-pressed=move || (!also.with(Vec::is_empty)).to_string()
                aria-haspopup="dialog"
                aria-label=label
                title=label
                on:click=move |_| {
                    if styled.get_untracked().is_none() {
                        styled.set(Some(crate::ui::lazy_styles::ready(
                            crate::ui::lazy_styles::Sheet::Panels,
                        )));
                    }
                    mounted.set(true);
                    open.set(true);
                }
            >
                {icon(Icon::Columns)}
                {move || {
                    let n = also.with(Vec::len);
                    (n > 0).then(|| view! {
                        <span class="composer__compare-count" aria-hidden="true">{n + 1}</span>
                    })
                }}
            </button>
        </Show>
        <Show when=move || mounted.get()>
            <Dialog open=open title=Signal::derive(move || i18n.t(Key::ComparePickerTitle)) class="dialog--narrow">
                <Show when=move || shown.get()>
                    <PickerBody open=open />
                </Show>
            </Dialog>
        </Show>
    }
}

/// The dialog's content: the chosen model, then every other model on offer to tick.
#[component]
fn PickerBody(open: RwSignal<bool>) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let chosen = chat.choice.get_untracked();
    let ticked = RwSignal::new(chat.choice.also_untracked());
    let room = MAX_MODELS - 1;
    let groups = chat.choice.offered().get_untracked();
    let chosen_name = chosen.as_ref().map(|c| c.model.clone()).unwrap_or_default();
    let toggle = move |model: ModelRef| {
        ticked.update(|ticked| match ticked.iter().position(|m| *m == model) {
            Some(at) => {
                ticked.remove(at);
            }
            None if ticked.len() < room => ticked.push(model),
            None => {}
        });
        chat.choice.compare_with(ticked.get_untracked());
    };
    let groups = groups
        .into_iter()
        .map(|(provider_id, provider_name, ids)| {
            let models = ids
                .into_iter()
                .map(|id| ModelRef {
                    provider_id: provider_id.clone(),
                    model: id,
                })
                .filter(|model| Some(model) != chosen.as_ref())
                .map(|model| {
                    let checked = {
                        let model = model.clone();
                        Memo::new(move |_| ticked.with(|t| t.contains(&model)))
                    };
                    let full = Signal::derive(move || ticked.with(Vec::len) >= room);
                    let name = model.model.clone();
                    view! {
                        <label class="switch compare-picker__model">
                            <input
                                type="checkbox"
                                data-model=name.clone()
                                prop:checked=move || checked.get()
                                disabled=move || full.get() && !checked.get()
                                on:change=move |_| toggle(model.clone())
                            />
                            <span>{name}</span>
                        </label>
                    }
                })
                .collect_view();
            view! {
                <fieldset class="compare-picker__group">
                    <legend>{provider_name}</legend>
                    {models}
                </fieldset>
            }
        })
        .collect_view();
    view! {
        <div class="compare-picker">
            <p class="compare-picker__intro">
                {i18n.t_with(Key::ComparePickerIntro, &[("count", &room.to_string())])}
            </p>
            <p class="compare-picker__chosen">
                {i18n.t_with(Key::ComparePickerChosen, &[("model", &chosen_name)])}
            </p>
            <div class="compare-picker__groups" role="group" aria-label=tr(Key::ComparePickerModels)>
                {groups}
            </div>
            <div class="dialog__actions">
                <button type="button" class="button button--secondary"
                    on:click=move |_| {
                        ticked.set(Vec::new());
                        chat.choice.compare_with(Vec::new());
                    }>
                    {tr(Key::ComparePickerClear)}
                </button>
                <button type="button" class="button button--primary" data-autofocus=""
                    on:click=move |_| open.set(false)>
                    {tr(Key::ComparePickerDone)}
                </button>
            </div>
        </div>
    }
}
