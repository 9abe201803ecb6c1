//! The app's keyboard shortcuts: which key press runs which action, and how each is
//! written for the user (⌘ on Apple keyboards, Ctrl elsewhere; both work everywhere).
//! One table: the page's listener and the shortcuts dialog both read it.

/// An action a shortcut runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    /// Start a new chat.
    NewChat,
    /// Open the search palette.
    Search,
    /// Put the cursor in the message box.
    FocusComposer,
    /// Stop the reply being written (from the message box).
    Stop,
    /// Show or hide the sidebar.
    ToggleSidebar,
    /// Show the shortcuts.
    ShowShortcuts,
}

/// A key press, as the browser reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Press<'a> {
    /// `KeyboardEvent.key`.
    pub key: &'a str,
    /// Ctrl was held.
    pub ctrl: bool,
    /// ⌘ (or the Windows key) was held.
    pub meta: bool,
    /// Shift was held.
    pub shift: bool,
    /// Alt (⌥) was held.
    pub alt: bool,
    /// The message box has the focus.
    pub in_composer: bool,
    /// An input method is composing (the press belongs to it).
    pub composing: bool,
}

impl Shortcut {
    /// Every shortcut, in the order the dialog lists them.
    pub const ALL: [Shortcut; 6] = [
        Shortcut::NewChat,
        Shortcut::Search,
        Shortcut::FocusComposer,
        Shortcut::Stop,
        Shortcut::ToggleSidebar,
        Shortcut::ShowShortcuts,
    ];

    /// Its keys as the user presses them, for an Apple keyboard (`apple`) or another.
    pub fn keys(self, apple: bool) -> Vec<&'static str> {
        let command = if apple { "⌘" } else { "Ctrl" };
        match self {
            Self::NewChat => vec![command, "Shift", "O"],
            Self::Search => vec![command, "K"],
            Self::FocusComposer => vec!["Shift", "Esc"],
            Self::Stop => vec!["Esc"],
            Self::ToggleSidebar => vec![command, "Shift", "S"],
            Self::ShowShortcuts => vec![command, "/"],
        }
    }
}

/// The shortcut `press` runs, if any. Ctrl and ⌘ both count as the command key; Alt
/// turns every shortcut off (it types characters on many layouts), and so does an input
/// method's composition.
pub fn matching(press: Press<'_>) -> Option<Shortcut> {
    if press.alt || press.composing {
        return None;
    }
    let command = press.ctrl || press.meta;
    let key = press.key.to_ascii_lowercase();
    match (command, press.shift, key.as_str()) {
        (true, true, "o") => Some(Shortcut::NewChat),
        (true, false, "k") => Some(Shortcut::Search),
        (true, true, "s") => Some(Shortcut::ToggleSidebar),
        (true, false, "/") => Some(Shortcut::ShowShortcuts),
        (false, true, "escape") => Some(Shortcut::FocusComposer),
        (false, false, "escape") if press.in_composer => Some(Shortcut::Stop),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(key: &str) -> Press<'_> {
        Press {
            key,
            ..Press::default()
        }
    }

    #[test]
    fn each_shortcut_answers_to_ctrl_and_to_command() {
        for (key, shift, expected) in [
            ("O", true, Shortcut::NewChat),
            ("k", false, Shortcut::Search),
            ("K", false, Shortcut::Search),
            ("S", true, Shortcut::ToggleSidebar),
            ("/", false, Shortcut::ShowShortcuts),
        ] {
            for (ctrl, meta) in [(true, false), (false, true)] {
                let pressed = Press {
                    ctrl,
                    meta,
                    shift,
                    ..press(key)
                };
                assert_eq!(matching(pressed), Some(expected), "{key} {ctrl} {meta}");
            }
        }
        let shift_escape = Press {
            shift: true,
            ..press("Escape")
        };
        assert_eq!(matching(shift_escape), Some(Shortcut::FocusComposer));
    }

    #[test]
    fn escape_stops_only_from_the_message_box_and_nothing_runs_without_its_keys() {
        assert_eq!(matching(press("Escape")), None);
        let in_composer = Press {
            in_composer: true,
            ..press("Escape")
        };
        assert_eq!(matching(in_composer), Some(Shortcut::Stop));
        // Plain letters, the wrong Shift, Alt (it types on many layouts) and an input
        // method's composition run nothing.
        assert_eq!(matching(press("k")), None);
        assert_eq!(
            matching(Press {
                ctrl: true,
                ..press("o")
            }),
            None
        );
        assert_eq!(
            matching(Press {
                ctrl: true,
                shift: true,
                ..press("k")
            }),
            None
        );
        assert_eq!(
            matching(Press {
                ctrl: true,
                alt: true,
                ..press("k")
            }),
            None
        );
        assert_eq!(
            matching(Press {
                composing: true,
                ..in_composer
            }),
            None
        );
    }

    #[test]
    fn every_shortcut_is_written_for_both_keyboards_and_matches_what_it_says() {
        for shortcut in Shortcut::ALL {
            for apple in [true, false] {
                let keys = shortcut.keys(apple);
                let pressed = Press {
                    key: match *keys.last().unwrap() {
                        "Esc" => "Escape",
                        other => other,
                    },
                    ctrl: keys.contains(&"Ctrl"),
                    meta: keys.contains(&"⌘"),
                    shift: keys.contains(&"Shift"),
                    in_composer: shortcut == Shortcut::Stop,
                    ..Press::default()
                };
                assert_eq!(matching(pressed), Some(shortcut), "{keys:?}");
            }
        }
    }
}
