//! Syntax highlighting for fenced code blocks, chosen by the fence's language label.
//!
//! One lexer serves the C-like, scripting and config languages, steered by a row of
//! `LANGUAGES` (keywords, comments, quotes, feature flags); HTML/XML and diffs have a
//! small lexer each. It guesses cheaply and falls back to plain text rather than parse.
//! Every byte of the code is written exactly once, escaped like the rest of the Markdown
//! output, and the only markup added is flat `<span class="tok-…">` elements, so the
//! text content is the code itself. Linear time; no input panics (an unterminated string
//! or comment runs to the end of its line or of the block).

use pulldown_cmark_escape::escape_html;

/// A token class, written as `class="tok-{CLASSES[kind]}"`.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Keyword,
    Str,
    Comment,
    Number,
    /// Types, builtins and constants such as `true` or `None`.
    Type,
    /// Attributes, decorators, preprocessor lines, shell variables, diff headers.
    Meta,
    /// Object keys, CSS properties, HTML attributes.
    Attr,
    /// A name followed by `(`, or a Rust macro.
    Function,
    Tag,
    Added,
    Removed,
}

const CLASSES: [&str; 11] = [
    "kw", "str", "com", "num", "ty", "meta", "attr", "fn", "tag", "add", "del",
];

/// Block comments nest (`/* /* */ */`).
const NEST: u32 = 1;
/// Keywords and types match in any case (their lists are lowercase).
const ANY_CASE: u32 = 1 << 1;
/// A capitalised name is a type.
const CAPS: u32 = 1 << 2;
/// `@name` is meta (decorators, annotations, at-rules).
const AT: u32 = 1 << 3;
/// Rust: `#[…]` is meta, `r#"…"#` is a string, `'a'` a char but `'a` a lifetime, `m!` a macro.
const RS: u32 = 1 << 4;
/// `#` first on a line starts a preprocessor line.
const PREPROC: u32 = 1 << 5;
/// Shell variables: `$x`, `$1`, `$?`, `${…}`.
const DOLLAR: u32 = 1 << 6;
/// `$` is part of names (JavaScript, PHP).
const DOLLAR_NAME: u32 = 1 << 7;
/// `"""` and `'''` strings span lines.
const TRIPLE: u32 = 1 << 8;
/// `-` is part of names (`background-color`, `--x`, `my-key`).
const DASH: u32 = 1 << 9;
/// The first name on a line followed by `:` or `=` is a key (YAML, TOML, INI).
const KEYS: u32 = 1 << 10;
/// A string followed by `:` is a key (JSON).
const STR_KEYS: u32 = 1 << 11;
/// `[…]` first on a line is a section header (TOML, INI).
const SECTION: u32 = 1 << 12;
/// CSS: inside braces, a name followed by `:` is a property and `#abc` a colour.
const PROPS: u32 = 1 << 13;
/// `#` starts a comment only at the start of a word (shell, YAML).
const WORD_HASH: u32 = 1 << 14;
/// Not the generic lexer: HTML/XML.
const MARKUP: u32 = 1 << 15;
/// Not the generic lexer: a unified diff.
const DIFF: u32 = 1 << 16;

/// How one language looks to the lexer. Word lists are groups of space-separated words.
struct Spec {
    keywords: &'static [&'static str],
    types: &'static [&'static str],
    line_comments: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    /// The characters that open and close a string.
    quotes: &'static str,
    /// Of `quotes`, those whose strings may span lines.
    multiline: &'static str,
    /// Of `quotes`, those whose strings have no backslash escapes.
    raw: &'static str,
    flags: u32,
}

