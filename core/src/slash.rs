//! The composer's `/` and `@` menus: when the text asks for one, and which entries match
//! what follows the sign, best first. The `/` menu is asked for by a message that is a
//! slash and one word so far (`/`, `/tra`): a space, a line break or any other text
//! closes it, so a message that merely starts with a path (`/usr/bin is…`) is sent as
//! typed. The `@` menu is asked for by the last word when it starts with `@` ([`mention`]):
//! an address such as `bob@example.com` is not a mention.

/// The most characters after the slash that still count as a command being typed.
pub const MAX_QUERY_CHARS: usize = 40;
/// The most entries the menu lists.
pub const MAX_SHOWN: usize = 50;

/// What follows the slash, when `text` asks for the menu (lower case).
pub fn query(text: &str) -> Option<String> {
    let rest = text.strip_prefix('/')?;
    let fits = rest.chars().count() <= MAX_QUERY_CHARS
        && !rest.chars().any(|c| c.is_whitespace() || c == '/');
    fits.then(|| rest.to_lowercase())
}

/// An `@` mention being typed: the last word of `text` when it starts with `@` (and has
/// no other `@`), after a space, a line break or nothing: the byte offset of its `@` and
/// what follows it, lower case.
pub fn mention(text: &str) -> Option<(usize, String)> {
    let start = text
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(at, c)| at + c.len_utf8());
    let query = text[start..].strip_prefix('@')?;
    let fits = query.chars().count() <= MAX_QUERY_CHARS && !query.contains('@');
    fits.then(|| (start, query.to_lowercase()))
}

/// An entry of the menu, as ranking sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'a> {
    /// What follows `/` to choose it.
    pub command: &'a str,
    /// Its title, in the user's language.
    pub title: &'a str,
}

/// How well `entry` matches `query` (lower is better), or `None`.
fn score(query: &str, entry: Entry<'_>) -> Option<u8> {
    let command = entry.command.to_lowercase();
    let title = entry.title.to_lowercase();
    if command == query {
        Some(0)
    } else if command.starts_with(query) {
        Some(1)
    } else if title.starts_with(query) {
        Some(2)
    } else if title
        .split(|c: char| !c.is_alphanumeric())
        .any(|word| word.starts_with(query))
    {
        Some(3)
    } else if command.contains(query) || title.contains(query) {
        Some(4)
    } else {
        None
    }
}

/// The indices of the `entries` that match `query`, best first (ties keep the entries'
/// order), at most [`MAX_SHOWN`]; every entry, in order, for an empty query.
pub fn rank(query: &str, entries: &[Entry<'_>]) -> Vec<usize> {
    let query = query.to_lowercase();
    let mut scored: Vec<(u8, usize)> = entries
        .iter()
        .enumerate()
        .filter_map(|(index, entry)| {
            if query.is_empty() {
                Some((0, index))
            } else {
                score(&query, *entry).map(|s| (s, index))
            }
        })
        .collect();
    scored.sort_by_key(|(score, index)| (*score, *index));
    scored
        .into_iter()
        .take(MAX_SHOWN)
        .map(|(_, index)| index)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_slash_and_one_word_asks_for_the_menu() {
        assert_eq!(query("/"), Some(String::new()));
        assert_eq!(query("/Tra"), Some("tra".into()));
        assert_eq!(query("/要約"), Some("要約".into()));
        for not in [
            "",
            "tra",
            " /tra",
            "/tra ",
            "/usr/bin",
            "/tra\nmore",
            "a /tra",
        ] {
            assert_eq!(query(not), None, "{not:?}");
        }
        assert!(query(&format!("/{}", "x".repeat(MAX_QUERY_CHARS))).is_some());
        assert_eq!(
            query(&format!("/{}", "x".repeat(MAX_QUERY_CHARS + 1))),
            None
        );
    }

    #[test]
    fn only_a_last_word_starting_with_at_is_a_mention() {
        assert_eq!(mention("@"), Some((0, String::new())));
        assert_eq!(mention("Summarise @Read"), Some((10, "read".into())));
        assert_eq!(mention("line\n@doc"), Some((5, "doc".into())));
        assert_eq!(mention("要約 @資料"), Some((7, "資料".into())));
        assert_eq!(mention("a  @"), Some((3, String::new())));
        for not in [
            "",
            "bob@example.com",
            "x @a b",
            "@@x",
            "@a@b",
            "text ",
            "@x ",
        ] {
            assert_eq!(mention(not), None, "{not:?}");
        }
        assert!(mention(&format!("@{}", "x".repeat(MAX_QUERY_CHARS))).is_some());
        assert_eq!(
            mention(&format!("@{}", "x".repeat(MAX_QUERY_CHARS + 1))),
            None
        );
    }

    fn entries() -> Vec<Entry<'static>> {
        vec![
            Entry {
                command: "new",
                title: "New chat",
            },
            Entry {
                command: "search",
                title: "Search conversations",
            },
            Entry {
                command: "translate",
                title: "Translate a text",
            },
            Entry {
                command: "tr",
                title: "Trim",
            },
            Entry {
                command: "summary",
                title: "Weekly status",
            },
            Entry {
                command: "email",
                title: "Reply by email, translated",
            },
            Entry {
                command: "要約",
                title: "要約する",
            },
        ]
    }

    #[test]
    fn an_exact_command_comes_first_then_prefixes_then_titles_then_the_rest() {
        let entries = entries();
        let commands = |query: &str| -> Vec<&str> {
            rank(query, &entries)
                .into_iter()
                .map(|i| entries[i].command)
                .collect()
        };
        assert_eq!(commands("tr"), vec!["tr", "translate", "email"]);
        assert_eq!(commands("TRA"), vec!["translate", "email"]);
        // A title's word: "status" is the second word of "Weekly status".
        assert_eq!(commands("stat"), vec!["summary"]);
        // Inside a word, last.
        assert_eq!(commands("arch"), vec!["search"]);
        assert_eq!(commands("要"), vec!["要約"]);
        assert!(commands("zzz").is_empty());
        assert_eq!(commands("").len(), entries.len());
        assert_eq!(commands("")[0], "new");
    }

    #[test]
    fn the_list_is_bounded() {
        let names: Vec<String> = (0..MAX_SHOWN + 10).map(|i| format!("t{i}")).collect();
        let entries: Vec<Entry<'_>> = names
            .iter()
            .map(|n| Entry {
                command: n,
                title: n,
            })
            .collect();
        assert_eq!(rank("t", &entries).len(), MAX_SHOWN);
        assert_eq!(rank("", &entries).len(), MAX_SHOWN);
    }
}
