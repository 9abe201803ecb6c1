//! The installed app around the page: the service worker (`public/sw.js`, registered in
//! [`worker`] once the first screen is up), a new version announced and taken on reload
//! but never during a reply this tab writes, whether the device is online, and what a
//! launch brought ([`launch`]: a shortcut of the manifest, something shared into Hearth,
//! an export file opened with it). [`banner`] shows the first two.

pub mod banner;
pub mod launch;
mod worker;

use leptos::prelude::*;

use crate::chat::Chat;

/// Where the new version stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewVersion {
    /// This tab runs the newest version the browser knows.
    Current,
    /// A newer version is installed; a reload takes it.
    Ready,
    /// The user asked for it while this tab writes a reply: taken when the reply ends.
    AfterReply,
    /// Being taken: the page reloads in a moment.
    Applying,
}

/// What another app shared into Hearth, for a new chat's composer.
#[derive(Clone, Debug)]
pub struct Shared {
    /// The title, text and link, joined as a message draft.
    pub text: String,
    /// The shared files, as if dropped on the composer.
    pub files: Vec<web_sys::File>,
    /// Shared files that could not be taken (unreadable, or past the most taken).
    pub lost: usize,
}

/// The installed app's state, provided as context.
#[derive(Clone, Copy)]
pub struct Pwa {
    /// The browser says the device is online.
    pub online: RwSignal<bool>,
    /// Whether a new version waits.
    pub update: RwSignal<NewVersion>,
    shared: RwSignal<Option<Shared>, LocalStorage>,
    focus_composer: RwSignal<bool>,
    opened_file: RwSignal<Option<web_sys::File>, LocalStorage>,
}

/// The installed app's state.
pub fn use_pwa() -> Pwa {
    expect_context::<Pwa>()
}

impl Pwa {
    /// Follows the browser's online state, and takes a version asked for during a reply
    /// once `chat` has none running. The service worker is registered by [`Pwa::start`].
    pub fn new(chat: Chat) -> Self {
        let pwa = Self {
            online: RwSignal::new(crate::browser::is_online()),
            update: RwSignal::new(NewVersion::Current),
            shared: RwSignal::new_local(None),
            focus_composer: RwSignal::new(false),
            opened_file: RwSignal::new_local(None),
        };
        let _ = window_event_listener(leptos::ev::online, move |_| pwa.online.set(true));
        let _ = window_event_listener(leptos::ev::offline, move |_| pwa.online.set(false));
        Effect::new(move |_| {
            if pwa.update.get() == NewVersion::AfterReply && !chat.runs.writes_any() {
                pwa.take_update();
            }
        });
        pwa
    }

    /// Registers the service worker (its code is a lazily loaded chunk), after the first
    /// screen, so that neither its code nor the files it caches compete with the start.
    pub fn start(self) {
        leptos::task::spawn_local(async move {
            crate::browser::sleep_ms(START_DELAY_MS).await;
            worker::register(self).await;
        });
    }

    /// The user asked for the new version: the page reloads into it now, or when this
    /// tab's reply ends (a reload would cut it).
    pub fn apply_update(&self, chat: Chat) {
        if untrack(|| chat.runs.writes_any()) {
            self.update.set(NewVersion::AfterReply);
        } else {
            self.take_update();
        }
    }

    fn take_update(&self) {
        self.update.set(NewVersion::Applying);
        leptos::task::spawn_local(worker::apply());
    }

    /// Puts `text` in the composer's draft as a share would (an MCP App's `ui/message`:
    /// the user sends it, or not).
    pub fn offer_to_composer(&self, text: String) {
        self.shared.set(Some(Shared {
            text,
            files: Vec::new(),
            lost: 0,
        }));
    }

    /// What was shared into Hearth, once (the composer takes it).
    pub fn take_shared(&self) -> Option<Shared> {
        // Tracked, so the composer hears of a share that arrives after it mounted.
        if self.shared.with(Option::is_none) {
            return None;
        }
        self.shared.try_update(Option::take).flatten()
    }

    /// Whether a launch asked for the composer's focus, once (tracked: the composer mounts
    /// only after the access check, later than the launch is read).
    pub fn take_focus_request(&self) -> bool {
        if !self.focus_composer.get() {
            return false;
        }
        self.focus_composer.set(false);
        true
    }

    /// The export file Hearth was opened with, once (the Data tab offers to import it).
    pub fn take_opened_file(&self) -> Option<web_sys::File> {
        if self.opened_file.with(Option::is_none) {
            return None;
        }
        self.opened_file.try_update(Option::take).flatten()
    }
}

/// How long after the first screen the service worker is registered, in ms.
const START_DELAY_MS: i32 = 1_500;
