//! Settings › Tools › the image generator's model: any listed model of an enabled
//! provider that speaks OpenAI's protocol with its own key (its Images API is called
//! from the browser), or none.

use hearth_core::preferences::ModelRef;
use hearth_core::provider::Protocol;
use leptos::prelude::*;

use super::save_prefs;
use crate::i18n::{Key, tr, use_i18n};
use crate::preferences::use_prefs;
use crate::ui::model_picker::{ModelGroup, ModelOption, ModelPicker};
use crate::ui::toast::use_toasts;

/// The picker of the image generator's model.
#[component]
pub(super) fn ImageModelField() -> impl IntoView {
    let providers = crate::providers::use_providers();
    let prefs = use_prefs();
    let toasts = use_toasts();
    let i18n = use_i18n();
    let groups = Memo::new(move |_| {
        let models = providers.models().get();
        providers.list.with(|list| {
            list.iter()
                .filter(|p| {
                    p.enabled
                        && p.server.is_none()
                        && matches!(
                            p.kind.protocol().0,
                            Protocol::OpenAiChat | Protocol::OpenAiResponses
                        )
                })
                .filter_map(|p| {
                    let listed = models.get(&p.id).filter(|m| !m.is_empty())?;
                    Some(ModelGroup {
                        provider_id: p.id.clone(),
                        provider_name: p.name.clone(),
                        models: listed
                            .iter()
                            .map(|m| ModelOption::from(m.id.clone()))
                            .collect(),
                    })
                })
                .collect::<Vec<_>>()
        })
    });
    let choose = move |model: Option<ModelRef>| {
        save_prefs(prefs, toasts, i18n, move |p| p.image_model = model);
    };
    view! {
        <ModelPicker
            id="image-model"
            label=tr(Key::ImageModel)
            groups=groups
            selected=move || prefs.value.with(|p| p.image_model.clone())
            on_change=choose
            none=tr(Key::ImageModelNone)
            hint=tr(Key::ImageModelHint)
        />
    }
}
