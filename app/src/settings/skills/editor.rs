//! The skill editor, above the lists: a new custom skill or an installed one (a built-in
//! edited here stays edited until restored). Title, description, category, when to use
//! it (a line each) and the instructions; Save runs the one normalisation in core, and a
//! refusal is shown under the form in the user's language.

use hearth_core::skill::normalise::MAX_CONTENT_CHARS;
use hearth_core::skill::{Activation, Category, SkillMeta, TextSkill};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{Editing, category_key, error_text};
use crate::i18n::{Key, tr, use_i18n};
use crate::skills::use_skills;
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};

/// The editor for `open`.
#[component]
pub(super) fn SkillEditor(open: Editing, editing: RwSignal<Option<Editing>>) -> impl IntoView {
    let skills = use_skills();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let existing = match &open {
        Editing::New => None,
        Editing::Skill(id) => skills
            .library()
            .with_untracked(|l| l.as_ref().and_then(|l| l.get(id).map(|s| s.skill.clone()))),
    };
    let id = match &open {
        Editing::New => None,
        Editing::Skill(id) => Some(id.clone()),
    };
    let start = existing.clone().unwrap_or_default();
    let title = RwSignal::new(start.meta.title.clone());
    let description = RwSignal::new(start.meta.description.clone());
    let category = RwSignal::new(if existing.is_some() {
        start.meta.category
    } else {
        Category::Writing
    });
    let use_when = RwSignal::new(start.meta.activation.use_when.join("\n"));
    let content = RwSignal::new(start.content.clone());
    let error = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);
    let heading = if id.is_some() {
        Key::SkillsEditorEdit
    } else {
        Key::SkillsNew
    };
    // Opening the editor takes the user to it.
    request_animation_frame(|| crate::browser::focus_by_id("skill-editor-title"));
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        let base = existing.clone().unwrap_or_default();
        let skill = TextSkill {
            meta: SkillMeta {
                id: base.meta.id.clone(),
                title: title.get_untracked(),
                description: description.get_untracked(),
                category: category.get_untracked(),
                tags: base.meta.tags.clone(),
                risk: base.meta.risk,
                activation: Activation {
                    use_when: use_when
                        .get_untracked()
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(str::to_string)
                        .collect(),
                    ..base.meta.activation.clone()
                },
            },
            content: content.get_untracked(),
        };
        let id = id.clone();
        saving.set(true);
        spawn_local(async move {
            let outcome = skills.save(id, skill).await;
            saving.set(false);
            match outcome {
                Ok(_) => {
                    error.set(None);
                    editing.set(None);
                    toasts.show(ToastKind::Info, i18n.t(Key::SkillsSaved));
                    crate::browser::focus_by_id("skills-new");
                }
                Err(reason) => {
                    error.set(Some(error_text(&reason, i18n)));
                    crate::browser::focus_by_id("skill-editor-error");
                }
            }
        });
    };
    let options = Category::ALL
        .into_iter()
        .map(|c| {
            view! {
                <option value=c.code() selected=move || category.get() == c>{tr(category_key(c))}</option>
            }
        })
        .collect_view();
    let count = move || content.with(|c| c.chars().count());
    view! {
        <form class="data-block skill-editor" id="skill-editor" on:submit=submit novalidate
            aria-labelledby="skill-editor-heading">
            <h3 class="settings-subheading" id="skill-editor-heading">{tr(heading)}</h3>
            <Field id="skill-editor-title" label=tr(Key::SkillsFieldTitle) value=title
                on_input=move |v| title.set(v) spellcheck=true />
            <Field id="skill-editor-description" label=tr(Key::SkillsFieldDescription)
                control=Control::Textarea(2) value=description
                on_input=move |v| description.set(v) spellcheck=true />
            <Field id="skill-editor-category" label=tr(Key::SkillsCategory) control=Control::Select
                value=Signal::derive(move || category.get().code().to_string())
                on_input=move |v: String| category.set(Category::from_code(&v))>
                {options}
            </Field>
            <Field id="skill-editor-use-when" label=tr(Key::SkillsFieldUseWhen)
                control=Control::Textarea(3) value=use_when hint=tr(Key::SkillsFieldUseWhenHint)
                on_input=move |v| use_when.set(v) spellcheck=true />
            <Field id="skill-editor-content" label=tr(Key::SkillsFieldInstructions)
                control=Control::Textarea(12) value=content hint=tr(Key::SkillsFieldInstructionsHint)
                on_input=move |v| content.set(v) spellcheck=true
                invalid=Signal::derive(move || count() > MAX_CONTENT_CHARS)
                described_by_extra="skill-editor-count"
                aside=move || view! {
                    <p class="field__hint field__count" id="skill-editor-count">
                        {move || i18n.t_with(Key::SystemPromptCount, &[
                            ("count", &count().to_string()),
                            ("max", &MAX_CONTENT_CHARS.to_string()),
                        ])}
                    </p>
                } />
            <p class="field__error" role="alert" id="skill-editor-error" tabindex="-1">{move || error.get()}</p>
            <div class="provider-form__actions">
                <button type="button" class="button button--secondary" id="skill-editor-cancel"
                    on:click=move |_| editing.set(None)>{tr(Key::ProviderCancel)}</button>
                <button type="submit" class="button button--primary" id="skill-editor-save"
                    aria-busy=move || saving.get().to_string() disabled=move || saving.get()>
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}
