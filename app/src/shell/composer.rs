//! The composer: a text area that grows with its content, Enter to send and Shift+Enter
//! for a new line. Enter while an input method is composing (Chinese, Japanese) confirms
//! the composition and never sends. The model picker (`ui::model_picker`) lists every
//! model of the enabled providers and starts on the default model; without one, sending explains what to do
//! and keeps the text. While a reply streams, Stop ends it and Send queues the message.
//! Files join the message by the attach button, a paste or a drop (`crate::attachments`);
//! a message waits until its files are read, and may be files alone. What another app
//! shares into Hearth (`crate::pwa`) arrives here the same way. The web search switch
//! beside the attach button is a lazily loaded chunk (`super::search_switch`), which also
//! holds the microphone (`super::dictation`). A message that starts
//! with `/`, or has an `@`, brings the command and mention menus and their form
//! ([`super::commands`], a lazily loaded chunk), which see every key first while shown.

use leptos::ev::{ClipboardEvent, DragEvent, KeyboardEvent, SubmitEvent};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use hearth_core::preferences::ModelRef;

use crate::attachments::{Draft, input_files};
use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::shell::COMPOSER_INPUT_ID;
use crate::shell::commands::Commands;
use crate::ui::icon::{Icon, icon};
use crate::ui::lazy::lazy_view;
use crate::ui::model_picker::{CompactModelPicker, ModelGroup, ModelOption};
use crate::ui::toast::{ToastKind, use_toasts};

/// How long a message sent while the models on offer are still being read waits for
/// them, in ms.
const MODELS_WAIT_MS: i32 = 5_000;

