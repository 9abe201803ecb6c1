//! Shared UI primitives with the keyboard and focus behaviour users of assistive
//! technology rely on. Features build on these instead of re-implementing them.

pub mod dialog;
pub mod field;
pub mod icon;
pub mod lazy;
pub mod lazy_styles;
pub mod menu;
pub mod model_picker;
pub mod safe_image;
pub mod toast;
