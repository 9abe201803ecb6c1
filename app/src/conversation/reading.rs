//! A reply's own menu (Read, Read aloud, Save as Markdown, Save as PNG, Print or save as
//! PDF), the Stop reading button while it is read aloud (`crate::voice::player`), and
//! reading mode:
//! the reply's text and images alone, in a wide, calm column in a dialog (focus kept
//! inside, Escape closes, focus goes back to the menu). The dialog is made the first time
//! it is asked for, so a reply never read costs no nodes.

use hearth_core::chat::MessageRecord;
use leptos::prelude::*;

use super::markdown_actions::MarkdownActions;
use super::round_text::RoundText;
use crate::archive::markdown::Export;
use crate::chat::{LiveMessage, use_chat};
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::dialog::Dialog;
use crate::ui::icon::Icon;
use crate::ui::menu::{Menu, MenuItem};
use crate::ui::toast::use_toasts;

/// The reply's menu, and its reading dialog once asked for.
#[component]
pub fn ReplyMenu(live: LiveMessage) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let providers = crate::providers::use_providers();
    let reading = RwSignal::new(false);
    let made = RwSignal::new(false);
    let speaking = crate::voice::player::speaking();
    let aloud = move || speaking.with(|s| s.as_deref() == Some(live.id().as_str()));
    let save = move |_| {
        let record = live.snapshot();
        let title = chat.list.title(&record.conversation_id);
        let what = Export::Message(Box::new(record), title);
        crate::archive::markdown::offer(chat, what, i18n, toasts);
    };
    let items = vec![
        MenuItem {
            label: Signal::derive(move || i18n.t(Key::MessageRead)),
            icon: Icon::Book,
            checked: None,
            on_select: Callback::new(move |_| {
                made.set(true);
                reading.set(true);
            }),
        },
        MenuItem {
            label: Signal::derive(move || i18n.t(Key::MessageReadAloud)),
            icon: Icon::Volume,
            checked: None,
            on_select: Callback::new(move |_| {
                // The reply's words: code, images and link targets are not read.
                let text = hearth_core::voice::speakable::speakable(&live.content.get_untracked());
                crate::voice::player::read_aloud(live.id(), text, providers, i18n, toasts);
            }),
        },
        MenuItem {
            label: Signal::derive(move || i18n.t(Key::MessageSaveMarkdown)),
            icon: Icon::Download,
            checked: None,
            on_select: Callback::new(save),
        },
        MenuItem {
            label: Signal::derive(move || i18n.t(Key::MessageSavePng)),
            icon: Icon::Image,
            checked: None,
            on_select: Callback::new(move |_| {
                let title = live.record.with(|r| chat.list.title(&r.conversation_id));
                crate::picture::save_reply(live.id(), title, toasts, i18n);
            }),
        },
        MenuItem {
            label: Signal::derive(move || i18n.t(Key::MessagePrint)),
            icon: Icon::Printer,
            checked: None,
            on_select: Callback::new(move |_| super::print::print_reply(&live.id())),
        },
    ];
    view! {
        <Menu label=Signal::derive(move || i18n.t(Key::MessageMore)) button_icon=Icon::More items=items />
        {move || aloud().then(|| view! {
            <button type="button" class="button button--secondary button--small reading-aloud"
                data-reading-aloud="" on:click=move |_| crate::voice::player::stop()>
                {crate::ui::icon::icon(Icon::Stop)}
                <span>{tr(Key::MessageStopReading)}</span>
            </button>
        })}
        {move || made.get().then(|| view! {
            <Dialog open=reading title=Signal::derive(move || i18n.t(Key::ReadingTitle)) class="dialog--reading">
                <Reading live=live />
            </Dialog>
        })}
    }
}

/// The reply's text and images, every round in order; no tool calls, no reasoning.
#[component]
fn Reading(live: LiveMessage) -> impl IntoView {
    let toasts = use_toasts();
    let i18n = use_i18n();
    // Its code blocks' and diagrams' buttons work as in the message.
    let markdown_actions = MarkdownActions::new();
    let rounds = Memo::new(move |_| live.record.with(|r| r.tool_rounds.len()));
    let streaming = Signal::derive(move || {
        live.record
            .with(|r| r.status == hearth_core::chat::MessageStatus::Streaming)
    });
    view! {
        <article
            class="reading"
            aria-label=tr(Key::MessageAssistant)
            on:click=move |event| markdown_actions.on_click(event, toasts, i18n)
        >
            <For each=move || 0..rounds.get() key=|round| *round let:round>
                <RoundText
                    live=live
                    round=round
                    text=Signal::derive(move || round_text(&live, round))
                    streaming=false
                />
            </For>
            <RoundText live=live round=Signal::derive(move || rounds.get()) text=live.content streaming=streaming />
            {super::sources::list(live)}
        </article>
        {markdown_actions.dialogs()}
    }
}

fn round_text(live: &LiveMessage, round: usize) -> String {
    live.record.with(|r: &MessageRecord| {
        r.tool_rounds
            .get(round)
            .map(|r| r.text.clone())
            .unwrap_or_default()
    })
}
