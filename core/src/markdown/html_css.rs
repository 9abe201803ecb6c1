//! The CSS an inline HTML block may keep, and the theme colours it is given.
//!
//! A model's HTML block may carry `style` attributes. [`sanitise`] keeps only the
//! declarations of an allow-list of layout, spacing, border and text properties whose
//! values use plain CSS words, numbers, lengths and a few functions: no `url()`,
//! `var()`, `expression()`, escapes, comments, quotes, `!important` or negative numbers
//! (so nothing can be positioned over the page, load anything or pull in the app's own
//! variables). Every colour is replaced by a theme token (`var(--hv-…)`, in
//! `style/tokens.css`) chosen from its hue, lightness and role (text, fill or line), so a
//! block stays readable in light and dark themes.
//!
//! The CSP forbids inline styles, so the page applies the result through the CSSOM.
//! Before it does, [`declarations`] parses it again, accepting token colours only, and
//! [`pair_text`] picks a text colour that keeps its contrast with the fill behind it.

use std::fmt::Write as _;

use super::css_colour::{Colour, family, parse_colour, to_hsl};

/// The attribute a sanitised block carries its declarations in (the CSP forbids `style`).
pub const STYLE_ATTRIBUTE: &str = "data-hb-style";

/// The longest `style` attribute read; a longer one is dropped whole.
pub const MAX_STYLE_BYTES: usize = 4096;

/// The longest value of one declaration.
const MAX_VALUE_BYTES: usize = 200;

/// The properties a block may set, sorted (binary search). Not here on purpose:
/// `position`, `inset` and its sides, `z-index`, `transform`, `float`, `font-family`,
/// `content`, `filter`, `animation`, `transition`, `cursor`, `pointer-events`,
/// `background-image`, `box-shadow`, `clip-path`, `mask`.
const PROPERTIES: &[&str] = &[
    "align-content",
    "align-items",
    "align-self",
    "aspect-ratio",
    "background",
    "background-color",
    "border",
    "border-bottom",
    "border-bottom-left-radius",
    "border-bottom-right-radius",
    "border-collapse",
    "border-color",
    "border-left",
    "border-radius",
    "border-right",
    "border-spacing",
    "border-style",
    "border-top",
    "border-top-left-radius",
    "border-top-right-radius",
    "border-width",
    "box-sizing",
    "color",
    "column-gap",
    "display",
    "flex",
    "flex-basis",
    "flex-direction",
    "flex-flow",
    "flex-grow",
    "flex-shrink",
    "flex-wrap",
    "font-size",
    "font-style",
    "font-variant",
    "font-weight",
    "gap",
    "grid-area",
    "grid-column",
    "grid-row",
    "grid-template-columns",
    "grid-template-rows",
    "height",
    "justify-content",
    "justify-items",
    "justify-self",
    "letter-spacing",
    "line-height",
    "list-style-position",
    "list-style-type",
    "margin",
    "margin-bottom",
    "margin-left",
    "margin-right",
    "margin-top",
    "max-height",
    "max-width",
    "min-height",
    "min-width",
    "opacity",
    "order",
    "overflow",
    "overflow-wrap",
    "overflow-x",
    "overflow-y",
    "padding",
    "padding-bottom",
    "padding-left",
    "padding-right",
    "padding-top",
    "place-items",
    "row-gap",
    "table-layout",
    "text-align",
    "text-decoration",
    "text-decoration-color",
    "text-decoration-line",
    "text-decoration-style",
    "text-indent",
    "text-transform",
    "vertical-align",
    "white-space",
    "width",
    "word-break",
];

/// The functions a value may call.
const FUNCTIONS: &[&str] = &[
    "calc",
    "clamp",
    "fit-content",
    "hsl",
    "hsla",
    "max",
    "min",
    "minmax",
    "repeat",
    "rgb",
    "rgba",
];

