//! CSS colours as a model writes them in an inline HTML block (`#16a34a`, `rgb(…)`,
//! `hsl(…)`, a few dozen names), read into sRGB, and the hue family each belongs to.
//! [`super::html_css`] turns them into theme tokens.

/// The named colours understood, with their sRGB values; any other name in a
/// colour-bearing property drops the declaration (it could not be mapped to a token).
const NAMED_COLOURS: &[(&str, [u8; 3])] = &[
    ("aqua", [0, 255, 255]),
    ("black", [0, 0, 0]),
    ("blue", [0, 0, 255]),
    ("brown", [165, 42, 42]),
    ("coral", [255, 127, 80]),
    ("crimson", [220, 20, 60]),
    ("cyan", [0, 255, 255]),
    ("darkblue", [0, 0, 139]),
    ("darkgray", [169, 169, 169]),
    ("darkgreen", [0, 100, 0]),
    ("darkgrey", [169, 169, 169]),
    ("darkorange", [255, 140, 0]),
    ("darkred", [139, 0, 0]),
    ("dimgray", [105, 105, 105]),
    ("dimgrey", [105, 105, 105]),
    ("fuchsia", [255, 0, 255]),
    ("gainsboro", [220, 220, 220]),
    ("gold", [255, 215, 0]),
    ("gray", [128, 128, 128]),
    ("green", [0, 128, 0]),
    ("grey", [128, 128, 128]),
    ("hotpink", [255, 105, 180]),
    ("indigo", [75, 0, 130]),
    ("lightblue", [173, 216, 230]),
    ("lightgray", [211, 211, 211]),
    ("lightgreen", [144, 238, 144]),
    ("lightgrey", [211, 211, 211]),
    ("lightyellow", [255, 255, 224]),
    ("lime", [0, 255, 0]),
    ("magenta", [255, 0, 255]),
    ("maroon", [128, 0, 0]),
    ("navy", [0, 0, 128]),
    ("olive", [128, 128, 0]),
    ("orange", [255, 165, 0]),
    ("pink", [255, 192, 203]),
    ("purple", [128, 0, 128]),
    ("red", [255, 0, 0]),
    ("royalblue", [65, 105, 225]),
    ("silver", [192, 192, 192]),
    ("skyblue", [135, 206, 235]),
    ("slategray", [112, 128, 144]),
    ("slategrey", [112, 128, 144]),
    ("steelblue", [70, 130, 180]),
    ("teal", [0, 128, 128]),
    ("tomato", [255, 99, 71]),
    ("violet", [238, 130, 238]),
    ("white", [255, 255, 255]),
    ("whitesmoke", [245, 245, 245]),
    ("yellow", [255, 255, 0]),
];

/// An sRGB colour with its alpha.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Colour {
    pub(super) rgb: [f64; 3],
    pub(super) alpha: f64,
}

fn hex_digit_pairs(hex: &str) -> Option<Vec<f64>> {
    let expanded: String = match hex.len() {
        3 | 4 => hex.chars().flat_map(|c| [c, c]).collect(),
        6 | 8 => hex.to_string(),
        _ => return None,
    };
    (0..expanded.len() / 2)
        .map(|i| {
            u8::from_str_radix(&expanded[2 * i..2 * i + 2], 16)
                .ok()
                .map(f64::from)
        })
        .collect()
}

/// One number of `rgb()` or `hsl()`: `12`, `50%`, `0.5`, `120deg`.
fn number(text: &str, percent_of: f64) -> Option<f64> {
    let text = text.trim();
    let value = if let Some(percent) = text.strip_suffix('%') {
        percent.parse::<f64>().ok()? / 100.0 * percent_of
    } else {
        text.trim_end_matches("deg").parse::<f64>().ok()?
    };
    value.is_finite().then_some(value)
}

fn arguments(inner: &str) -> Vec<&str> {
    inner
        .split([',', ' ', '/'])
        .filter(|part| !part.is_empty())
        .collect()
}