/// The languages by fence label (aliases separated by spaces, matched in any case).
#[rustfmt::skip]
const LANGUAGES: &[(&str, Spec)] = {
    const C: Spec = Spec {
        keywords: &[C_KW], types: &[C_TY], line_comments: &["//"],
        block_comment: Some(("/*", "*/")), quotes: "\"'", multiline: "", raw: "", flags: PREPROC,
    };
    const C_KW: &str = "auto break case const continue default do else enum extern for goto if \
        inline register restrict return sizeof static struct switch typedef union volatile while";
    const C_TY: &str = "char double float int long short signed unsigned void bool size_t NULL \
        true false";
    const JS: Spec = Spec { keywords: &[JS_KW], types: &[JS_TY], quotes: "\"'`", multiline: "`",
        flags: CAPS | AT | DOLLAR_NAME, ..C };
    const JS_KW: &str = "async await break case catch class const continue debugger default \
        delete do else export extends finally for from function if import in instanceof let new \
        of return static super switch this throw try typeof var void while with yield";
    const JS_TY: &str = "true false null undefined NaN Infinity";
    const KOTLIN: Spec = Spec { keywords: &["abstract as break by catch class companion \
        constructor continue data do else enum finally for fun get if import in init inner \
        interface internal is lateinit object open out override package private protected public \
        return sealed set super suspend this throw try typealias val var vararg when where while"],
        types: &["true false null"], flags: NEST | CAPS | AT | TRIPLE, ..C };
    const YAML: Spec = Spec { keywords: &[], types: &["true false null yes no"],
        line_comments: &["#"], block_comment: None, quotes: "\"'", raw: "'",
        flags: ANY_CASE | DASH | KEYS | WORD_HASH, ..C };
    const CSS: Spec = Spec { keywords: &["important"], types: &["inherit initial unset auto none"],
        line_comments: &[], flags: DASH | AT | PROPS, ..C };
    &[
        ("rust rs", Spec { keywords: &["as async await break const continue crate dyn else enum \
            extern fn for if impl in let loop match mod move mut pub ref return self Self static \
            struct super trait type unsafe use where while yield"], types: &["bool char str u8 u16 \
            u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 true false"], multiline: "\"",
            flags: NEST | CAPS | RS, ..C }),
        ("javascript js jsx mjs cjs", JS),
        ("typescript ts tsx", Spec { keywords: &[JS_KW, "abstract as declare enum implements \
            interface keyof namespace private protected public readonly satisfies type"],
            types: &[JS_TY, "any bigint boolean never number object string symbol unknown"],
            ..JS }),
        ("python py python3", Spec { keywords: &["and as assert async await break case class \
            continue def del elif else except finally for from global if import in is lambda \
            match nonlocal not or pass raise return try while with yield"], types: &["True False \
            None self cls int float str bytes bool list dict set tuple object"],
            line_comments: &["#"], block_comment: None, flags: CAPS | AT | TRIPLE, ..C }),
        ("json jsonc json5", Spec { keywords: &[], types: &["true false null"], quotes: "\"",
            flags: STR_KEYS, ..C }),
        ("bash sh shell zsh console shellsession", Spec { keywords: &["if then else elif fi for \
            while until do done case esac in function select return local export readonly declare \
            unset shift break continue exit source alias set"], types: &["echo cd printf read test \
            true false eval exec trap sudo"], line_comments: &["#"], block_comment: None,
            quotes: "\"'`", multiline: "\"'`", raw: "'", flags: DOLLAR | WORD_HASH }),
        ("c h", C),
        ("cpp c++ cc cxx hpp", Spec { keywords: &[C_KW, "alignas alignof catch class constexpr \
            consteval co_await co_return co_yield concept decltype delete explicit final friend \
            mutable namespace new noexcept operator override private protected public requires \
            template this throw try typename using virtual static_cast dynamic_cast const_cast \
            reinterpret_cast"], types: &[C_TY, "nullptr std string vector wchar_t"], ..C }),
        ("java", Spec { keywords: &["abstract assert break case catch class continue default do \
            else enum extends final finally for if implements import instanceof interface native \
            new package permits private protected public record return sealed static super switch \
            synchronized this throw throws transient try var void volatile while yield"],
            types: &["boolean byte char double float int long short true false null"],
            flags: CAPS | AT | TRIPLE, ..C }),
        ("go golang", Spec { keywords: &["break case chan const continue default defer else \
            fallthrough for func go goto if import interface map package range return select \
            struct switch type var"], types: &["any bool byte complex64 complex128 error float32 \
            float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr \
            true false nil iota"], quotes: "\"'`", multiline: "`", raw: "`", flags: 0, ..C }),
        ("csharp cs c#", Spec { keywords: &["abstract as async await base break case catch checked \
            class const continue default delegate do else enum event explicit extern finally fixed \
            for foreach get goto if implicit in init interface internal is lock namespace new \
            operator out override params private protected public readonly record ref return \
            sealed set sizeof stackalloc static struct switch this throw try typeof unchecked \
            unsafe using var virtual void volatile when where while yield"], types: &["bool byte \
            char decimal double dynamic float int long nint object sbyte short string uint ulong \
            ushort true false null"], flags: PREPROC | CAPS, ..C }),
        ("kotlin kt kts", KOTLIN),
        ("swift", Spec { keywords: &["any as associatedtype async await break case catch class \
            continue default defer deinit do else enum extension fileprivate for func guard if \
            import in init inout internal is let open operator private protocol public repeat \
            rethrows return self Self some static struct subscript super switch throw throws try \
            typealias var where while"], types: &["true false nil"], ..KOTLIN }),
        ("php", Spec { keywords: &["abstract and as break case catch class clone const continue \
            declare default do echo else elseif empty endfor endforeach endif endswitch endwhile \
            enum extends final finally fn for foreach function global goto if implements include \
            include_once instanceof interface isset list match namespace new or print private \
            protected public readonly require require_once return static switch throw trait try \
            unset use var while xor yield"], types: &["true false null array bool float int string \
            void mixed self parent"], line_comments: &["//", "#"], quotes: "\"'`",
            multiline: "\"'", raw: "'", flags: DOLLAR_NAME, ..C }),
        ("ruby rb", Spec { keywords: &["alias and begin break case class def defined do else \
            elsif end ensure for if in module next not or redo rescue retry return super then \
            undef unless until when while yield require attr_reader attr_accessor"],
            types: &["true false nil self"], line_comments: &["#"], block_comment: None,
            quotes: "\"'`", multiline: "\"'`", flags: CAPS, ..C }),
        ("sql postgresql mysql sqlite", Spec { keywords: &["add all alter and as asc begin between \
            by case check column commit constraint create cross default delete desc distinct drop \
            else end exists foreign from full group having if in index inner insert into is join \
            key left like limit not offset on or order outer primary references returning right \
            rollback select set table then transaction union unique update using values view when \
            where with"], types: &["null true false int integer bigint smallint varchar char text \
            boolean date timestamp numeric decimal float real serial count sum avg min max"],
            line_comments: &["--"], quotes: "'\"`", multiline: "'", raw: "'`", flags: ANY_CASE,
            ..C }),
        ("yaml yml", YAML),
        ("toml ini cfg", Spec { types: &["true false"], line_comments: &["#", ";"],
            flags: DASH | KEYS | SECTION | TRIPLE, ..YAML }),
        ("css", CSS),
        ("scss sass less", Spec { line_comments: &["//"], flags: DASH | AT | PROPS | DOLLAR,
            ..CSS }),
        ("html xml svg xhtml vue", Spec { flags: MARKUP, ..C }),
        ("diff patch", Spec { flags: DIFF, ..C }),
    ]
};

