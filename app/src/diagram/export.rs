//! A diagram saved as a file: its SVG as it was drawn, or a PNG of it made by the diagram
//! sandbox at twice its size (less for a large one, `hearth_core::diagram::png_scale`)
//! on the surface colour of the theme it was drawn for, so that light text drawn for the
//! dark theme stays readable outside the app. A failure is said in a toast.

use hearth_core::diagram as rules;

use super::Diagram;
use crate::browser;
use crate::i18n::{Key, message};
use crate::ui::toast::{ToastKind, Toasts};

/// A file format for a diagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The drawing as it is.
    Svg,
    /// A picture of it.
    Png,
}

/// Offers `diagram` as a download in `format`; a failure is said in `toasts`.
pub fn save(diagram: &Diagram, format: Format, toasts: Toasts) {
    let failed = move || toasts.show(ToastKind::Error, message(Key::DiagramSaveFailed, &[]));
    let Some(svg) = diagram.svg() else {
        failed();
        return;
    };
    match format {
        Format::Svg => {
            let name = format!("{}.svg", diagram.stem);
            if browser::download_bytes(&name, "image/svg+xml", svg.as_bytes()).is_err() {
                failed();
            }
        }
        Format::Png => {
            let Some((width, height)) = rules::svg_size(&svg) else {
                failed();
                return;
            };
            let name = format!("{}.png", diagram.stem);
            let scale = rules::png_scale(width, height);
            super::frame::png(svg, diagram.dark, scale, move |png| {
                if png
                    .and_then(|png| {
                        browser::download(&name, &png).map_err(|_| super::DrawError::Unavailable)
                    })
                    .is_err()
                {
                    failed();
                }
            });
        }
    }
}