pub(super) fn parse_colour(word: &str) -> Option<Colour> {
    if let Some(hex) = word.strip_prefix('#') {
        let parts = hex_digit_pairs(hex)?;
        return Some(Colour {
            rgb: [parts[0], parts[1], parts[2]],
            alpha: parts.get(3).map_or(1.0, |a| a / 255.0),
        });
    }
    if let Some(&(_, rgb)) = NAMED_COLOURS.iter().find(|(name, _)| *name == word) {
        return Some(Colour {
            rgb: rgb.map(f64::from),
            alpha: 1.0,
        });
    }
    let (name, inner) = word.strip_suffix(')')?.split_once('(')?;
    let args = arguments(inner);
    if args.len() != 3 && args.len() != 4 {
        return None;
    }
    let alpha = match args.get(3) {
        Some(a) => number(a, 1.0)?.clamp(0.0, 1.0),
        None => 1.0,
    };
    let rgb = match name {
        "rgb" | "rgba" => [
            number(args[0], 255.0)?,
            number(args[1], 255.0)?,
            number(args[2], 255.0)?,
        ],
        "hsl" | "hsla" => hsl_to_rgb(
            number(args[0], 360.0)?,
            number(args[1], 1.0)?,
            number(args[2], 1.0)?,
        ),
        _ => return None,
    };
    Some(Colour {
        rgb: rgb.map(|c| c.clamp(0.0, 255.0)),
        alpha,
    })
}

fn hsl_to_rgb(hue: f64, saturation: f64, lightness: f64) -> [f64; 3] {
    let s = saturation.clamp(0.0, 1.0);
    let l = lightness.clamp(0.0, 1.0);
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let h = hue.rem_euclid(360.0) / 60.0;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    [r, g, b].map(|v| (v + m) * 255.0)
}

/// Hue (degrees), saturation and lightness (0–1) of an sRGB colour.
pub(super) fn to_hsl([r, g, b]: [f64; 3]) -> (f64, f64, f64) {
    let (r, g, b) = (r / 255.0, g / 255.0, b / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let l = (max + min) / 2.0;
    let d = max - min;
    if d < 1e-9 {
        return (0.0, 0.0, l);
    }
    let s = d / (1.0 - (2.0 * l - 1.0).abs());
    let h = if max == r {
        60.0 * ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    (h, s, l)
}

/// The colour family of a hue, or `neutral` for greys.
pub(super) fn family(rgb: [f64; 3]) -> &'static str {
    let (hue, saturation, lightness) = to_hsl(rgb);
    let chroma =
        rgb.iter().cloned().fold(0.0, f64::max) - rgb.iter().cloned().fold(255.0, f64::min);
    if saturation < 0.15 || chroma < 16.0 || !(0.06..=0.97).contains(&lightness) {
        return "neutral";
    }
    match hue {
        h if !(15.0..345.0).contains(&h) => "red",
        h if h < 40.0 => "orange",
        h if h < 65.0 => "yellow",
        h if h < 165.0 => "green",
        h if h < 195.0 => "teal",
        h if h < 255.0 => "blue",
        h if h < 295.0 => "purple",
        _ => "pink",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_sorted() {
        assert!(NAMED_COLOURS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn each_notation_reads_the_same_colour() {
        let green = [22.0, 163.0, 74.0];
        for written in ["#16a34a", "rgb(22, 163, 74)", "rgb(22 163 74 / 100%)"] {
            let colour = parse_colour(written).unwrap();
            assert_eq!(colour.rgb, green, "{written}");
            assert_eq!(colour.alpha, 1.0, "{written}");
        }
        assert_eq!(parse_colour("#0f08").unwrap().alpha, 136.0 / 255.0);
        let hsl = parse_colour("hsl(120 100% 25%)").unwrap().rgb;
        assert!(
            (hsl[1] - 127.5).abs() < 0.01 && hsl[0].abs() < 0.01,
            "{hsl:?}"
        );
        for broken in [
            "#12345",
            "rgb(1, 2)",
            "lightgoldenrodyellow",
            "url(x)",
            "rgb(a, b, c)",
        ] {
            assert!(parse_colour(broken).is_none(), "{broken}");
        }
    }

    #[test]
    fn families_follow_the_hue_and_greys_are_neutral() {
        for (rgb, expected) in [
            ([220.0, 38.0, 38.0], "red"),
            ([234.0, 88.0, 12.0], "orange"),
            ([250.0, 204.0, 21.0], "yellow"),
            ([22.0, 163.0, 74.0], "green"),
            ([13.0, 148.0, 136.0], "teal"),
            ([37.0, 99.0, 235.0], "blue"),
            ([147.0, 51.0, 234.0], "purple"),
            ([219.0, 39.0, 119.0], "pink"),
            ([120.0, 120.0, 120.0], "neutral"),
            ([255.0, 255.0, 255.0], "neutral"),
        ] {
            assert_eq!(family(rgb), expected, "{rgb:?}");
        }
    }
}