/// Highlights `code` in the language a fence labels `language`: HTML-escaped text with
/// tokens in `<span class="tok-…">`. An unknown language gives the escaped text alone.
pub fn highlight(language: &str, code: &str) -> String {
    highlight_within(language, code, usize::MAX).unwrap_or_default()
}

/// [`highlight`], or `None` when the HTML would be longer than `limit` bytes. Spans can
/// make it many times longer than the code (`1,1,1` is 15 bytes a digit); past the
/// limit nothing more is written, so memory stays within it.
pub fn highlight_within(language: &str, code: &str, limit: usize) -> Option<String> {
    let spec = LANGUAGES
        .iter()
        .find(|(labels, _)| labels.split(' ').any(|l| l.eq_ignore_ascii_case(language)))
        .map(|(_, spec)| spec);
    let mut out = Out {
        src: code,
        html: String::with_capacity((code.len() + code.len() / 2).min(limit)),
        done: 0,
        limit,
    };
    match spec {
        Some(spec) if spec.flags & MARKUP != 0 => markup(&mut out),
        Some(spec) if spec.flags & DIFF != 0 => diff(&mut out),
        Some(spec) => lex(spec, &mut out),
        None => {}
    }
    out.text(code.len());
    out.fits().then_some(out.html)
}

/// The HTML written so far for `src`, which is written up to `done`.
struct Out<'a> {
    src: &'a str,
    html: String,
    done: usize,
    /// Past this many bytes of HTML, writing stops (the lexer still runs to the end).
    limit: usize,
}

impl Out<'_> {
    /// Whether the HTML is within the limit.
    fn fits(&self) -> bool {
        self.html.len() <= self.limit
    }

    /// Writes the source up to `end` as plain text.
    fn text(&mut self, end: usize) {
        if self.fits() {
            let _ = escape_html(&mut self.html, &self.src[self.done..end]);
        }
        self.done = end;
    }

    /// Writes the source before `start` as plain text and `start..end` as a token.
    fn token(&mut self, kind: Kind, start: usize, end: usize) {
        self.text(start);
        if start < end && self.fits() {
            self.html.push_str("<span class=\"tok-");
            self.html.push_str(CLASSES[kind as usize]);
            self.html.push_str("\">");
            self.text(end);
            self.html.push_str("</span>");
        }
    }
}

/// Whether `word` is in one of the space-separated `groups`. No listed word is shorter
/// than two bytes or longer than 20.
fn listed(groups: &[&str], word: &str, any_case: bool) -> bool {
    let mut buffer = [0; 20];
    let Some(lower) = buffer.get_mut(..word.len()).filter(|w| w.len() >= 2) else {
        return false;
    };
    lower.copy_from_slice(word.as_bytes());
    if any_case {
        lower.make_ascii_lowercase();
    }
    let word = std::str::from_utf8(lower).unwrap_or(word);
    groups.iter().any(|group| {
        let g = group.as_bytes();
        group.match_indices(word).any(|(p, _)| {
            (p == 0 || g[p - 1] == b' ') && g.get(p + word.len()).is_none_or(|&c| c == b' ')
        })
    })
}

