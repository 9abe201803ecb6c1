//! The installed skills: the count of active ones against the bound, New skill and
//! Import, and one card per skill with its switch and actions.

use hearth_core::skill::library::{InstalledSkill, MAX_ACTIVE, Origin};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{Editing, category_key, error_text};
use crate::i18n::{Key, tr, use_i18n};
use crate::skills::use_skills;
use crate::ui::toast::{ToastKind, use_toasts};

/// The installed skills.
#[component]
pub(super) fn InstalledSection(editing: RwSignal<Option<Editing>>) -> impl IntoView {
    let skills = use_skills();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let installed = move || {
        skills
            .library()
            .with(|l| l.as_ref().map(|l| l.installed.clone()).unwrap_or_default())
    };
    let active_count = move || {
        skills
            .library()
            .with(|l| l.as_ref().map_or(0, |l| l.active.len()))
    };
    let import = move |event: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&event);
        let Some(file) = crate::browser::chosen_file(&input) else {
            return;
        };
        input.set_value("");
        spawn_local(async move {
            match skills.import(file).await {
                Ok(outcome) => {
                    let mut message =
                        i18n.t_with(Key::SkillsImported, &[("title", &outcome.title)]);
                    if !outcome.left_out.is_empty() {
                        let paths: Vec<&str> =
                            outcome.left_out.iter().map(|l| l.path.as_str()).collect();
                        message.push(' ');
                        message.push_str(
                            &i18n.t_with(Key::SkillsImportLeftOut, &[("files", &paths.join(", "))]),
                        );
                    }
                    toasts.show(ToastKind::Info, message);
                }
                Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
            }
        });
    };
    view! {
        <section class="data-block" aria-labelledby="skills-installed-title">
            <div class="skills-head">
                <h3 class="settings-subheading" id="skills-installed-title">{tr(Key::SkillsInstalled)}</h3>
                <span class="field__hint" id="skills-active-count">
                    {move || i18n.t_with(Key::SkillsActiveCount, &[
                        ("count", &active_count().to_string()),
                        ("max", &MAX_ACTIVE.to_string()),
                    ])}
                </span>
            </div>
            <div class="skills-actions">
                <button type="button" class="button button--secondary button--small" id="skills-new"
                    on:click=move |_| editing.set(Some(Editing::New))>
                    {tr(Key::SkillsNew)}
                </button>
                <label class="button button--secondary button--small" for="skills-import">
                    {tr(Key::SkillsImport)}
                </label>
                <input type="file" id="skills-import" class="visually-hidden"
                    accept=".md,.markdown,.zip,text/markdown,application/zip"
                    aria-describedby="skills-import-hint" on:change=import />
                <span class="field__hint" id="skills-import-hint">{tr(Key::SkillsImportHint)}</span>
            </div>
            {move || installed().is_empty().then(|| view! {
                <p class="field__hint" id="skills-installed-empty">{tr(Key::SkillsInstalledEmpty)}</p>
            })}
            <ul class="plugin-list" id="skills-installed">
                <For each=installed key=|s| (s.id().to_string(), s.updated_at.to_bits(), s.edited) let:skill>
                    <SkillCard skill editing />
                </For>
            </ul>
        </section>
    }
}

