//! Excel number formats, as far as text needs them: which cell styles show a number as
//! a date, a time or both ([`Shown`], from `xl/styles.xml`'s `cellXfs` and `numFmts`),
//! and a serial number written as ISO 8601 ([`Shown::write`]), so a spreadsheet's
//! `45292` reads as `2024-01-01`, whatever the workbook's locale showed.
//!
//! Built-in formats 14–22 and 45–47 are dates and times, and so are 27–36 and 50–58,
//! which ECMA-376 reserves for the East Asian date formats. A custom format is a date
//! when a section shows `y`, `d` or `m` beside a date part, and a time when it shows `h`,
//! `s` or `m` beside them (outside quotes, escapes and `[...]` colours or locales);
//! `[h]`, `[m]` and `[s]` are elapsed times (a duration, not a time of day). Both date
//! systems: 1900 (with Excel's 29 February 1900, serial 60) and 1904
//! (`workbookPr date1904`). A serial out of Excel's range (before 1900 or after
//! 9999-12-31) stays the number it is.

use hearth_core::calendar::{civil_from_days, days_from_civil};

/// How a cell style shows a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Shown {
    /// As the number (every other format).
    #[default]
    Number,
    /// A calendar date.
    Date,
    /// A time of day (`seconds`: shown with seconds).
    Time { seconds: bool },
    /// A date and a time of day.
    DateTime { seconds: bool },
    /// An elapsed time, hours past 24 kept (`[h]:mm:ss`).
    Duration,
}

/// The last serial Excel shows as a date: 9999-12-31 in the 1900 system.
const MAX_SERIAL: f64 = 2_958_465.0;
const SECONDS_A_DAY: f64 = 86_400.0;

impl Shown {
    /// How built-in format `id` shows numbers.
    pub(crate) fn of_builtin(id: u32) -> Self {
        match id {
            14..=17 | 27..=31 | 34..=36 | 50..=58 => Self::Date,
            18 | 20 | 32 => Self::Time { seconds: false },
            19 | 21 | 33 | 45 | 47 => Self::Time { seconds: true },
            22 => Self::DateTime { seconds: false },
            46 => Self::Duration,
            _ => Self::Number,
        }
    }

    /// How custom format `code` shows numbers (its first section, the one for positive
    /// numbers).
    pub(crate) fn of_code(code: &str) -> Self {
        let section = code.split(';').next().unwrap_or_default();
        if section.eq_ignore_ascii_case("general") {
            return Self::Number;
        }
        let elapsed = brackets(section).any(|inside| {
            !inside.is_empty()
                && inside
                    .chars()
                    .all(|c| matches!(c.to_ascii_lowercase(), 'h' | 'm' | 's'))
        });
        let shown = strip_literals(section).to_ascii_lowercase();
        let seconds = shown.contains('s');
        let time = seconds
            || shown.contains('h')
            || shown.contains("am/pm")
            || shown.contains("a/p")
            || elapsed;
        // `m` is minutes beside hours or seconds, months otherwise.
        let date = shown.contains(['y', 'd']) || (shown.contains('m') && !time);
        match (date, time) {
            _ if elapsed => Self::Duration,
            (true, true) => Self::DateTime { seconds },
            (true, false) => Self::Date,
            (false, true) => Self::Time { seconds },
            (false, false) => Self::Number,
        }
    }

    /// `value` (a cell's stored number) as this style shows it, or `None` when it is
    /// not a date or time (or not a number, or out of Excel's range).
    pub(crate) fn write(self, value: &str, date1904: bool) -> Option<String> {
        if self == Self::Number {
            return None;
        }
        let serial: f64 = value.trim().parse().ok()?;
        if !serial.is_finite() || !(0.0..=MAX_SERIAL).contains(&serial) {
            return None;
        }
        let total = (serial * SECONDS_A_DAY).round() as u64;
        let (days, second) = (total / 86_400, total % 86_400);
        let clock = |seconds: bool| {
            let (h, m, s) = (second / 3_600, second / 60 % 60, second % 60);
            if seconds {
                format!("{h:02}:{m:02}:{s:02}")
            } else {
                format!("{h:02}:{m:02}")
            }
        };
        Some(match self {
            Self::Number => return None,
            Self::Date => date_of(days, date1904)?,
            Self::Time { seconds } => clock(seconds),
            Self::DateTime { seconds } => {
                format!("{} {}", date_of(days, date1904)?, clock(seconds))
            }
            Self::Duration => {
                let hours = total / 3_600;
                format!("{hours}:{:02}:{:02}", total / 60 % 60, total % 60)
            }
        })
    }
}

/// `code` without its quoted text, escaped characters and `[...]` parts.
fn strip_literals(code: &str) -> String {
    let mut kept = String::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let _ = chars.by_ref().find(|&q| q == '"');
            }
            '[' => {
                let _ = chars.by_ref().find(|&q| q == ']');
            }
            // An escaped character, a padding's width, a repeated fill.
            '\\' | '_' | '*' => {
                chars.next();
            }
            other => kept.push(other),
        }
    }
    kept
}