/// The message composer.
#[component]
pub fn Composer() -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let text = RwSignal::new(String::new());
    let draft = Draft::new(i18n, toasts);
    let is_empty = move || text.with(|t| t.trim().is_empty()) && !draft.has_files();
    let dragging = RwSignal::new(false);
    let commands = Commands {
        text,
        keys: StoredValue::new(None),
        filling: RwSignal::new(None),
        draft,
    };
    let wants_commands = Memo::new(move |_| {
        text.with(|t| t.starts_with('/') || t.contains('@'))
            || commands.filling.with(Option::is_some)
    });
    // The chips' code arrives with the first file; a memo, so that adding or reading a
    // file does not mount them again.
    let has_files = Memo::new(move |_| draft.has_files());

    let chat = use_chat();
    // The knowledge collections' chips, when this conversation uses any.
    let uses_collections = Memo::new(move |_| !super::collections::in_use(chat).is_empty());
    // The models on offer and the effective choice are the chat's memos.
    let options = chat.choice.offered();
    // A message whose first write failed comes back, unless the user typed on; its
    // files join the draft again either way.
    Effect::new(move |_| {
        if let Some(unsent) = chat.take_unsent() {
            if text.with_untracked(|t| t.trim().is_empty()) {
                text.set(unsent.text);
            }
            draft.restore(unsent.attachments);
        }
    });
    // What another app shared into Hearth joins the draft: text and files.
    let pwa = crate::pwa::use_pwa();
    Effect::new(move |_| {
        if let Some(shared) = pwa.take_shared() {
            if !shared.text.is_empty() {
                text.update(|t| {
                    if !t.trim().is_empty() {
                        t.push_str("\n\n");
                    }
                    t.push_str(&shared.text);
                });
            }
            if !shared.files.is_empty() {
                draft.add_all(shared.files);
            }
            crate::browser::focus_by_id(COMPOSER_INPUT_ID);
        }
    });
    // The "New chat" shortcut starts here.
    Effect::new(move |_| {
        if pwa.take_focus_request() {
            request_animation_frame(|| crate::browser::focus_by_id(COMPOSER_INPUT_ID));
        }
    });
    let streaming = move || chat.is_streaming();
    // A message sent while the models on offer are still being read (the moments after
    // the page opens) is sent once they are, or after `MODELS_WAIT_MS` whatever is known
    // by then (an edge that does not answer must not hold it forever).
    let waiting_for_models = RwSignal::new(false);
    let stop_waiting = StoredValue::new(false);
    let send = move || {
        if is_empty() {
            return;
        }
        if chat.models_unread() && !stop_waiting.get_value() {
            if !waiting_for_models.get_untracked() {
                waiting_for_models.set(true);
                crate::browser::spawn_scoped(async move {
                    crate::browser::sleep_ms(MODELS_WAIT_MS).await;
                    stop_waiting.try_set_value(true);
                    waiting_for_models.try_set(false);
                });
            }
            return;
        }
        if draft.is_busy() {
            toasts.show(ToastKind::Info, i18n.t(Key::AttachBusy));
            return;
        }
        // Checked before the files leave the draft: without a model they stay.
        if chat.choice.get_untracked().is_none() {
            toasts.show(ToastKind::Info, i18n.t(Key::ComposerNoProvider));
            return;
        }
        if chat.is_streaming_elsewhere() {
            chat.say_elsewhere();
            return;
        }
        if chat.send(text.get_untracked(), draft.take()) {
            text.set(String::new());
        } else {
            toasts.show(ToastKind::Info, i18n.t(Key::ComposerNoProvider));
        }
    };
    Effect::new(move |previous: Option<bool>| {
        let waiting = waiting_for_models.get();
        let unread = chat.models_unread();
        // The send reads signals of its own (the text, the files): untracked, so that
        // typing does not run this again.
        if waiting && !unread {
            waiting_for_models.set(false);
            untrack(send);
            // Handled: the change back to `false` sends nothing more.
            return false;
        }
        if previous == Some(true) && !waiting {
            // Given up waiting: sent with what is known (or told why not).
            untrack(send);
        }
        waiting
    });
    let groups = Signal::derive(move || {
        options
            .get()
            .into_iter()
            .map(|(provider_id, provider_name, ids)| ModelGroup {
                provider_id,
                provider_name,
                models: ids.into_iter().map(ModelOption::from).collect(),
            })
            .collect::<Vec<_>>()
    });
    let choose = Callback::new(move |choice: Option<ModelRef>| {
        if choice.is_some() {
            chat.choice.pick(choice);
        }
    });
    let on_keydown = move |event: KeyboardEvent| {
        if let Some(menu) = commands.keys.get_value()
            && menu.run(event.clone())
        {
            return;
        }
        // keyCode 229 is what some browsers report for keys an IME consumed.
        let composing = event.is_composing() || event.key_code() == 229;
        if event.key() == "Enter" && !event.shift_key() && !composing {
            event.prevent_default();
            send();
        }
    };
    let on_submit = move |event: SubmitEvent| {
        event.prevent_default();
        send();
    };
    // A temporary chat keeps nothing on the device, files included: they are refused,
    // and the user is told.
    let temporary = move || chat.temporary_open();
    let refused = move |transfer: Option<&web_sys::DataTransfer>| {
        let files = transfer.is_some_and(|t| t.files().is_some_and(|f| f.length() > 0));
        let refused = files && chat.temporary_open_untracked();
        if refused {
            toasts.show(ToastKind::Info, i18n.t(Key::TemporaryNoFiles));
        }
        refused
    };
    let on_paste = move |event: ClipboardEvent| {
        let transfer = event.clipboard_data();
        if refused(transfer.as_ref()) || draft.add_transfer(transfer) {
            event.prevent_default();
        }
    };
    let on_drop = move |event: DragEvent| {
        event.prevent_default();
        dragging.set(false);
        let transfer = event.data_transfer();
        if !refused(transfer.as_ref()) {
            draft.add_transfer(transfer);
        }
    };
    let on_dragover = move |event: DragEvent| {
        let has_files = event
            .data_transfer()
            .is_some_and(|t| t.types().includes(&"Files".into(), 0));
        if has_files {
            event.prevent_default();
            dragging.set(true);
        }
    };

    view! {
        <form
            class="composer"
            class:composer--dragging=move || dragging.get()
            on:submit=on_submit
            on:dragover=on_dragover
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop
        >
            {move || {
                dragging
                    .get()
                    .then(|| {
                        view! {
                            <div class="composer__drop" aria-hidden="true">
                                {tr(Key::ComposerDropHere)}
                            </div>
                        }
                    })
            }}
            {move || {
                has_files
                    .get()
                    .then(|| lazy_view(draft_chips(draft), "attachment-chips--loading"))
            }}
            {move || {
                uses_collections
                    .get()
                    .then(|| lazy_view(super::collections::chips(chat), "attachment-chips--loading"))
            }}
            {move || {
                wants_commands
                    .get()
                    .then(|| lazy_view(command_view(commands), "slash-menu--loading"))
            }}
            <label class="visually-hidden" for=COMPOSER_INPUT_ID>
                {tr(Key::ComposerLabel)}
            </label>
            <textarea
                id=COMPOSER_INPUT_ID
                class="composer__input"
                rows="1"
                placeholder=tr(Key::ComposerPlaceholder)
                aria-describedby="composer-hint"
                prop:value=move || text.get()
                on:input=move |event| text.set(event_target_value(&event))
                on:keydown=on_keydown
                on:paste=on_paste
            ></textarea>
            <div class="composer__bar">
                <input
                    id="composer-attach-input"
                    class="visually-hidden"
                    type="file"
                    multiple
                    tabindex="-1"
                    aria-hidden="true"
                    on:change=move |event| draft.add_all(input_files(&event))
                />
                <button
                    type="button"
                    id="composer-attach"
                    class="icon-button"
                    disabled=temporary
                    aria-label=move || if temporary() {
                        i18n.t(Key::TemporaryNoFiles)
                    } else {
                        i18n.t(Key::ComposerAttach)
                    }
                    title=move || if temporary() {
                        i18n.t(Key::TemporaryNoFiles)
                    } else {
                        i18n.t(Key::ComposerAttach)
                    }
                    on:click=move |_| {
                        if let Some(input) = document()
                            .get_element_by_id("composer-attach-input")
                            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                        {
                            input.click();
                        }
                    }
                >
                    {icon(Icon::Paperclip)}
                </button>
                {lazy_view(super::search_switch::switch(text), "composer__search--loading")}
                <Show when=move || !options.with(Vec::is_empty)>
                    <CompactModelPicker
                        id="composer-model"
                        label=tr(Key::ComposerModel)
                        groups=groups
                        selected=Signal::derive(move || chat.choice.get())
                        on_change=choose
                    />
                </Show>
                <span id="composer-hint" class="composer__hint">
                    {tr(Key::ComposerHint)}
                </span>
                <Show when=streaming>
                    <button
                        type="button"
                        class="icon-button composer__stop"
                        aria-label=tr(Key::ComposerStop)
                        title=tr(Key::ComposerStop)
                        on:click=move |_| chat.stop()
                    >
                        {icon(Icon::Stop)}
                    </button>
                </Show>
                <button
                    type="submit"
                    class="icon-button icon-button--primary"
                    aria-label=move || if streaming() { i18n.t(Key::ComposerQueue) } else { i18n.t(Key::ComposerSend) }
                    title=move || if streaming() { i18n.t(Key::ComposerQueue) } else { i18n.t(Key::ComposerSend) }
                    disabled=is_empty
                >
                    {icon(Icon::ArrowUp)}
                </button>
            </div>
        </form>
    }
}

/// The draft's chips, in their own lazily loaded chunk.
#[lazy]
fn draft_chips(draft: Draft) -> AnyView {
    view! { <crate::attachments::chips::DraftChips draft=draft /> }.into_any()
}

/// The command menu or template form, in its own lazily loaded chunk.
#[lazy]
fn command_view(commands: Commands) -> AnyView {
    super::commands::view(commands)
}