/// One installed skill.
#[component]
fn SkillCard(skill: InstalledSkill, editing: RwSignal<Option<Editing>>) -> impl IntoView {
    let skills = use_skills();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let id = skill.id().to_string();
    let title = skill.skill.meta.title.clone();
    let active = {
        let id = id.clone();
        move || {
            skills
                .library()
                .with(|l| l.as_ref().is_some_and(|l| l.is_active(&id)))
        }
    };
    let toggle = {
        let id = id.clone();
        move |event: leptos::ev::Event| {
            let on = event_target_checked(&event);
            let id = id.clone();
            // A refused switch (the active set is full) goes back to what is stored.
            let input: web_sys::HtmlInputElement = event_target(&event);
            input.set_checked(!on);
            reported(toasts, i18n, async move {
                skills
                    .change(move |l| l.set_active(&id, on))
                    .await
                    .map(|()| None)
            });
        }
    };
    let remove = {
        let (id, title) = (id.clone(), title.clone());
        move |_| {
            let (id, title) = (id.clone(), title.clone());
            reported(toasts, i18n, async move {
                skills.change(move |l| l.remove(&id)).await?;
                Ok(Some(i18n.t_with(Key::SkillsRemoved, &[("title", &title)])))
            });
        }
    };
    let reset = {
        let (id, locale) = (
            id.clone(),
            skill.locale.clone().unwrap_or_else(|| "en".into()),
        );
        move |_| {
            let (id, locale) = (id.clone(), locale.clone());
            reported(toasts, i18n, async move {
                skills.reset(&id, &locale).await?;
                Ok(Some(i18n.t(Key::SkillsSaved)))
            });
        }
    };
    let export = {
        let text = hearth_core::skill::skill_md::export(&skill.skill);
        let name = format!("{id}-SKILL.md");
        move |_| {
            let saved = crate::browser::download_bytes(&name, "text/markdown", text.as_bytes());
            if saved.is_err() {
                toasts.show(ToastKind::Error, i18n.t(Key::SkillsExportFailed));
            }
        }
    };
    let edit = {
        let id = id.clone();
        move |_| editing.set(Some(Editing::Skill(id.clone())))
    };
    let badge = match (skill.origin, skill.edited) {
        (Origin::BuiltIn, true) => Some(Key::SkillsBadgeEdited),
        (Origin::BuiltIn, false) => None,
        (Origin::Custom, _) => Some(Key::SkillsBadgeCustom),
        (Origin::Imported, _) => Some(Key::SkillsBadgeImported),
    };
    let meta = skill.skill.meta.clone();
    let label = |key: Key| format!("{}: {}", i18n.t(key), meta.title);
    view! {
        <li class="plugin-card skill-card" data-skill=id.clone()>
            <div class="plugin-card__head">
                <div class="plugin-card__main">
                    <span class="plugin-card__title">{meta.title.clone()}</span>
                    <span class="plugin-card__meta">
                        {tr(category_key(meta.category))}
                        {badge.map(|key| view! { <span class="risk skill-badge" data-skill-badge="">{tr(key)}</span> })}
                    </span>
                </div>
                <label class="switch">
                    <input type="checkbox" data-skill-active="" prop:checked=active on:change=toggle
                        aria-label=label(Key::SkillsActive) />
                    <span aria-hidden="true">{tr(Key::SkillsActive)}</span>
                </label>
            </div>
            {(!meta.description.is_empty()).then(|| view! {
                <p class="plugin-card__description">{meta.description.clone()}</p>
            })}
            <div class="skill-card__actions">
                <button type="button" class="button button--secondary button--small" data-skill-edit=""
                    aria-label=label(Key::ProviderEdit) on:click=edit>{tr(Key::ProviderEdit)}</button>
                <button type="button" class="button button--secondary button--small" data-skill-export=""
                    aria-label=label(Key::SkillsExport) on:click=export>{tr(Key::SkillsExport)}</button>
                {(skill.origin == Origin::BuiltIn && skill.edited).then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-skill-reset=""
                        aria-label=label(Key::SkillsReset) on:click=reset>{tr(Key::SkillsReset)}</button>
                })}
                <button type="button" class="button button--secondary button--small" data-skill-remove=""
                    aria-label=label(Key::PluginsUninstall) on:click=remove>{tr(Key::PluginsUninstall)}</button>
            </div>
        </li>
    }
}

/// Runs `work`, then says what came of it: its message, or its error.
fn reported(
    toasts: crate::ui::toast::Toasts,
    i18n: crate::i18n::I18n,
    work: impl std::future::Future<Output = Result<Option<String>, crate::skills::SkillsError>>
    + 'static,
) {
    spawn_local(async move {
        match work.await {
            Ok(Some(message)) => toasts.show(ToastKind::Info, message),
            Ok(None) => {}
            Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
        }
    });
}