/// What `code`'s `[...]` parts say (a colour, a locale, an elapsed unit).
fn brackets(code: &str) -> impl Iterator<Item = &str> {
    code.split('[')
        .skip(1)
        .filter_map(|part| part.split_once(']').map(|(inside, _)| inside))
}

/// Day `days` of a date system as `YYYY-MM-DD`; `None` for day 0 of the 1900 system
/// (Excel's "January 0").
fn date_of(days: u64, date1904: bool) -> Option<String> {
    let days = days as i64;
    let (y, m, d) = if date1904 {
        // Day 0 is 1904-01-01.
        civil_from_days(days + days_from_civil(1904, 1, 1))
    } else {
        match days {
            0 => return None,
            // Excel counts a 29 February 1900 that never was (Lotus 1-2-3's bug).
            60 => (1900, 2, 29),
            // Day 1 is 1900-01-01; after the false leap day every serial is one ahead.
            1..=59 => civil_from_days(days - 1 + days_from_civil(1900, 1, 1)),
            _ => civil_from_days(days - 2 + days_from_civil(1900, 1, 1)),
        }
    };
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(value: &str, how: Shown) -> Option<String> {
        how.write(value, false)
    }

    #[test]
    fn serials_of_the_1900_system_as_excel_shows_them() {
        for (serial, date) in [
            ("1", "1900-01-01"),
            ("59", "1900-02-28"),
            ("60", "1900-02-29"),
            ("61", "1900-03-01"),
            ("25569", "1970-01-01"),
            ("45292", "2024-01-01"),
            ("45351", "2024-02-29"),
            ("2958465", "9999-12-31"),
        ] {
            assert_eq!(
                shown(serial, Shown::Date).as_deref(),
                Some(date),
                "{serial}"
            );
        }
    }

    #[test]
    fn serials_of_the_1904_system() {
        assert_eq!(Shown::Date.write("0", true).as_deref(), Some("1904-01-01"));
        assert_eq!(
            Shown::Date.write("43830", true).as_deref(),
            Some("2024-01-01")
        );
    }

    #[test]
    fn times_round_to_the_second_and_carry_into_the_next_day() {
        assert_eq!(
            shown("45292.75", Shown::DateTime { seconds: false }).as_deref(),
            Some("2024-01-01 18:00")
        );
        assert_eq!(
            shown("0.5208333333", Shown::Time { seconds: true }).as_deref(),
            Some("12:30:00")
        );
        assert_eq!(
            shown("45292.9999999", Shown::DateTime { seconds: true }).as_deref(),
            Some("2024-01-02 00:00:00")
        );
        assert_eq!(shown("1.5", Shown::Duration).as_deref(), Some("36:00:00"));
    }

    #[test]
    fn what_is_not_a_date_stays_as_stored() {
        for value in ["-1", "2958466", "NaN", "inf", "abc", ""] {
            assert_eq!(shown(value, Shown::Date), None, "{value}");
        }
        assert_eq!(shown("0", Shown::Date), None);
        assert_eq!(shown("45292", Shown::Number), None);
    }

    #[test]
    fn builtin_formats() {
        for id in [14, 15, 16, 17, 27, 31, 36, 50, 58] {
            assert_eq!(Shown::of_builtin(id), Shown::Date, "{id}");
        }
        assert_eq!(Shown::of_builtin(22), Shown::DateTime { seconds: false });
        assert_eq!(Shown::of_builtin(21), Shown::Time { seconds: true });
        assert_eq!(Shown::of_builtin(46), Shown::Duration);
        for id in [0, 1, 2, 9, 10, 11, 37, 44, 49, 59] {
            assert_eq!(Shown::of_builtin(id), Shown::Number, "{id}");
        }
    }

    #[test]
    fn custom_formats() {
        for (code, how) in [
            ("yyyy-mm-dd", Shown::Date),
            ("d mmm yyyy", Shown::Date),
            ("mmm-yy", Shown::Date),
            ("mmmm", Shown::Date),
            (r#"[$-411]ggge"年"m"月"d"日""#, Shown::Date),
            ("yyyy\"年\"m\"月\"d\"日\";@", Shown::Date),
            ("[Red]dd/mm/yyyy", Shown::Date),
            ("h:mm AM/PM", Shown::Time { seconds: false }),
            ("hh:mm:ss", Shown::Time { seconds: true }),
            ("mm:ss", Shown::Time { seconds: true }),
            ("yyyy-mm-dd hh:mm", Shown::DateTime { seconds: false }),
            ("m/d/yy h:mm:ss", Shown::DateTime { seconds: true }),
            ("[h]:mm:ss", Shown::Duration),
            ("[mm]:ss", Shown::Duration),
            ("0.00", Shown::Number),
            ("#,##0", Shown::Number),
            ("0%", Shown::Number),
            ("\"days: \"0", Shown::Number),
            ("[Red]0.00;[Blue]-0.00", Shown::Number),
            ("0.0\\d", Shown::Number),
            ("@", Shown::Number),
            ("General", Shown::Number),
        ] {
            assert_eq!(Shown::of_code(code), how, "{code}");
        }
    }
}
