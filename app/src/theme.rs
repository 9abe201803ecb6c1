//! Light and dark themes. `System` (the default) follows `prefers-color-scheme` in CSS
//! alone; `Light` and `Dark` set `data-theme` on `<html>`, which `style/tokens.css` reads.
//! The choice lives in `localStorage` (`hearth.theme`), and `public/boot.js` applies it
//! before the first paint so a dark-theme user never sees a white flash while the app
//! loads.

use leptos::prelude::*;

use crate::browser;

const STORAGE_KEY: &str = "hearth.theme";

/// The user's theme choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ThemeChoice {
    /// Follow the operating system.
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    /// All choices, in menu order.
    pub const ALL: [ThemeChoice; 3] = [Self::System, Self::Light, Self::Dark];

    fn stored(self) -> Option<&'static str> {
        match self {
            Self::System => None,
            Self::Light => Some("light"),
            Self::Dark => Some("dark"),
        }
    }

    fn from_stored(value: Option<&str>) -> Self {
        match value {
            Some("light") => Self::Light,
            Some("dark") => Self::Dark,
            _ => Self::System,
        }
    }
}

/// The theme state, provided as context by the app root.
#[derive(Clone, Copy)]
pub struct Theme {
    /// The current choice.
    pub choice: RwSignal<ThemeChoice>,
}

impl Theme {
    /// Reads the stored choice and keeps `<html data-theme>` and storage in step with it.
    pub fn from_browser() -> Self {
        let stored = browser::local_storage_get(STORAGE_KEY);
        let choice = RwSignal::new(ThemeChoice::from_stored(stored.as_deref()));
        Effect::new(move |_| {
            let value = choice.get().stored();
            browser::set_root_attribute("data-theme", value);
            match value {
                Some(value) => browser::local_storage_set(STORAGE_KEY, value),
                None => browser::local_storage_remove(STORAGE_KEY),
            }
        });
        Self { choice }
    }

    /// Whether the page is dark right now (the choice, or the system's preference).
    pub fn is_dark(&self) -> bool {
        match self.choice.get() {
            ThemeChoice::Dark => true,
            ThemeChoice::Light => false,
            ThemeChoice::System => browser::system_prefers_dark(),
        }
    }
}

/// The app's [`Theme`].
pub fn use_theme() -> Theme {
    expect_context::<Theme>()
}
