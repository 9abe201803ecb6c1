//! Settings › General: appearance (theme) and language.

use hearth_core::locale::Locale;
use leptos::prelude::*;

use crate::i18n::{Key, tr, use_i18n};
use crate::theme::{ThemeChoice, use_theme};
use crate::ui::field::{Control, Field};

/// The General tab.
#[component]
pub fn GeneralPanel() -> impl IntoView {
    let theme = use_theme();
    let i18n = use_i18n();
    let theme_options = ThemeChoice::ALL
        .into_iter()
        .map(|choice| {
            let key = match choice {
                ThemeChoice::System => Key::ThemeSystem,
                ThemeChoice::Light => Key::ThemeLight,
                ThemeChoice::Dark => Key::ThemeDark,
            };
            view! {
                <label class="segmented__option">
                    <input
                        type="radio"
                        name="theme"
                        class="segmented__input"
                        prop:checked=move || theme.choice.get() == choice
                        on:change=move |_| theme.choice.set(choice)
                    />
                    <span class="segmented__label">{tr(key)}</span>
                </label>
            }
        })
        .collect_view();
    let toasts = crate::ui::toast::use_toasts();
    let on_language = move |value: String| {
        i18n.choose(Locale::from_tag(&value), move |sentence| {
            toasts.show(crate::ui::toast::ToastKind::Error, sentence);
        })
    };
    let selected_tag = move || i18n.choice.get().map(|l| l.tag()).unwrap_or("auto");

    view! {
        <div class="settings-section">
            <fieldset class="field">
                <legend class="field__label">{tr(Key::SettingsAppearance)}</legend>
                <div class="segmented">{theme_options}</div>
            </fieldset>
            <Field
                id="settings-language"
                label=tr(Key::SettingsLanguage)
                control=Control::Select
                value=move || selected_tag().to_string()
                on_input=on_language
                hint=tr(Key::SettingsLanguageHint)
            >
                <option value="auto" selected=move || selected_tag() == "auto">
                    {tr(Key::SettingsLanguageAuto)}
                </option>
                {Locale::ALL
                    .into_iter()
                    .map(|locale| {
                        view! {
                            <option
                                value=locale.tag()
                                lang=locale.tag()
                                selected=move || selected_tag() == locale.tag()
                            >
                                {locale.native_name()}
                            </option>
                        }
                    })
                    .collect_view()}
            </Field>
        </div>
    }
}
