//! Settings › Skills: whether the model chooses among the active skills, the installed
//! skills (each with its switch, Edit, Export as `SKILL.md`, Restore for an edited
//! built-in, Remove), New skill and Import, and the built-in catalogue of the user's
//! language with a filter and Install. The catalogue says where its list came from
//! (`crate::skills::catalog::CatalogState`); a failed request is never an empty list.

mod catalog_view;
mod editor;
mod installed;

use hearth_core::skill::Category;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::skills::{SkillsError, use_skills};
use crate::ui::toast::{ToastKind, use_toasts};

/// What the editor is open for.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Editing {
    /// A new custom skill.
    New,
    /// The installed skill with this id.
    Skill(String),
}

/// The Skills tab.
#[component]
pub fn SkillsPanel() -> impl IntoView {
    let skills = use_skills();
    let i18n = use_i18n();
    let toasts = use_toasts();
    spawn_local(async move {
        if let Err(error) = skills.ensure_loaded().await {
            toasts.show(ToastKind::Error, error_text(&error, i18n));
        }
    });
    let editing = RwSignal::new(None::<Editing>);
    let auto = move || {
        skills
            .library()
            .with(|l| l.as_ref().is_some_and(|l| l.auto_select))
    };
    let toggle_auto = move |event: leptos::ev::Event| {
        let on = event_target_checked(&event);
        spawn_local(async move {
            if let Err(error) = skills
                .change(move |library| {
                    library.auto_select = on;
                    Ok(())
                })
                .await
            {
                toasts.show(ToastKind::Error, error_text(&error, i18n));
            }
        });
    };
    view! {
        <div class="settings-section skills-panel">
            <p class="settings-section__text">{tr(Key::SkillsIntro)}</p>
            <label class="switch">
                <input type="checkbox" id="skills-auto" prop:checked=auto on:change=toggle_auto
                    aria-describedby="skills-auto-hint" />
                <span>{tr(Key::SkillsAuto)}</span>
            </label>
            <p class="field__hint" id="skills-auto-hint">{tr(Key::SkillsAutoHint)}</p>
            {move || editing.get().map(|open| view! { <editor::SkillEditor open editing /> })}
            <installed::InstalledSection editing />
            <catalog_view::CatalogSection />
        </div>
    }
}

/// A category's label.
pub(super) fn category_key(category: Category) -> Key {
    match category {
        Category::Writing => Key::SkillsCategoryWriting,
        Category::Coding => Key::SkillsCategoryCoding,
        Category::Data => Key::SettingsTabData,
        Category::Language => Key::SettingsLanguage,
        Category::Learning => Key::SkillsCategoryLearning,
        Category::Planning => Key::SkillsCategoryPlanning,
        Category::Thinking => Key::SkillsCategoryThinking,
        Category::Other => Key::SkillsCategoryOther,
    }
}

/// Why a change of the skills did not happen, in the user's language.
pub(super) fn error_text(error: &SkillsError, i18n: I18n) -> String {
    use hearth_core::skill::library::{LibraryError, MAX_ACTIVE, MAX_CUSTOM};
    use hearth_core::skill::normalise::Refusal;
    use hearth_core::skill::skill_md::SkillMdError;
    let refusal = |refusal: Refusal| match refusal {
        Refusal::ScriptRequired => i18n.t(Key::SkillsRefusedScript),
        Refusal::ExternalToolRequired => i18n.t(Key::SkillsRefusedTools),
        Refusal::NetworkRequired => i18n.t(Key::SkillsRefusedNetwork),
        Refusal::FileAccessRequired => i18n.t(Key::SkillsRefusedFiles),
        Refusal::NotTextOnly => i18n.t(Key::SkillsRefusedNotText),
        Refusal::BadId | Refusal::DuplicateId => i18n.t(Key::SkillsRefusedId),
        Refusal::MissingTitle => i18n.t(Key::SkillsRefusedNoTitle),
        Refusal::MissingContent => i18n.t(Key::SkillsRefusedNoContent),
        Refusal::TooLong { field, max } => i18n.t_with(
            Key::SkillsRefusedTooLong,
            &[
                ("field", &i18n.t(field_key(field))),
                ("max", &max.to_string()),
            ],
        ),
    };
    match error {
        SkillsError::Library(LibraryError::Refused(r)) => refusal(*r),
        SkillsError::Library(LibraryError::TooManyCustom) => i18n.t_with(
            Key::SkillsTooManyCustom,
            &[("max", &MAX_CUSTOM.to_string())],
        ),
        SkillsError::Library(LibraryError::TooManyActive) => i18n.t_with(
            Key::SkillsTooManyActive,
            &[("max", &MAX_ACTIVE.to_string())],
        ),
        SkillsError::Library(LibraryError::TooManyInstalled) => i18n.t(Key::SkillsTooManyInstalled),
        SkillsError::Library(LibraryError::NotInstalled) => i18n.t(Key::SkillsNotInstalled),
        SkillsError::Library(LibraryError::AlreadyInstalled) => i18n.t(Key::SkillsAlreadyInstalled),
        SkillsError::Import(SkillMdError::NamesScript(path)) => {
            i18n.t_with(Key::SkillsRefusedNamesScript, &[("path", path)])
        }
        SkillsError::Import(SkillMdError::Refused(r)) => refusal(*r),
        SkillsError::Import(SkillMdError::NoSkillFile) => i18n.t(Key::SkillsImportNoSkillFile),
        SkillsError::Import(SkillMdError::NoFrontMatter) => i18n.t(Key::SkillsImportNoFrontMatter),
        SkillsError::Import(SkillMdError::TooLarge) => i18n.t(Key::SkillsImportTooLarge),
        SkillsError::Import(SkillMdError::Unreadable) => i18n.t(Key::SkillsImportUnreadable),
        SkillsError::Definition(reason) => i18n.t_with(
            Key::SkillsDefinitionFailed,
            &[("reason", &reason.to_string())],
        ),
        SkillsError::Storage(reason) => {
            i18n.t_with(Key::SkillsStorageFailed, &[("reason", reason)])
        }
        SkillsError::Unreadable(reason) => {
            i18n.t_with(Key::SkillsReadFailed, &[("reason", reason)])
        }
    }
}

fn field_key(field: hearth_core::skill::normalise::Field) -> Key {
    use hearth_core::skill::normalise::Field;
    match field {
        Field::Title => Key::SkillsFieldTitle,
        Field::Description => Key::SkillsFieldDescription,
        Field::Tags => Key::SkillsFieldTags,
        Field::Activation => Key::SkillsFieldUseWhen,
        Field::Content => Key::SkillsFieldInstructions,
    }
}