// Scanners: each takes the bytes and a token's start and returns its end, which is the
// end of the input or next to an ASCII byte, so always a char boundary.

/// A string opened by `quote`; unclosed, it ends at the line's (or the input's) end.
fn string_end(b: &[u8], start: usize, quote: &[u8], escapes: bool, multiline: bool) -> usize {
    let mut i = start + quote.len();
    while i < b.len() {
        if escapes && b[i] == b'\\' {
            i += 2;
        } else if b[i..].starts_with(quote) {
            return i + quote.len();
        } else if b[i] == b'\n' && !multiline {
            return i;
        } else {
            i += 1;
        }
    }
    b.len()
}

/// A block comment, nested or not.
fn block_end(b: &[u8], start: usize, (open, close): (&str, &str), nest: bool) -> usize {
    let (mut i, mut depth) = (start + open.len(), 1);
    while i < b.len() {
        if b[i..].starts_with(close.as_bytes()) {
            i += close.len();
            depth -= 1;
            if depth == 0 {
                return i;
            }
        } else if nest && b[i..].starts_with(open.as_bytes()) {
            i += open.len();
            depth += 1;
        } else {
            i += 1;
        }
    }
    b.len()
}

/// A run up to and including `close`, or up to the end of the line (not its newline).
fn until(b: &[u8], start: usize, close: u8) -> usize {
    match b[start..].iter().position(|&c| c == close || c == b'\n') {
        Some(p) => start + p + usize::from(b[start + p] != b'\n'),
        None => b.len(),
    }
}

fn number_end(b: &[u8], start: usize) -> usize {
    let hex = b[start..].starts_with(b"0x") || b[start..].starts_with(b"0X");
    let (mut i, mut dot) = (start, false);
    while let Some(&c) = b.get(i) {
        let exponent = matches!(c, b'+' | b'-') && !hex && matches!(b[i - 1], b'e' | b'E');
        if c == b'.' && !dot && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            dot = true;
        } else if !(c.is_ascii_alphanumeric() || c == b'_' || exponent) {
            break;
        }
        i += 1;
    }
    i
}

/// A Rust raw string (`r"…"`, `br#"…"#`), if one starts here.
fn raw_string_end(b: &[u8], start: usize) -> Option<usize> {
    let p = start
        + [&b"br"[..], b"r"]
            .iter()
            .find(|p| b[start..].starts_with(p))?
            .len();
    let hashes = &b[p..p + b[p..].iter().take(256).take_while(|&&c| c == b'#').count()];
    let open = p + hashes.len();
    let closes = |j: &usize| b[*j] == b'"' && b[j + 1..].starts_with(hashes);
    (b.get(open) == Some(&b'"')).then(|| {
        (open + 1..b.len())
            .find(closes)
            .map_or(b.len(), |j| j + 1 + hashes.len())
    })
}

/// A name, by characters.
fn name_end(s: &str, start: usize, name_char: impl Fn(char) -> bool) -> usize {
    s[start..]
        .char_indices()
        .find(|&(_, c)| !name_char(c))
        .map_or(s.len(), |(p, _)| start + p)
}

/// The character at `i`, if any.
fn char_at(s: &str, i: usize) -> Option<char> {
    s.get(i..).and_then(|rest| rest.chars().next())
}

/// The first byte at or after `i` that is not a space or tab.
fn after_blanks(b: &[u8], mut i: usize) -> Option<u8> {
    while b.get(i).is_some_and(|&c| c == b' ' || c == b'\t') {
        i += 1;
    }
    b.get(i).copied()
}