/// Words a colour-bearing property may hold besides colours.
const COLOUR_PROPERTY_WORDS: &[&str] = &[
    "currentcolor",
    "dashed",
    "dotted",
    "double",
    "groove",
    "hidden",
    "inherit",
    "initial",
    "inset",
    "line-through",
    "medium",
    "none",
    "outset",
    "overline",
    "ridge",
    "solid",
    "thick",
    "thin",
    "transparent",
    "underline",
    "unset",
    "wavy",
];

/// The prefix of every colour token this module writes.
const TOKEN_PREFIX: &str = "--hv-";

/// What a colour paints, which decides its token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Text,
    Fill,
    Line,
}

fn colour_role(property: &str) -> Option<Role> {
    match property {
        "color" => Some(Role::Text),
        "background" | "background-color" => Some(Role::Fill),
        "border"
        | "border-top"
        | "border-right"
        | "border-bottom"
        | "border-left"
        | "border-color"
        | "text-decoration"
        | "text-decoration-color" => Some(Role::Line),
        _ => None,
    }
}

/// What lies behind an element's text: the page, a soft tint or a strong fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backdrop {
    /// No fill of the block's own: the message's background.
    Page,
    /// A light tint (`--hv-*-fill`), read with the family's text colour.
    Soft,
    /// A strong fill (`--hv-*-strong`), read with light text.
    Strong,
}

impl Backdrop {
    /// The name written in `data-hb-backdrop`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Page => "page",
            Self::Soft => "soft",
            Self::Strong => "strong",
        }
    }

    /// Reads [`Backdrop::name`] back; anything else is the page.
    pub fn from_name(name: &str) -> Self {
        match name {
            "soft" => Self::Soft,
            "strong" => Self::Strong,
            _ => Self::Page,
        }
    }
}

/// The text colour for light text (on strong fills).
const INVERSE_TEXT: &str = "var(--hv-inverse-text)";
/// The body text colour.
const NEUTRAL_TEXT: &str = "var(--hv-neutral-text)";

fn is_sorted_member(list: &[&str], word: &str) -> bool {
    list.binary_search(&word).is_ok()
}

/// Splits a style attribute into `(property, value)` pairs, lower-cased and trimmed.
fn split(style: &str) -> impl Iterator<Item = (String, String)> + '_ {
    style.split(';').filter_map(|declaration| {
        let (property, value) = declaration.split_once(':')?;
        let property = property.trim().to_ascii_lowercase();
        let value = value.trim().to_ascii_lowercase();
        (!property.is_empty() && !value.is_empty()).then_some((property, value))
    })
}

/// Whether `value` holds only plain words, numbers and the allowed functions; with
/// `tokens`, also `var(--hv-…)` (the form [`sanitise`] writes).
fn value_is_plain(value: &str, tokens: bool) -> bool {
    if value.len() > MAX_VALUE_BYTES || value.contains("/*") || value.contains("*/") {
        return false;
    }
    let bytes = value.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    while i < bytes.len() {
        let byte = bytes[i];
        match byte {
            b'a'..=b'z' | b'-' if byte != b'-' || !starts_negative_number(bytes, i) => {
                let start = i;
                while i < bytes.len() && matches!(bytes[i], b'a'..=b'z' | b'0'..=b'9' | b'-') {
                    i += 1;
                }
                if bytes.get(i) == Some(&b'(') {
                    let name = &value[start..i];
                    if name == "var" {
                        let Some(end) = value[i..].find(')') else {
                            return false;
                        };
                        if !tokens || !is_token(&value[i + 1..i + end]) {
                            return false;
                        }
                        i += end + 1;
                        continue;
                    }
                    if !is_sorted_member(FUNCTIONS, name) {
                        return false;
                    }
                    depth += 1;
                    i += 1;
                }
                continue;
            }
            b'0'..=b'9' | b'.' => {
                let start = i;
                while i < bytes.len() && matches!(bytes[i], b'0'..=b'9' | b'.') {
                    i += 1;
                }
                // Five digits or more: nothing a message needs (`width: 100000px`).
                let integer = value[start..i].split('.').next().unwrap_or_default();
                if integer.len() > 4 {
                    return false;
                }
                continue;
            }
            b'#' => {
                i += 1;
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    i += 1;
                }
                if i - start > 8 {
                    return false;
                }
                continue;
            }
            b')' => {
                let Some(open) = depth.checked_sub(1) else {
                    return false;
                };
                depth = open;
            }
            b' ' | b'%' | b',' | b'/' | b'*' | b'+' => {}
            _ => return false,
        }
        i += 1;
    }
    depth == 0
}

