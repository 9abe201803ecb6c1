//! A service's key in a settings form (web search, document parsing): typed here and
//! never shown back, the saved one said masked under the field, with Forget key beside
//! it while one is saved.

use leptos::ev::MouseEvent;
use leptos::prelude::*;

use crate::i18n::{Key, tr, use_i18n};
use crate::ui::field::{Control, Field};

/// The key's field (`id`) and its Forget key button (`forget_id`): `key` is what is
/// typed, `saved` the saved key masked (`None`: none saved).
#[component]
pub fn SavedKeyField(
    id: &'static str,
    forget_id: &'static str,
    key: RwSignal<String>,
    saved: RwSignal<Option<String>>,
    #[prop(into)] on_forget: Callback<MouseEvent>,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <Field
            id=id
            label=tr(Key::ProviderApiKey)
            control=Control::Password
            value=key
            on_input=move |v| key.set(v)
            placeholder=move || if saved.with(Option::is_some) { i18n.t(Key::ProviderApiKeyKeep) } else { String::new() }
            hint=move || match saved.get() {
                Some(masked) => i18n.t_with(Key::WebSearchKeySaved, &[("key", &masked)]),
                None => i18n.t(Key::ProviderNoKey),
            }
        />
        <Show when=move || saved.with(Option::is_some)>
            <button type="button" class="button button--secondary" id=forget_id on:click=move |event| on_forget.run(event)>
                {tr(Key::WebSearchForgetKey)}
            </button>
        </Show>
    }
}
