//! Inline SVG icons (drawn for Hearth; stroke and size come from `.icon` in the CSS).
//! Icons are decorative: the control that holds one carries the accessible name.

use leptos::prelude::*;

/// The icons the shell uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Icon {
    Plus,
    Sliders,
    Sun,
    Moon,
    Monitor,
    ArrowUp,
    Menu,
    Close,
    Chat,
    Check,
    Image,
    Info,
    Alert,
    Stop,
    Volume,
    Mic,
    Copy,
    Edit,
    Refresh,
    Trash,
    ChevronLeft,
    ChevronRight,
    Pin,
    More,
    Search,
    Paperclip,
    File,
    CloudOff,
    Archive,
    Download,
    Book,
    Printer,
    Keyboard,
    ChevronDown,
    Folder,
    Briefcase,
    Code,
    Sparkles,
    Globe,
    Columns,
}

fn paths(icon: Icon) -> &'static [&'static str] {
    match icon {
        Icon::Plus => &["M12 5v14", "M5 12h14"],
        Icon::Sliders => &[
            "M4 7h9",
            "M17 7h3",
            "M4 17h3",
            "M11 17h9",
            "M15 5a2 2 0 1 1 0 4a2 2 0 1 1 0-4z",
            "M9 15a2 2 0 1 1 0 4a2 2 0 1 1 0-4z",
        ],
        Icon::Sun => &[
            "M12 8a4 4 0 1 1 0 8a4 4 0 1 1 0-8z",
            "M12 2v2",
            "M12 20v2",
            "M4.9 4.9l1.4 1.4",
            "M17.7 17.7l1.4 1.4",
            "M2 12h2",
            "M20 12h2",
            "M4.9 19.1l1.4-1.4",
            "M17.7 6.3l1.4-1.4",
        ],
        Icon::Moon => &["M20 14.5A8 8 0 1 1 9.5 4a6.5 6.5 0 0 0 10.5 10.5z"],
        Icon::Monitor => &[
            "M5 4h14a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z",
            "M8 20h8",
            "M12 16v4",
        ],
        Icon::ArrowUp => &["M12 19V5", "M5 12l7-7 7 7"],
        Icon::Menu => &["M4 6h16", "M4 12h16", "M4 18h16"],
        Icon::Close => &["M6 6l12 12", "M18 6L6 18"],
        Icon::Chat => &["M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"],
        Icon::Check => &["M5 12l5 5 9-11"],
        Icon::Image => &[
            "M5 4h14a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z",
            "M21 15l-5-5L5 20",
            "M9 8a1.5 1.5 0 1 1 0 3a1.5 1.5 0 1 1 0-3z",
        ],
        Icon::Info => &[
            "M12 3a9 9 0 1 1 0 18a9 9 0 1 1 0-18z",
            "M12 11v5",
            "M12 8h.01",
        ],
        Icon::Alert => &["M12 3l9.5 17h-19z", "M12 10v4", "M12 17h.01"],
        Icon::Stop => &["M7 7h10v10H7z"],
        Icon::Mic => &[
            "M9 5a3 3 0 0 1 6 0v6a3 3 0 0 1-6 0z",
            "M5 11a7 7 0 0 0 14 0",
            "M12 18v3",
        ],
        Icon::Volume => &[
            "M4 9h4l5-4v14l-5-4H4z",
            "M16.5 8.5a5 5 0 0 1 0 7",
            "M19 6a8.5 8.5 0 0 1 0 12",
        ],
        Icon::Copy => &["M9 9h11v11H9z", "M5 15H4V4h11v1"],
        Icon::Edit => &["M4 20h4L19 9l-4-4L4 16z", "M13.5 6.5l4 4"],
        Icon::Refresh => &["M20 11a8 8 0 1 0-2.3 5.7", "M20 4v7h-7"],
        Icon::Trash => &[
            "M4 7h16",
            "M10 11v6",
            "M14 11v6",
            "M6 7l1 13h10l1-13",
            "M9 7V4h6v3",
        ],
        Icon::ChevronLeft => &["M15 5l-7 7 7 7"],
        Icon::ChevronRight => &["M9 5l7 7-7 7"],
        Icon::Pin => &["M12 17v5", "M8 3h8l-1 7 3 4H6l3-4z"],
        Icon::More => &["M5 12h.01", "M12 12h.01", "M19 12h.01"],
        Icon::Search => &["M11 4a7 7 0 1 1 0 14a7 7 0 1 1 0-14z", "M20 20l-4-4"],
        Icon::Columns => &["M4 4h16v16H4z", "M12 4v16"],
        Icon::Globe => &[
            "M12 3a9 9 0 1 1 0 18a9 9 0 1 1 0-18z",
            "M3 12h18",
            "M12 3a14 14 0 0 1 0 18a14 14 0 0 1 0-18z",
        ],
        Icon::Paperclip => {
            &["M20 11.5l-8 8a5 5 0 0 1-7-7l8.5-8.5a3.5 3.5 0 0 1 5 5L10 17.5a2 2 0 0 1-3-3l7.5-7.5"]
        }
        Icon::File => &["M6 3h8l5 5v13H6z", "M14 3v5h5", "M9 13h7", "M9 17h7"],
        Icon::CloudOff => &[
            "M3 3l18 18",
            "M8.5 8.5A4.5 4.5 0 0 0 6.5 17H17",
            "M10.5 5.3A6 6 0 0 1 17.7 10a3.5 3.5 0 0 1 2.8 5.6",
        ],
        Icon::Archive => &["M3 4h18v4H3z", "M5 8v12h14V8", "M10 12h4"],
        Icon::Download => &["M12 4v11", "M7 10l5 5 5-5", "M5 20h14"],
        Icon::Printer => &["M7 8V3h10v5", "M7 17H4v-7h16v7h-3", "M7 14h10v7H7z"],
        Icon::Book => &["M4 5a2 2 0 0 1 2-2h14v16H6a2 2 0 0 0-2 2z", "M4 5v16"],
        Icon::Keyboard => &["M3 6h18v12H3z", "M7 10h.01M11 10h.01M15 10h.01M7 14h10"],
        Icon::ChevronDown => &["M6 9l6 6 6-6"],
        Icon::Folder => {
            &["M3 6a1 1 0 0 1 1-1h5l2 2h9a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z"]
        }
        Icon::Briefcase => &["M3 8h18v11H3z", "M8 8V5h8v3", "M3 13h18"],
        Icon::Code => &["M8 7l-5 5 5 5", "M16 7l5 5-5 5", "M14 4l-4 16"],
        Icon::Sparkles => &[
            "M10 4l1.8 4.7L16.5 10.5l-4.7 1.8L10 17l-1.8-4.7L3.5 10.5l4.7-1.8z",
            "M18 14l.9 2.1L21 17l-2.1.9L18 20l-.9-2.1L15 17l2.1-.9z",
        ],
    }
}

/// Renders `icon` as a decorative inline SVG.
pub fn icon(icon: Icon) -> impl IntoView {
    view! {
        <svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
            {paths(icon).iter().map(|d| view! { <path d=*d></path> }).collect_view()}
        </svg>
    }
}
