//! The app's addresses: `/c/<id>` names an open conversation, `/` a new chat. The address
//! bar follows the conversation on screen, so a reload, Back and Forward, a bookmark or a
//! second tab open it.
//!
//! A path comes from outside (a link anyone can write): only an id made of the characters
//! conversation ids use is taken from it, and it still names nothing until the app finds
//! that conversation in its own store.

/// The prefix of a conversation's address.
const PREFIX: &str = "/c/";
/// The longest id an address carries (Hearth's ids are 16 or 36 characters).
pub const MAX_ID_CHARS: usize = 128;

/// Whether `id` can stand in an address as it is: 1 to [`MAX_ID_CHARS`] ASCII letters,
/// digits, `-` and `_` (every id Hearth makes or derives on import).
pub fn is_addressable(id: &str) -> bool {
    (1..=MAX_ID_CHARS).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The address of conversation `id`, or of a new chat (`None`, and an id that cannot
/// stand in an address: that conversation is simply not bookmarkable).
pub fn path_of(id: Option<&str>) -> String {
    match id.filter(|id| is_addressable(id)) {
        Some(id) => format!("{PREFIX}{id}"),
        None => "/".to_string(),
    }
}

/// The conversation `path` names (`/c/<id>`, a trailing `/` allowed), if any.
pub fn conversation_in(path: &str) -> Option<&str> {
    let id = path.strip_prefix(PREFIX)?;
    let id = id.strip_suffix('/').unwrap_or(id);
    is_addressable(id).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_names_the_conversation_it_was_made_for() {
        for id in [
            "0f3a9c2b7d1e4a55",
            "3f2b8c1e-9a4d-8e6f-8b7a-0c1d2e3f4a5b",
            "a_b",
            &"x".repeat(MAX_ID_CHARS),
        ] {
            let path = path_of(Some(id));
            assert_eq!(conversation_in(&path), Some(id), "{path}");
        }
        assert_eq!(path_of(None), "/");
        assert_eq!(conversation_in("/"), None);
        assert_eq!(conversation_in("/c/abc/"), Some("abc"));
    }

    #[test]
    fn anything_else_in_a_path_names_nothing() {
        for path in [
            "",
            "/c/",
            "/c//",
            "/c/a/b",
            "/c/a%2Fb",
            "/c/../index.html",
            "/c/a b",
            "/c/é",
            "/c/a?x=1",
            "/c/a#h",
            "/C/abc",
            "/settings",
            "c/abc",
            "//c/abc",
            &format!("/c/{}", "x".repeat(MAX_ID_CHARS + 1)),
        ] {
            assert_eq!(conversation_in(path), None, "{path:?}");
        }
    }

    #[test]
    fn an_id_that_cannot_stand_in_an_address_gets_the_new_chat_address() {
        for id in [
            "",
            "a/b",
            "a:b",
            "a.b",
            "日本",
            &"x".repeat(MAX_ID_CHARS + 1),
        ] {
            assert_eq!(path_of(Some(id)), "/", "{id:?}");
        }
    }
}
