//! Word list numbering (DOCX `word/numbering.xml`): what each list level shows and the
//! counting of list paragraphs, so a numbered list keeps its numbers (`1.`, `a)`,
//! `1.2.`, `iv.`) instead of becoming bullets.
//!
//! A paragraph names a list instance (`numId`, a `w:num`) and a level (`ilvl`); the
//! instance names an abstract definition (`abstractNumId`) whose `w:lvl`s give each
//! level's format (`numFmt`), first number (`start`) and label (`lvlText`, with `%1`…`%9`
//! for the levels' current numbers); an instance may restart a level
//! (`lvlOverride/startOverride`). Counting is per instance: numbering a level counts it
//! up and restarts every deeper level.
//!
//! Labels become Markdown: a decimal level whose label is its own number and `.` or `)`
//! is an ordered item (`3. text`); a bullet, or a level without a number, is `- text`;
//! any other label is kept as written after a dash (`- a) text`, `- 1.2. text`), since
//! Markdown's ordered items are decimal only.

use std::collections::HashMap;

use hearth_core::filetype::FileKind;

use crate::error::ParseError;
use crate::xml::{Tag, Xml, attr, local};

const KIND: FileKind = FileKind::Docx;
/// Word's levels: `ilvl` 0 to 8.
pub(crate) const LEVELS: usize = 9;

/// How one level is numbered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Level {
    format: String,
    start: u32,
    text: String,
}

/// The definitions of `numbering.xml`.
#[derive(Debug, Default)]
pub(crate) struct Numbering {
    /// Abstract definitions by id: their levels by `ilvl`.
    abstracts: HashMap<String, Vec<Option<Level>>>,
    /// Instances by `numId`: their abstract definition and restarted levels.
    instances: HashMap<String, (String, Vec<(usize, u32)>)>,
    /// Counts per instance, `None` for a level not numbered since it last restarted.
    counts: HashMap<String, [Option<u32>; LEVELS]>,
}

/// What a list paragraph starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Marker {
    /// `- `.
    Bullet,
    /// `n. ` or `n) ` (a Markdown ordered item).
    Ordered(String),
    /// `- label `.
    Labelled(String),
}

impl Marker {
    /// The marker as written before the item's text (with its space).
    pub(crate) fn written(&self) -> String {
        match self {
            Self::Bullet => "- ".into(),
            Self::Ordered(number) => format!("{number} "),
            Self::Labelled(label) => format!("- {label} "),
        }
    }

    /// How far the item's text is indented (a nested item's marker goes there).
    pub(crate) fn width(&self) -> usize {
        match self {
            Self::Ordered(number) => number.chars().count() + 1,
            _ => 2,
        }
    }
}

impl Numbering {
    /// Reads `numbering.xml`.
    pub(crate) fn read(text: &str) -> Result<Self, ParseError> {
        let mut numbering = Self::default();
        let mut xml = Xml::new(text, KIND);
        let mut abstract_id: Option<String> = None;
        let mut num_id: Option<String> = None;
        let mut level: Option<(usize, Level)> = None;
        let mut override_level: Option<usize> = None;
        loop {
            match xml.next()? {
                Tag::Start(start) => match local(&start) {
                    "abstractNum" => abstract_id = attr(&start, "abstractNumId"),
                    "num" => {
                        num_id = attr(&start, "numId");
                        if let Some(id) = &num_id {
                            numbering
                                .instances
                                .insert(id.clone(), (String::new(), Vec::new()));
                        }
                    }
                    "abstractNumId" => {
                        if let (Some(id), Some(target)) = (&num_id, attr(&start, "val"))
                            && let Some(instance) = numbering.instances.get_mut(id)
                        {
                            instance.0 = target;
                        }
                    }
                    "lvl" if abstract_id.is_some() => {
                        let ilvl = level_of(&start);
                        level = ilvl.map(|i| {
                            (
                                i,
                                Level {
                                    format: "decimal".into(),
                                    start: 1,
                                    text: String::new(),
                                },
                            )
                        });
                    }
                    "lvlOverride" => override_level = level_of(&start),
                    "startOverride" => {
                        let value = number_of(&start);
                        if let (Some(id), Some(i), Some(value)) = (&num_id, override_level, value)
                            && let Some(instance) = numbering.instances.get_mut(id)
                        {
                            instance.1.push((i, value));
                        }
                    }
                    "numFmt" => {
                        if let (Some((_, l)), Some(format)) = (level.as_mut(), attr(&start, "val"))
                        {
                            l.format = format;
                        }
                    }
                    "start" => {
                        if let (Some((_, l)), Some(value)) = (level.as_mut(), number_of(&start)) {
                            l.start = value;
                        }
                    }
                    "lvlText" => {
                        if let (Some((_, l)), Some(text)) = (level.as_mut(), attr(&start, "val")) {
                            l.text = text;
                        }
                    }
                    _ => {}
                },
                Tag::End(name) => match name.as_str() {
                    "lvl" => {
                        if let (Some(id), Some((i, l))) = (&abstract_id, level.take()) {
                            let levels = numbering.abstracts.entry(id.clone()).or_default();
                            if levels.len() <= i {
                                levels.resize(i + 1, None);
                            }
                            levels[i] = Some(l);
                        }
                    }
                    "abstractNum" => abstract_id = None,
                    "num" => num_id = None,
                    "lvlOverride" => override_level = None,
                    _ => {}
                },
                Tag::Eof => return Ok(numbering),
                Tag::Text(_) => {}
            }
        }
    }

