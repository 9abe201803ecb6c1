//! Case and diacritic folding for search terms, without a Unicode normalisation crate.
//!
//! A character is lowercased with the standard library (`char::to_lowercase`, full
//! Unicode case mapping), then the letters of Latin-1 Supplement and Latin Extended-A
//! lose their diacritics (`é` → `e`, `ł` → `l`) and the ligatures and `ß` are spelt out
//! (`æ` → `ae`, `ß` → `ss`). Combining diacritical marks (U+0300–U+036F) are dropped, so
//! a decomposed `e` + U+0301 folds like the precomposed `é`. Fullwidth ASCII letters and
//! digits (U+FF10–U+FF5A), which Chinese and Japanese input methods produce, become
//! ASCII. That covers the shipped locales (en, zh-CN, ja) and the Western European names
//! and words a conversation quotes; other scripts are lowercased only. A table of about
//! 190 letters costs nothing next to a normalisation crate's tables in the wasm.

/// Whether `c` is a combining diacritical mark, which folding drops.
pub fn is_combining_mark(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// Appends the folded form of `c` to `out`.
pub fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    if is_combining_mark(c) {
        return;
    }
    if ('\u{ff10}'..='\u{ff19}').contains(&c)
        || ('\u{ff21}'..='\u{ff3a}').contains(&c)
        || ('\u{ff41}'..='\u{ff5a}').contains(&c)
    {
        let ascii = char::from_u32(c as u32 - 0xfee0).unwrap_or(c);
        out.push(ascii.to_ascii_lowercase());
        return;
    }
    for lower in c.to_lowercase() {
        if is_combining_mark(lower) {
            continue;
        }
        match strip(lower) {
            Some(plain) => out.push_str(plain),
            None => out.push(lower),
        }
    }
}

/// The folded form of `text` (every character through [`fold_char`]).
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        fold_char(c, &mut out);
    }
    out
}

/// The base letters of the lowercase Latin-1 and Latin Extended-A letters.
fn strip(c: char) -> Option<&'static str> {
    Some(match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => "c",
        'ď' | 'đ' | 'ð' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => "g",
        'ĥ' | 'ħ' => "h",
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => "i",
        'ĳ' => "ij",
        'ĵ' => "j",
        'ķ' | 'ĸ' => "k",
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => "l",
        'ñ' | 'ń' | 'ņ' | 'ň' | 'ŉ' | 'ŋ' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => "o",
        'œ' => "oe",
        'ŕ' | 'ŗ' | 'ř' => "r",
        'ś' | 'ŝ' | 'ş' | 'š' | 'ſ' => "s",
        'ß' => "ss",
        'ţ' | 'ť' | 'ŧ' => "t",
        'þ' => "th",
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => "u",
        'ŵ' => "w",
        'ý' | 'ÿ' | 'ŷ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_diacritics_ligatures_and_fullwidth() {
        assert_eq!(fold("Crème Brûlée"), "creme brulee");
        assert_eq!(fold("ŁÓDŹ Straße ÆON Œuvre"), "lodz strasse aeon oeuvre");
        assert_eq!(fold("cafe\u{301}"), "cafe");
        assert_eq!(fold("İstanbul"), "istanbul");
        assert_eq!(fold("ＲＵＳＴ１２"), "rust12");
        assert_eq!(fold("Привет 中文"), "привет 中文");
    }
}
