//! The built-in catalogue of the user's language: where the list came from (fresh, a
//! saved copy, the English fallback, or the error with Try again), a filter by words and
//! by category, and each skill with Install (its text fetched then) or "Installed".

use hearth_core::skill::{Category, SkillMeta};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{category_key, error_text};
use crate::catalogue::CatalogStatus;
use crate::i18n::{Key, tr, use_i18n};
use crate::skills::catalog::{self, CatalogState};
use crate::skills::use_skills;
use crate::ui::toast::{ToastKind, use_toasts};

/// The catalogue.
#[component]
pub(super) fn CatalogSection() -> impl IntoView {
    let i18n = use_i18n();
    // Where the list on screen came from; this tab's alone (nothing else shows it).
    let (state, reload) =
        crate::catalogue::use_catalogue(|tag| async move { catalog::load(&tag).await });
    let words = RwSignal::new(String::new());
    let category = RwSignal::new(None::<Category>);
    let shown = move || {
        let words = words.get().to_lowercase();
        let category = category.get();
        state.with(|state| {
            state
                .shown()
                .map(|c| {
                    c.skills
                        .iter()
                        .filter(|s| category.is_none_or(|c| s.category == c))
                        .filter(|s| words.trim().is_empty() || matches(s, words.trim()))
                        .cloned()
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let locale_shown = move || match state.get() {
        CatalogState::Fallback { .. } => "en".to_string(),
        _ => i18n.locale().tag().to_string(),
    };
    let categories = Category::ALL
        .into_iter()
        .map(|c| view! { <option value=c.code()>{tr(category_key(c))}</option> })
        .collect_view();
    view! {
        <section class="data-block" aria-labelledby="skills-catalog-title">
            <h3 class="settings-subheading" id="skills-catalog-title">{tr(Key::SkillsCatalog)}</h3>
            <div class="skills-filter" role="search">
                <label class="visually-hidden" for="skills-filter">{tr(Key::SkillsFilter)}</label>
                <input id="skills-filter" class="input" type="search" autocomplete="off"
                    placeholder=tr(Key::SkillsFilter)
                    prop:value=move || words.get()
                    on:input=move |e| words.set(event_target_value(&e)) />
                <label class="visually-hidden" for="skills-category">{tr(Key::SkillsCategory)}</label>
                <select id="skills-category" class="input"
                    on:change=move |e| {
                        let code = event_target_value(&e);
                        category.set((!code.is_empty()).then(|| Category::from_code(&code)));
                    }>
                    <option value="">{tr(Key::SkillsCategoryAll)}</option>
                    {categories}
                </select>
            </div>
            <CatalogStatus state id="skills-catalog" failed=Key::SkillsCatalogFailed
                retry=reload />
            <ul class="plugin-list registry-list" id="skills-catalog">
                <For each=shown key=|s| s.id.clone() let:meta>
                    <CatalogRow meta locale=Signal::derive(locale_shown) />
                </For>
            </ul>
        </section>
    }
}

/// Whether `skill` matches the filter `words` (lower case) in its title, description,
/// tags or uses.
fn matches(skill: &SkillMeta, words: &str) -> bool {
    let haystack = format!(
        "{} {} {} {}",
        skill.title,
        skill.description,
        skill.tags.join(" "),
        skill.activation.use_when.join(" ")
    )
    .to_lowercase();
    words.split_whitespace().all(|word| haystack.contains(word))
}

/// One catalogue entry.
#[component]
fn CatalogRow(meta: SkillMeta, locale: Signal<String>) -> impl IntoView {
    let skills = use_skills();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let busy = RwSignal::new(false);
    let installed = {
        let id = meta.id.clone();
        move || {
            skills
                .library()
                .with(|l| l.as_ref().is_some_and(|l| l.get(&id).is_some()))
        }
    };
    let install = {
        let meta = meta.clone();
        move |_| {
            if busy.get_untracked() {
                return;
            }
            busy.set(true);
            let meta = meta.clone();
            let title = meta.title.clone();
            let tag = locale.get_untracked();
            spawn_local(async move {
                let outcome = skills.install(meta, &tag).await;
                busy.set(false);
                match outcome {
                    Ok(()) => toasts.show(
                        ToastKind::Info,
                        i18n.t_with(Key::SkillsInstalledToast, &[("title", &title)]),
                    ),
                    Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
                }
            });
        }
    };
    let use_when = meta.activation.use_when.first().cloned();
    let aria = format!("{}: {}", i18n.t(Key::SkillsInstall), meta.title);
    view! {
        <li class="registry-row" data-catalog-skill=meta.id.clone()>
            <div class="registry-row__main">
                <span class="plugin-card__title">{meta.title.clone()}</span>
                <span class="plugin-card__meta">{tr(category_key(meta.category))}</span>
                <p class="plugin-card__description">{meta.description.clone()}</p>
                {use_when.map(|u| view! {
                    <p class="field__hint">{move || i18n.t_with(Key::SkillsUseWhen, &[("text", &u)])}</p>
                })}
            </div>
            {move || if installed() {
                view! { <span class="field__hint" data-catalog-installed="">{tr(Key::SkillsInstalled)}</span> }.into_any()
            } else {
                view! {
                    <button type="button" class="button button--secondary button--small" data-skill-install=""
                        aria-label=aria.clone() aria-busy=move || busy.get().to_string()
                        disabled=move || busy.get() on:click=install.clone()>
                        {tr(Key::SkillsInstall)}
                    </button>
                }.into_any()
            }}
        </li>
    }
}