    /// Counts a list paragraph of instance `num_id` at `level` and says what it starts
    /// with (a bullet when the instance or its level is not defined).
    pub(crate) fn mark(&mut self, num_id: &str, level: usize) -> Marker {
        let level = level.min(LEVELS - 1);
        let Some((abstract_id, restarts)) = self.instances.get(num_id) else {
            return Marker::Bullet;
        };
        let Some(levels) = self.abstracts.get(abstract_id) else {
            return Marker::Bullet;
        };
        let Some(Some(this)) = levels.get(level) else {
            return Marker::Bullet;
        };
        let counts = self.counts.entry(num_id.to_string()).or_default();
        let first = |i: usize| {
            restarts
                .iter()
                .rev()
                .find(|(l, _)| *l == i)
                .map(|(_, v)| *v)
                .or_else(|| levels.get(i).and_then(|l| l.as_ref()).map(|l| l.start))
                .unwrap_or(1)
        };
        counts[level] = Some(counts[level].map_or_else(|| first(level), |n| n.saturating_add(1)));
        for deeper in counts.iter_mut().skip(level + 1) {
            *deeper = None;
        }
        if matches!(this.format.as_str(), "bullet" | "none") || this.text.is_empty() {
            return Marker::Bullet;
        }
        let own = format!("%{}", level + 1);
        if this.format == "decimal"
            && let Some(rest) = this.text.strip_prefix(&own)
            && matches!(rest, "." | ")")
        {
            let n = counts[level].unwrap_or(1);
            return Marker::Ordered(format!("{n}{rest}"));
        }
        let mut label = String::new();
        let mut chars = this.text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '%'
                && let Some(digit) = chars.peek().and_then(|d| d.to_digit(10))
                && (1..=LEVELS as u32).contains(&digit)
            {
                chars.next();
                let i = digit as usize - 1;
                let n = counts[i].unwrap_or_else(|| first(i));
                let format = levels
                    .get(i)
                    .and_then(|l| l.as_ref())
                    .map_or("decimal", |l| l.format.as_str());
                label.push_str(&formatted(n, format));
            } else {
                label.push(c);
            }
        }
        let label = label.trim().to_string();
        if label.is_empty() {
            Marker::Bullet
        } else {
            Marker::Labelled(label)
        }
    }
}

fn level_of(start: &quick_xml::events::BytesStart<'_>) -> Option<usize> {
    attr(start, "ilvl")
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|i| *i < LEVELS)
}

fn number_of(start: &quick_xml::events::BytesStart<'_>) -> Option<u32> {
    attr(start, "val").and_then(|v| v.trim().parse().ok())
}

/// `n` in Word's number format `format` (decimal for formats not written here).
fn formatted(n: u32, format: &str) -> String {
    match format {
        "lowerLetter" => letters(n).to_lowercase(),
        "upperLetter" => letters(n),
        "lowerRoman" => roman(n).to_lowercase(),
        "upperRoman" => roman(n),
        "decimalZero" if n < 10 => format!("0{n}"),
        _ => n.to_string(),
    }
}

