//! Times as other apps write them, read as milliseconds since the epoch: numbers in
//! seconds, milliseconds or finer (told apart by their size), and RFC 3339 text.

use serde_json::Value;

/// A number below this is seconds (up to the year 5138); at or above, milliseconds.
const SECONDS_BELOW: f64 = 1e11;
/// A number at or above this is finer than milliseconds (microseconds, nanoseconds).
const FINER_FROM: f64 = 1e14;

/// `value` as milliseconds since the epoch, or `None` when it is no time.
pub fn ms(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Number(n) => number(n.as_f64()?),
        Value::String(s) => s
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(number)
            .or_else(|| rfc3339(s)),
        _ => None,
    }
}

fn number(mut n: f64) -> Option<f64> {
    if !n.is_finite() || n <= 0.0 {
        return None;
    }
    if n < SECONDS_BELOW {
        return Some(n * 1000.0);
    }
    while n >= FINER_FROM {
        n /= 1000.0;
    }
    Some(n)
}

/// `2024-05-01T12:34:56.789Z` (or with an offset, a space for the `T`, no fraction, or
/// no zone, read as UTC) as milliseconds since the epoch.
pub fn rfc3339(text: &str) -> Option<f64> {
    let text = text.trim();
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    if bytes.len() < 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut seconds = crate::calendar::days_from_civil(year, month, day) * 86_400;
    let mut millis = 0.0;
    let mut rest = &text[10..];
    if let Some(time) = rest.strip_prefix(['T', 't', ' ']) {
        let tb = time.as_bytes();
        if tb.len() < 8 || tb[2] != b':' || tb[5] != b':' {
            return None;
        }
        let field = |r: std::ops::Range<usize>| -> Option<i64> {
            let part = time.get(r)?;
            part.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| part.parse().ok())
                .flatten()
        };
        let (h, m, s) = (field(0..2)?, field(3..5)?, field(6..8)?);
        if h > 23 || m > 59 || s > 60 {
            return None;
        }
        seconds += h * 3600 + m * 60 + s;
        rest = &time[8..];
        if let Some(fraction) = rest.strip_prefix('.') {
            let len = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if len == 0 {
                return None;
            }
            let value: f64 = format!("0.{}", &fraction[..len]).parse().ok()?;
            millis = (value * 1000.0).floor();
            rest = &fraction[len..];
        }
    }
    match rest {
        "" | "Z" | "z" => {}
        zone => {
            let sign = match zone.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let zone = zone[1..].replace(':', "");
            if zone.len() != 4 || !zone.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let (h, m): (i64, i64) = (zone[..2].parse().ok()?, zone[2..].parse().ok()?);
            seconds -= sign * (h * 3600 + m * 60);
        }
    }
    Some(seconds as f64 * 1000.0 + millis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_times_read_in_every_shape_the_apps_write() {
        let base = 1_714_566_896_000.0; // 2024-05-01T12:34:56Z
        assert_eq!(rfc3339("2024-05-01T12:34:56Z"), Some(base));
        assert_eq!(rfc3339("2024-05-01T12:34:56.789Z"), Some(base + 789.0));
        assert_eq!(
            rfc3339("2024-05-01T12:34:56.789123+00:00"),
            Some(base + 789.0)
        );
        assert_eq!(rfc3339("2024-05-01T14:34:56+02:00"), Some(base));
        assert_eq!(rfc3339("2024-05-01T07:04:56-0530"), Some(base));
        assert_eq!(rfc3339("2024-05-01 12:34:56"), Some(base));
        assert_eq!(rfc3339("1970-01-01"), Some(0.0));
        assert_eq!(rfc3339("2000-02-29T00:00:00Z"), Some(951_782_400_000.0));
        for bad in [
            "",
            "yesterday",
            "2024-13-01",
            "2024-05-01T25:00:00Z",
            "2024-05-01T12:34Z",
            "2024-05-01T12:34:56+2",
            "2024-05-01T12:34:56.Z",
            "2024-05-01T12:34:56 UTC",
            "２０２４-05-01",
        ] {
            assert_eq!(rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers_are_seconds_or_milliseconds_by_their_size() {
        assert_eq!(ms(Some(&json!(1_714_566_896))), Some(1_714_566_896_000.0));
        assert_eq!(ms(Some(&json!(1_714_566_896.5))), Some(1_714_566_896_500.0));
        assert_eq!(
            ms(Some(&json!(1_714_566_896_000u64))),
            Some(1_714_566_896_000.0)
        );
        assert_eq!(
            ms(Some(&json!(1_714_566_896_000_000_000u64))),
            Some(1_714_566_896_000.0)
        );
        assert_eq!(ms(Some(&json!("1714566896"))), Some(1_714_566_896_000.0));
        assert_eq!(
            ms(Some(&json!("2024-05-01T12:34:56Z"))),
            Some(1_714_566_896_000.0)
        );
        for none in [
            json!(null),
            json!(0),
            json!(-5),
            json!("5/1/2024, 12:34:56 PM"),
            json!([]),
        ] {
            assert_eq!(ms(Some(&none)), None, "{none}");
        }
        assert_eq!(ms(None), None);
    }
}