/// The generic lexer.
fn lex(spec: &Spec, out: &mut Out) {
    let (s, b) = (out.src, out.src.as_bytes());
    let has = |flag: u32| spec.flags & flag != 0;
    let name_char = |c: char| {
        c.is_alphanumeric() || c == '_' || (c == '$' && has(DOLLAR_NAME)) || (c == '-' && has(DASH))
    };
    // Only blanks (or a YAML list's dash) so far on this line; open braces (CSS).
    let (mut i, mut line_start, mut depth) = (0, true, 0usize);
    while let Some(&c) = b.get(i) {
        let rest = &b[i..];
        let prev = i.checked_sub(1).map(|p| b[p]);
        let next = rest.get(1).copied();
        let blank = matches!(c, b' ' | b'\t' | b'\n') || (c == b'-' && line_start && has(KEYS));
        let in_word = prev.is_some_and(|p| !matches!(p, b' ' | b'\t' | b'\n' | b';' | b'('));
        let starts = |p: &[u8]| rest.starts_with(p);
        let name = char_at(s, i).filter(|&ch| {
            let dash = ch == '-'
                && has(DASH)
                && next.is_some_and(|n| n.is_ascii_alphabetic() || n == b'-');
            ch.is_alphabetic() || ch == '_' || (ch == '$' && has(DOLLAR_NAME)) || dash
        });
        let token = if blank {
            None
        } else if c == b'#' && line_start && has(PREPROC) {
            Some((Kind::Meta, until(b, i, b'\n')))
        } else if has(RS) && (starts(b"#[") || starts(b"#![")) {
            Some((Kind::Meta, until(b, i, b']')))
        } else if spec.line_comments.iter().any(|p| starts(p.as_bytes()))
            && !(c == b'#' && has(WORD_HASH) && in_word)
        {
            Some((Kind::Comment, until(b, i, b'\n')))
        } else if let Some(block) = spec
            .block_comment
            .filter(|(open, _)| starts(open.as_bytes()))
        {
            Some((Kind::Comment, block_end(b, i, block, has(NEST))))
        } else if has(TRIPLE) && (starts(b"\"\"\"") || starts(b"'''")) {
            Some((Kind::Str, string_end(b, i, &rest[..3], true, true)))
        } else if c == b'\'' && has(RS) {
            // `'x'` and `'\n'` are chars; `'a` is a lifetime.
            let close = match next {
                Some(b'\\') => rest
                    .iter()
                    .skip(3)
                    .take(10)
                    .position(|&c| c == b'\'')
                    .map(|p| p + 3),
                _ => char_at(s, i + 1)
                    .map(|ch| 1 + ch.len_utf8())
                    .filter(|&p| rest.get(p) == Some(&b'\'')),
            };
            close.map(|p| (Kind::Str, i + p + 1))
        } else if spec.quotes.as_bytes().contains(&c)
            && !(has(KEYS) && prev.is_some_and(|p| p.is_ascii_alphanumeric()))
        {
            let (escapes, multiline) = (
                !spec.raw.as_bytes().contains(&c),
                spec.multiline.as_bytes().contains(&c),
            );
            let end = string_end(b, i, &rest[..1], escapes, multiline);
            let key = has(STR_KEYS) && after_blanks(b, end) == Some(b':');
            Some((if key { Kind::Attr } else { Kind::Str }, end))
        } else if let Some(end) = (has(RS) && matches!(c, b'r' | b'b'))
            .then(|| raw_string_end(b, i))
            .flatten()
        {
            Some((Kind::Str, end))
        } else if c == b'@'
            && has(AT)
            && char_at(s, i + 1).is_some_and(|ch| ch.is_alphabetic() || ch == '_')
        {
            Some((Kind::Meta, name_end(s, i + 1, name_char)))
        } else if c == b'$'
            && has(DOLLAR)
            && next.is_some_and(|n| n.is_ascii_alphanumeric() || b"_{#?@*!$-".contains(&n))
        {
            let end = match next {
                Some(b'{') => until(b, i, b'}'),
                Some(n) if n.is_ascii_alphabetic() || n == b'_' => {
                    name_end(s, i + 1, |c| c.is_ascii_alphanumeric() || c == '_')
                }
                _ => i + 2,
            };
            Some((Kind::Meta, end))
        } else if c.is_ascii_digit()
            || (c == b'#'
                && has(PROPS)
                && depth > 0
                && next.is_some_and(|n| n.is_ascii_alphanumeric()))
        {
            Some((Kind::Number, number_end(b, i + usize::from(c == b'#'))))
        } else if c == b'[' && line_start && has(SECTION) {
            Some((Kind::Meta, until(b, i, b']')))
        } else if let Some(first) = name {
            let end = name_end(s, i, name_char);
            let (word, after) = (&s[i..end], b.get(end).copied());
            let then = after_blanks(b, end);
            let key = has(KEYS) && line_start && matches!(then, Some(b':' | b'='));
            let macro_call = has(RS) && after == Some(b'!') && b.get(end + 1) != Some(&b'=');
            let kind = if key || (has(PROPS) && depth > 0 && then == Some(b':')) {
                Some(Kind::Attr)
            } else if listed(spec.keywords, word, has(ANY_CASE)) {
                Some(Kind::Keyword)
            } else if listed(spec.types, word, has(ANY_CASE)) {
                Some(Kind::Type)
            } else if after == Some(b'(') || macro_call {
                Some(Kind::Function)
            } else if has(CAPS) && first.is_uppercase() {
                Some(Kind::Type)
            } else {
                None
            };
            match kind {
                Some(kind) => Some((kind, end)),
                None => {
                    // A plain name is skipped whole, so that no token starts inside it.
                    line_start = false;
                    i = end;
                    continue;
                }
            }
        } else {
            depth = match c {
                b'{' => depth + 1,
                b'}' => depth.saturating_sub(1),
                _ => depth,
            };
            None
        };
        line_start = c == b'\n' || (line_start && blank);
        match token {
            Some((kind, end)) => {
                out.token(kind, i, end);
                i = end;
            }
            None => i += char_at(s, i).map_or(1, char::len_utf8),
        }
    }
}