/// Word's letters: A…Z, then AA…ZZ, AAA… (the letter repeated, not a base-26 number).
fn letters(n: u32) -> String {
    if n == 0 {
        return "0".into();
    }
    let letter = char::from(b'A' + ((n - 1) % 26) as u8);
    let times = ((n - 1) / 26 + 1).min(40) as usize;
    std::iter::repeat_n(letter, times).collect()
}

/// Roman numerals up to 3999; larger numbers as decimals.
fn roman(n: u32) -> String {
    if n == 0 || n > 3_999 {
        return n.to_string();
    }
    const NUMERALS: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut left = n;
    let mut out = String::new();
    for (value, numeral) in NUMERALS {
        while left >= value {
            out.push_str(numeral);
            left -= value;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(formatted(1, "lowerLetter"), "a");
        assert_eq!(formatted(26, "upperLetter"), "Z");
        assert_eq!(formatted(27, "lowerLetter"), "aa");
        assert_eq!(formatted(53, "upperLetter"), "AAA");
        assert_eq!(formatted(4, "lowerRoman"), "iv");
        assert_eq!(formatted(1994, "upperRoman"), "MCMXCIV");
        assert_eq!(formatted(4_000, "upperRoman"), "4000");
        assert_eq!(formatted(7, "decimalZero"), "07");
        assert_eq!(formatted(12, "decimalZero"), "12");
        assert_eq!(formatted(3, "chineseCounting"), "3");
    }

    const NUMBERING: &str = r#"<w:numbering xmlns:w="w">
      <w:abstractNum w:abstractNumId="0">
        <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
        <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%2)"/></w:lvl>
        <w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2.%3."/></w:lvl>
      </w:abstractNum>
      <w:abstractNum w:abstractNumId="1">
        <w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="&#61623;"/></w:lvl>
      </w:abstractNum>
      <w:abstractNum w:abstractNumId="2">
        <w:lvl w:ilvl="0"><w:start w:val="3"/><w:numFmt w:val="upperRoman"/><w:lvlText w:val="Article %1 -"/></w:lvl>
      </w:abstractNum>
      <w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
      <w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
      <w:num w:numId="3"><w:abstractNumId w:val="2"/></w:num>
      <w:num w:numId="4"><w:abstractNumId w:val="0"/>
        <w:lvlOverride w:ilvl="0"><w:startOverride w:val="7"/></w:lvlOverride></w:num>
    </w:numbering>"#;

    fn written(numbering: &mut Numbering, num_id: &str, level: usize) -> String {
        numbering.mark(num_id, level).written()
    }

    #[test]
    fn levels_count_and_deeper_levels_restart() {
        let mut n = Numbering::read(NUMBERING).unwrap();
        let seen: Vec<String> = [0, 1, 1, 2, 0, 1, 2]
            .iter()
            .map(|level| written(&mut n, "1", *level))
            .collect();
        // A label shows each level's number in that level's format (`b` for level 2).
        assert_eq!(
            seen,
            [
                "1. ",
                "- a) ",
                "- b) ",
                "- 1.b.1. ",
                "2. ",
                "- a) ",
                "- 2.a.1. "
            ]
        );
    }

    #[test]
    fn bullets_starts_labels_restarts_and_unknown_lists() {
        let mut n = Numbering::read(NUMBERING).unwrap();
        assert_eq!(n.mark("2", 0), Marker::Bullet);
        assert_eq!(written(&mut n, "3", 0), "- Article III - ");
        assert_eq!(written(&mut n, "3", 0), "- Article IV - ");
        // Instance 4 shares instance 1's definition but restarts at 7, counted apart.
        assert_eq!(written(&mut n, "4", 0), "7. ");
        assert_eq!(written(&mut n, "1", 0), "1. ");
        assert_eq!(written(&mut n, "4", 0), "8. ");
        // Undefined instances and levels are bullets.
        assert_eq!(n.mark("9", 0), Marker::Bullet);
        assert_eq!(n.mark("2", 5), Marker::Bullet);
        assert_eq!(n.mark("1", 40), Marker::Bullet);
    }

    #[test]
    fn widths_place_nested_items_under_their_text() {
        assert_eq!(Marker::Bullet.width(), 2);
        assert_eq!(Marker::Ordered("9.".into()).width(), 3);
        assert_eq!(Marker::Ordered("10)".into()).width(), 4);
        assert_eq!(Marker::Labelled("a)".into()).width(), 2);
    }
}