/// A `-` that starts a negative number (`-4px`, `-.5em`), not a word (`flex-start`).
fn starts_negative_number(bytes: &[u8], at: usize) -> bool {
    let before = at.checked_sub(1).map(|b| bytes[b]);
    let after = bytes.get(at + 1).copied();
    matches!(before, None | Some(b' ' | b'(' | b',' | b'/' | b'*' | b'+'))
        && matches!(after, Some(b'0'..=b'9' | b'.'))
}

fn is_token(name: &str) -> bool {
    name.strip_prefix(TOKEN_PREFIX).is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| matches!(b, b'a'..=b'z' | b'-'))
    })
}

/// Splits a value at its top-level spaces (`1px solid rgb(1, 2, 3)` → three words).
fn words(value: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in value.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 => {
                if i > start {
                    out.push(&value[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < value.len() {
        out.push(&value[start..]);
    }
    out
}

/// The token for `colour` painting as `role`.
fn token(colour: Colour, role: Role) -> String {
    // A translucent fill is seen over the page: blend it with white to judge it.
    let seen = colour
        .rgb
        .map(|c| c * colour.alpha + 255.0 * (1.0 - colour.alpha));
    let family = family(seen);
    let (_, _, lightness) = to_hsl(seen);
    let name = match role {
        Role::Text if lightness >= 0.82 => "inverse-text".to_string(),
        Role::Text if family == "neutral" && lightness >= 0.35 => "muted-text".to_string(),
        Role::Text => format!("{family}-text"),
        Role::Fill if lightness >= 0.72 => format!("{family}-fill"),
        Role::Fill => format!("{family}-strong"),
        // Borders and underlines take the family's text colour: it stands out from the
        // message and from the family's tint in both themes.
        Role::Line if family == "neutral" => "muted-text".to_string(),
        Role::Line => format!("{family}-text"),
    };
    format!("var({TOKEN_PREFIX}{name})")
}

/// `value` of a colour-bearing property with its colours replaced by tokens; `None`
/// when a word is neither a known colour nor a known keyword, or `background` holds
/// anything but one colour.
fn map_colours(property: &str, value: &str, role: Role) -> Option<String> {
    let words = words(value);
    if property == "background" && words.len() != 1 {
        return None;
    }
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        if word
            .strip_prefix("var(")
            .and_then(|w| w.strip_suffix(')'))
            .is_some_and(is_token)
        {
            // A token this module wrote: sanitising again keeps it.
            out.push(word.to_string());
        } else if let Some(colour) = parse_colour(word) {
            out.push(if colour.alpha < 0.05 {
                "transparent".to_string()
            } else {
                token(colour, role)
            });
        } else if is_sorted_member(COLOUR_PROPERTY_WORDS, word)
            || (role == Role::Line && word.starts_with(|c: char| c.is_ascii_digit() || c == '.'))
        {
            out.push(word.to_string());
        } else {
            return None;
        }
    }
    Some(out.join(" "))
}

/// The declarations of a `style` attribute that a block may keep, colours replaced by
/// theme tokens, as `property:value;…`; `None` when none remain.
pub fn sanitise(style: &str) -> Option<String> {
    if style.len() > MAX_STYLE_BYTES {
        return None;
    }
    let mut out = String::new();
    for (property, value) in split(style) {
        let role = colour_role(&property);
        if !is_sorted_member(PROPERTIES, &property) || !value_is_plain(&value, role.is_some()) {
            continue;
        }
        let value = match role {
            Some(role) => match map_colours(&property, &value, role) {
                Some(mapped) => mapped,
                None => continue,
            },
            None => value,
        };
        // `background` holds one colour by now: say so.
        let property = if property == "background" {
            "background-color"
        } else {
            &property
        };
        if !out.is_empty() {
            out.push(';');
        }
        let _ = write!(out, "{property}:{value}");
    }
    (!out.is_empty()).then_some(out)
}

/// The declarations of a sanitised style (the `data-hb-style` the page receives),
/// checked again: allowed properties only, colours only as tokens. What the page
/// applies through the CSSOM.
pub fn declarations(style: &str) -> Vec<(String, String)> {
    if style.len() > MAX_STYLE_BYTES {
        return Vec::new();
    }
    split(style)
        .filter(|(property, value)| {
            is_sorted_member(PROPERTIES, property)
                && value_is_plain(value, colour_role(property).is_some())
                && (colour_role(property).is_none()
                    || words(value).iter().all(|word| {
                        word.starts_with("var(")
                            || is_sorted_member(COLOUR_PROPERTY_WORDS, word)
                            || word.starts_with(|c: char| c.is_ascii_digit() || c == '.')
                    }))
        })
        .collect()
}

/// The backdrop an element's own fill makes, if it has one.
pub fn backdrop(declarations: &[(String, String)]) -> Option<Backdrop> {
    let (_, fill) = declarations
        .iter()
        .find(|(property, _)| property == "background-color")?;
    if fill.ends_with("-strong)") {
        Some(Backdrop::Strong)
    } else if fill.ends_with("-fill)") {
        Some(Backdrop::Soft)
    } else {
        None
    }
}

/// The text colour an element gets over `backdrop`: light text on a strong fill, never
/// light text elsewhere; `None` keeps what it has (or inherits).
pub fn pair_text(own: Option<&str>, backdrop: Backdrop, fills_itself: bool) -> Option<&str> {
    match (backdrop, own) {
        (Backdrop::Strong, Some(colour)) if colour == INVERSE_TEXT => None,
        (Backdrop::Strong, Some(_)) => Some(INVERSE_TEXT),
        // Its own strong fill: the inherited text colour was chosen for another backdrop.
        (Backdrop::Strong, None) if fills_itself => Some(INVERSE_TEXT),
        (_, Some(colour)) if colour == INVERSE_TEXT => Some(NEUTRAL_TEXT),
        (Backdrop::Soft, None) if fills_itself => Some(NEUTRAL_TEXT),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_are_sorted() {
        for list in [PROPERTIES, FUNCTIONS, COLOUR_PROPERTY_WORDS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn layout_and_spacing_stay_and_positioning_goes() {
        assert_eq!(
            sanitise("display: flex; gap: 8px; POSITION: fixed; inset: 0; z-index: 9999; padding: 4px 8px").as_deref(),
            Some("display:flex;gap:8px;padding:4px 8px")
        );
        assert_eq!(
            sanitise("grid-template-columns: repeat(3, minmax(0, 1fr))").as_deref(),
            Some("grid-template-columns:repeat(3, minmax(0, 1fr))")
        );
        assert_eq!(sanitise("position:absolute;top:0"), None);
    }

    #[test]
    fn hostile_values_are_dropped() {
        for hostile in [
            "background: url(javascript:alert(1))",
            "background-color: url(https://evil.test/x.png)",
            "width: expression(alert(1))",
            "color: var(--color-accent)",
            "width: 10px !important",
            "margin-top: -500px",
            "margin: 0 0 -.5em",
            "width: 100000px",
            "width: calc(100% - 2px",
            "font-size: 12px /* */",
            "color: \\72 ed",
            "color: \"red\"",
            "width: attr(data-x)",
            "width: env(safe-area-inset-top)",
            "background: #fff url(x)",
            "border: 1px solid lightgoldenrodyellow",
            "color: red; } body { display: none",
        ] {
            let kept = sanitise(hostile).unwrap_or_default();
            for bad in [
                "url",
                "expression",
                "var(--color",
                "!",
                "-500",
                "-.5",
                "100000",
                "\\",
                "\"",
                "attr",
                "env",
                "lightgoldenrod",
                "}",
            ] {
                assert!(!kept.contains(bad), "{hostile:?} kept {kept:?}");
            }
        }
    }

    #[test]
    fn colours_become_tokens_by_hue_lightness_and_role() {
        assert_eq!(
            sanitise("color:#16a34a").as_deref(),
            Some("color:var(--hv-green-text)")
        );
        assert_eq!(
            sanitise("background:#dcfce7;color:#14532d").as_deref(),
            Some("background-color:var(--hv-green-fill);color:var(--hv-green-text)")
        );
        assert_eq!(
            sanitise("background-color:rgb(37, 99, 235);color:white").as_deref(),
            Some("background-color:var(--hv-blue-strong);color:var(--hv-inverse-text)")
        );
        assert_eq!(
            sanitise("border: 1px solid hsl(0 84% 60%)").as_deref(),
            Some("border:1px solid var(--hv-red-text)")
        );
        assert_eq!(
            sanitise("background: rgba(234, 88, 12, 0.1)").as_deref(),
            Some("background-color:var(--hv-orange-fill)")
        );
        assert_eq!(
            sanitise("color:#666").as_deref(),
            Some("color:var(--hv-muted-text)")
        );
        assert_eq!(
            sanitise("color:#111").as_deref(),
            Some("color:var(--hv-neutral-text)")
        );
        assert_eq!(
            sanitise("color:#7c3aed").as_deref(),
            Some("color:var(--hv-purple-text)")
        );
        assert_eq!(
            sanitise("color:#ff0").as_deref(),
            Some("color:var(--hv-yellow-text)")
        );
        assert_eq!(
            sanitise("background:transparent;border-color:currentColor").as_deref(),
            Some("background-color:transparent;border-color:currentcolor")
        );
        assert_eq!(sanitise("color: #12345"), None);
    }

    #[test]
    fn the_page_accepts_what_sanitise_writes_and_nothing_else() {
        let written = sanitise(
            "display:grid;background:#dbeafe;color:#1e3a8a;border:2px dashed #93c5fd;font-weight:600",
        )
        .unwrap();
        let parsed = declarations(&written);
        assert_eq!(parsed.len(), 5, "{parsed:?}");
        assert_eq!(backdrop(&parsed), Some(Backdrop::Soft));
        for forged in [
            "color:#ff0000",
            "color:var(--color-accent)",
            "position:fixed",
            "background-color:url(x)",
            "width:calc(var(--hv-x))",
        ] {
            assert!(declarations(forged).is_empty(), "{forged}");
        }
    }

    #[test]
    fn text_keeps_its_contrast_with_the_fill_behind_it() {
        let inverse = Some(INVERSE_TEXT);
        let green = Some("var(--hv-green-text)");
        assert_eq!(pair_text(green, Backdrop::Strong, false), inverse);
        assert_eq!(pair_text(inverse, Backdrop::Strong, false), None);
        assert_eq!(pair_text(None, Backdrop::Strong, true), inverse);
        assert_eq!(pair_text(None, Backdrop::Strong, false), None);
        assert_eq!(
            pair_text(inverse, Backdrop::Page, false),
            Some(NEUTRAL_TEXT)
        );
        assert_eq!(pair_text(inverse, Backdrop::Soft, true), Some(NEUTRAL_TEXT));
        assert_eq!(pair_text(None, Backdrop::Soft, true), Some(NEUTRAL_TEXT));
        assert_eq!(pair_text(green, Backdrop::Soft, false), None);
        assert_eq!(
            Backdrop::from_name(Backdrop::Strong.name()),
            Backdrop::Strong
        );
        assert_eq!(Backdrop::from_name("anything"), Backdrop::Page);
    }
}