/// HTML and XML: tags, attributes, quoted values, comments, doctypes.
fn markup(out: &mut Out) {
    let (s, b) = (out.src, out.src.as_bytes());
    let stop = |c: &u8| c.is_ascii_whitespace() || b"=/<>\"'".contains(c);
    let word_end = |from: usize| {
        b[from..]
            .iter()
            .position(stop)
            .map_or(b.len(), |p| from + p)
    };
    let (mut i, mut in_tag) = (0, false);
    while let Some(&c) = b.get(i) {
        let rest = &b[i..];
        let token = if in_tag {
            in_tag = c != b'>' && c != b'<';
            if c == b'"' || c == b'\'' {
                Some((Kind::Str, string_end(b, i, &rest[..1], false, true)))
            } else {
                // A name, or an unquoted value after `=`.
                let kind = if b[i - 1] == b'=' {
                    Kind::Str
                } else {
                    Kind::Attr
                };
                (!stop(&c)).then(|| (kind, word_end(i)))
            }
        } else if rest.starts_with(b"<!--") {
            Some((Kind::Comment, block_end(b, i, ("<!--", "-->"), false)))
        } else if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
            // `<!…>` or `<?…>`: the opening's length is all that `block_end` needs.
            Some((Kind::Meta, block_end(b, i, ("<!", ">"), false)))
        } else {
            let open = if rest.starts_with(b"</") { 2 } else { 1 };
            in_tag = c == b'<' && rest.get(open).is_some_and(u8::is_ascii_alphabetic);
            if in_tag {
                i += open;
            }
            in_tag.then(|| (Kind::Tag, word_end(i)))
        };
        match token {
            Some((kind, end)) => {
                out.token(kind, i, end);
                i = end;
            }
            None => i += char_at(s, i).map_or(1, char::len_utf8),
        }
    }
}

/// Unified diffs: added, removed and header lines.
fn diff(out: &mut Out) {
    let mut start = 0;
    for line in out.src.split_inclusive('\n') {
        let text = line.strip_suffix('\n').unwrap_or(line);
        let header = ["+++", "---", "@@", "diff ", "index "]
            .iter()
            .any(|p| text.starts_with(p));
        let kind = match text.as_bytes().first() {
            _ if header => Some(Kind::Meta),
            Some(b'+') => Some(Kind::Added),
            Some(b'-') => Some(Kind::Removed),
            _ => None,
        };
        if let Some(kind) = kind {
            out.token(kind, start, start + text.len());
        }
        start += line.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One label per language, then unknown ones.
    const LABELS: &str = "rust js TypeScript python json bash c c++ java go c# kotlin swift php \
        ruby sql yaml toml css scss html diff brainfuck text";

    /// The code in highlighted HTML, after checking that its only markup is flat spans.
    fn text_of(html: &str) -> String {
        let (mut text, mut rest, mut open) = (String::new(), html, false);
        while let Some(start) = rest.find('<') {
            text.push_str(&rest[..start]);
            let tag = &rest[start..=start + rest[start..].find('>').expect("a tag ends")];
            let class = tag
                .strip_prefix("<span class=\"tok-")
                .and_then(|t| t.strip_suffix("\">"));
            let opens = class.is_some_and(|k| CLASSES.contains(&k));
            let fits = if opens {
                !open
            } else {
                open && tag == "</span>"
            };
            assert!(fits, "unexpected {tag} in {html}");
            (open, rest) = (opens, &rest[start + tag.len()..]);
        }
        assert!(!open, "an unclosed span in {html}");
        text.push_str(rest);
        assert!(!text.contains(['>', '"', '\'']), "unescaped text in {html}");
        let entities = [
            ("&lt;", "<"),
            ("&gt;", ">"),
            ("&quot;", "\""),
            ("&#39;", "'"),
        ];
        let text = entities
            .iter()
            .fold(text, |text, (entity, c)| text.replace(entity, c));
        text.replace("&amp;", "&")
    }

    fn round_trips(code: &str) {
        for label in LABELS.split(' ').chain([""]) {
            let html = highlight(label, code);
            assert_eq!(text_of(&html), code, "{label}: {html}");
        }
    }

    const NASTY: &str = "\"¦'¦`¦\\¦\"\\¦/*¦/* /* */¦*/¦//¦#¦#[¦#![x¦r#\"¦r##\"x\"#¦br\"¦'\\¦'a¦'é'¦\
        \"\"\"¦'''x¦${¦$¦$1¦@¦@@¦<¦</¦<!--¦<!¦<?¦<a b='¦0x¦1e¦1e-¦1.¦.5¦-¦--¦---¦+¦[¦[x¦#fff¦\
        {#a}¦é中😀¦\0\r\n¦a\\\n¦x!¦x!=¦f(¦é\"中\\😀¦\\é¦'\\é'¦\"\\😀\"¦-- x¦<!-- x -¦key: 'v¦a#b¦\
        \t-\tk:¦";

    #[test]
    fn every_language_round_trips_nasty_snippets() {
        for a in NASTY.split('¦') {
            for b in NASTY.split('¦') {
                round_trips(&format!("{a}{b}"));
                round_trips(&format!("{a}\n{b} x"));
            }
        }
    }

    #[test]
    fn every_language_round_trips_random_input() {
        let pieces: Vec<&str> = "a Z _ fn if SELECT true 0 7 0x e r b \" ' ` / * \\ # $ @ { } [ ] \
            < > & - + . : = ( ) ! ; é 中 😀 \u{301} /* */ \"\"\" <!-- --> r#\" ${ @@ \n \t"
            .split(' ')
            .collect();
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            // xorshift64
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..4000 {
            let len = next() % 48;
            let code: Vec<&str> = (0..len)
                .map(|_| pieces[next() as usize % pieces.len()])
                .collect();
            round_trips(&code.join(if len % 3 == 0 { " " } else { "" }));
        }
    }

    #[test]
    fn large_pathological_inputs_round_trip() {
        round_trips(&"/*".repeat(20_000));
        round_trips(&"r#####\"\"##".repeat(20_000));
        round_trips(&"'\\".repeat(20_000));
        round_trips(&"a ".repeat(50_000));
        round_trips(&format!("{}\"", "\\".repeat(40_001)));
        round_trips(&"<a b=".repeat(20_000));
    }

    #[test]
    fn unknown_languages_are_escaped_text() {
        let code = "fn main() { \"<script>\" & 'x' }";
        for label in ["brainfuck", "", "text", "markdown", "rust2"] {
            assert_eq!(highlight(label, code), crate::markdown::escaped(code));
        }
    }

    #[test]
    fn markup_in_code_stays_escaped() {
        for label in LABELS.split(' ') {
            let html = highlight(
                label,
                "<script>alert(1)</script><img src=x onerror=alert(1)>",
            );
            assert!(
                !html.contains("<script") && !html.contains("<img"),
                "{label}: {html}"
            );
        }
        let html = highlight("html", "<script>");
        assert_eq!(html, "&lt;<span class=\"tok-tag\">script</span>&gt;");
    }

    /// A fence label, code, and tokens its highlighting must contain: `KIND TEXT`, ` ¦ `
    /// between them.
    #[rustfmt::skip]
    const CASES: &[(&str, &str, &str)] = &[
        ("RS", "#[derive(Debug)]\npub fn main() -> String {\n    let s = \"a\\\"b\"; // x\n    \
            let n = 0x1F + 1.5e-3 + 2_u8;\n    /* a /* nested */ still */ let c = '\\'';\n    \
            let r = r#\"raw \"q\"\"#;\n    println!(\"{s}\");\n    vec.len()\n}",
            "meta #[derive(Debug)] ¦ kw pub ¦ kw fn ¦ fn main ¦ ty String ¦ kw let ¦ \
            str \"a\\\"b\" ¦ com // x ¦ num 0x1F ¦ num 1.5e-3 ¦ num 2_u8 ¦ \
            com /* a /* nested */ still */ ¦ str '\\'' ¦ str r#\"raw \"q\"\"# ¦ fn println ¦ \
            fn len"),
        ("c", "#include <stdio.h>\nint main(void) { return 0; /* done */ }",
            "meta #include <stdio.h> ¦ ty int ¦ kw return ¦ num 0 ¦ com /* done */"),
        ("cpp", "template <typename T> class X {};", "kw template ¦ kw class"),
        ("java", "@Override public String s = \"\"\"\n  text\n  \"\"\";",
            "meta @Override ¦ kw public ¦ ty String ¦ str \"\"\"\n  text\n  \"\"\""),
        ("cs", "#region x\npublic async Task<int> F() => null;",
            "meta #region x ¦ kw async ¦ ty Task ¦ ty null"),
        ("go", "func main() { s := `a\\`; var n int64 = nil }",
            "kw func ¦ str `a\\` ¦ ty int64 ¦ ty nil"),
        ("kotlin", "data class P(val x: Int) // c", "kw data ¦ kw val ¦ ty Int ¦ com // c"),
        ("swift", "guard let x = y else { return nil }", "kw guard ¦ kw let ¦ ty nil"),
        ("JS", "const $el = document.querySelector('#x'); // c\nexport default class A {}",
            "kw const ¦ fn querySelector ¦ str '#x' ¦ com // c ¦ kw export ¦ ty A"),
        ("tsx", "interface P { n: number }", "kw interface ¦ ty number"),
        ("py", "@cache\ndef f(x=None):  # note\n    \"\"\"Doc\n    string\"\"\"\n    \
            return 'it' + \"s\"", "meta @cache ¦ kw def ¦ fn f ¦ ty None ¦ com # note ¦ \
            str \"\"\"Doc\n    string\"\"\" ¦ kw return ¦ str 'it'"),
        ("php", "<?php function f($x) { echo \"hi\"; } # c",
            "kw function ¦ kw echo ¦ str \"hi\" ¦ com # c"),
        ("rb", "def hi\n  puts 'x' # c\nend", "kw def ¦ kw end ¦ str 'x' ¦ com # c"),
        ("bash", "#!/bin/sh\nexport PATH=\"$HOME/bin:$PATH\" # c\necho ${name} $1 $? 'a\\' a#b\n\
            if [ -f x ]; then ls; fi", "com #!/bin/sh ¦ kw export ¦ str \"$HOME/bin:$PATH\" ¦ \
            com # c ¦ ty echo ¦ meta ${name} ¦ meta $1 ¦ meta $? ¦ str 'a\\' ¦ kw if ¦ kw fi"),
        ("console", "$ ls $DIR", "meta $DIR"),
        ("json", "{\"key\" : \"value\", \"n\": -1.5e3, \"ok\": true, \"z\": null}",
            "attr \"key\" ¦ str \"value\" ¦ attr \"n\" ¦ num 1.5e3 ¦ ty true ¦ ty null"),
        ("yml", "# c\nname: my-app\nitems:\n  - key-one: 'it''s'\n    url: http://x#y\nok: Yes",
            "com # c ¦ attr name ¦ attr items ¦ attr key-one ¦ str 'it' ¦ attr url ¦ ty Yes"),
        ("toml", "[package]\nname = \"hearth\" # c\nopt-level = 3\n[[bin]]",
            "meta [package] ¦ attr name ¦ str \"hearth\" ¦ com # c ¦ attr opt-level ¦ num 3 ¦ \
            meta [[bin]"),
        ("SQL", "select id, COUNT(*) From users WHERE name = 'O''Brien' -- c\n/* b */ LIMIT 10;",
            "kw select ¦ ty COUNT ¦ kw From ¦ kw WHERE ¦ str 'O' ¦ com -- c ¦ com /* b */ ¦ \
            kw LIMIT ¦ num 10"),
        ("css", "@media (min-width: 40em) {\n  a:hover { background-color: #fff; margin: 0 1.5rem; \
            --x-y: var(--z) !important; }\n}", "meta @media ¦ attr background-color ¦ num #fff ¦ \
            num 1.5rem ¦ attr --x-y ¦ fn var ¦ kw important"),
        ("scss", "$gap: 4px; // c", "meta $gap ¦ com // c"),
        ("HTML", "<!DOCTYPE html>\n<a href=\"x\" data-on='y' hidden>t &amp; u</a><!-- c\n -->\
            <img src=i.png/>", "meta <!DOCTYPE html> ¦ tag a ¦ attr href ¦ str \"x\" ¦ \
            attr data-on ¦ str 'y' ¦ attr hidden ¦ com <!-- c\n --> ¦ tag img ¦ str i.png"),
        ("patch", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n context\n-old\n+new\n",
            "meta --- a/x ¦ meta +++ b/x ¦ meta @@ -1,2 +1,2 @@ ¦ del -old ¦ add +new"),
    ];

    #[test]
    fn each_language_marks_its_tokens() {
        for (label, code, expected) in CASES {
            let html = highlight(label, code);
            for token in expected.split(" ¦ ") {
                let (kind, text) = token.split_once(' ').expect("KIND TEXT");
                let mut span = format!("<span class=\"tok-{kind}\">");
                let _ = escape_html(&mut span, text);
                assert!(
                    html.contains(&(span + "</span>")),
                    "{label}: no {token:?} in {html}"
                );
            }
        }
    }

    #[test]
    fn context_decides_what_is_a_token() {
        let plain =
            |label: &str, code: &str| highlight(label, code) == crate::markdown::escaped(code);
        assert!(
            plain("rust", "x<'a>(&'a y)"),
            "a lifetime is no char literal"
        );
        assert!(plain("js", "$el"), "$ is part of a JavaScript name");
        assert!(plain("sh", "a#b"), "# inside a word starts no comment");
        assert!(
            plain("yaml", "- don't"),
            "an apostrophe inside a word opens no string"
        );
        assert!(plain("diff", " context\n"), "context lines are plain");
        assert!(
            plain("css", "a { x }"),
            "a selector and a bare word are plain"
        );
        let tag = "<span class=\"tok-tag\">a</span>";
        assert_eq!(
            highlight("xml", "<a>x</a>"),
            format!("&lt;{tag}&gt;x&lt;/{tag}&gt;")
        );
    }
}
