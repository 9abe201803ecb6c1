//! The kinds of provider a user can add (OpenAI, Anthropic, Gemini, OpenAI Responses, an
//! OpenAI-compatible server), what each one means on the wire (its [`Protocol`], its
//! usual base URL, whether it needs a key), and the rules a provider's settings must
//! meet before they are saved ([`validate`], one typed [`Problem`] per field problem, which
//! the app words in the user's language).
//!
//! Stored settings name a kind by its serde name (`openai`, `openai-responses`,
//! `anthropic`, `gemini`, `compatible`), which is also its form value ([`ProviderKind::slug`]).

use serde::{Deserialize, Serialize};

use super::Protocol;
use super::request::{Endpoint, api_base};

/// The longest provider name, in characters.
pub const MAX_NAME_CHARS: usize = 60;

/// The kinds of provider a user can add.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// OpenAI (Chat Completions).
    Openai,
    /// OpenAI (Responses API).
    OpenaiResponses,
    /// Anthropic.
    Anthropic,
    /// Google Gemini.
    Gemini,
    /// An OpenAI-compatible server (Ollama, llama.cpp, vLLM, LocalAI, OpenRouter…).
    Compatible,
}

impl ProviderKind {
    /// Every kind, in menu order.
    pub const ALL: [ProviderKind; 5] = [
        Self::Openai,
        Self::Anthropic,
        Self::Gemini,
        Self::OpenaiResponses,
        Self::Compatible,
    ];

    /// The wire protocol and whether it is a compatible server.
    pub fn protocol(self) -> (Protocol, bool) {
        match self {
            Self::Openai => (Protocol::OpenAiChat, false),
            Self::OpenaiResponses => (Protocol::OpenAiResponses, false),
            Self::Anthropic => (Protocol::Anthropic, false),
            Self::Gemini => (Protocol::Gemini, false),
            Self::Compatible => (Protocol::OpenAiChat, true),
        }
    }

    /// The kind a provider speaking `protocol` is shown as when nothing else is known
    /// (an operator's provider on the edge): OpenAI Chat means a compatible server.
    pub fn for_protocol(protocol: Protocol) -> Self {
        match protocol {
            Protocol::OpenAiChat => Self::Compatible,
            Protocol::OpenAiResponses => Self::OpenaiResponses,
            Protocol::Anthropic => Self::Anthropic,
            Protocol::Gemini => Self::Gemini,
        }
    }

    /// Where a provider of this kind at `base_url` is called, and in which dialect.
    pub fn endpoint(self, base_url: &str) -> Endpoint {
        let (protocol, compatible) = self.protocol();
        Endpoint {
            protocol,
            base_url: base_url.to_string(),
            compatible,
        }
    }

    /// The usual base URL.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Openai | Self::OpenaiResponses => "https://api.openai.com/v1",
            Self::Anthropic => "https://api.anthropic.com",
            Self::Gemini => "https://generativelanguage.googleapis.com/v1beta",
            Self::Compatible => "http://127.0.0.1:11434/v1",
        }
    }

    /// Whether a key is required.
    pub fn needs_key(self) -> bool {
        self != Self::Compatible
    }

    /// The value used in forms (the serde name).
    pub fn slug(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::OpenaiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::Compatible => "compatible",
        }
    }

    /// The kind for a form value.
    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.slug() == slug)
    }
}

/// A provider's settings as a form holds them, before they are saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderDraft<'a> {
    /// The kind.
    pub kind: ProviderKind,
    /// The display name, as typed.
    pub name: &'a str,
    /// The base URL, as typed.
    pub base_url: &'a str,
    /// A new key, as typed (empty: none, or keep the saved one).
    pub api_key: &'a str,
    /// Whether a key is already saved for this provider (editing one).
    pub has_saved_key: bool,
}

/// A form field of a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The name.
    Name,
    /// The base URL.
    BaseUrl,
    /// The key.
    ApiKey,
}

/// One thing wrong with a [`ProviderDraft`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Problem {
    /// The name is empty (or only spaces).
    NameMissing,
    /// The name is longer than [`MAX_NAME_CHARS`].
    NameTooLong,
    /// The base URL is not an `http(s)://` root a request can be built on.
    BaseUrlInvalid,
    /// The kind needs a key and none is given or saved.
    KeyMissing,
}

impl Problem {
    /// The field the problem is in.
    pub fn field(self) -> Field {
        match self {
            Self::NameMissing | Self::NameTooLong => Field::Name,
            Self::BaseUrlInvalid => Field::BaseUrl,
            Self::KeyMissing => Field::ApiKey,
        }
    }
}

/// The problems with `draft`, in field order (name, base URL, key); empty when it may be
/// saved.
pub fn validate(draft: &ProviderDraft<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let name = draft.name.trim();
    if name.is_empty() {
        problems.push(Problem::NameMissing);
    } else if name.chars().count() > MAX_NAME_CHARS {
        problems.push(Problem::NameTooLong);
    }
    let endpoint = draft.kind.endpoint(draft.base_url.trim());
    if api_base(&endpoint).is_err() || endpoint.base_url.len() < "http://x".len() {
        problems.push(Problem::BaseUrlInvalid);
    }
    if draft.kind.needs_key() && draft.api_key.trim().is_empty() && !draft.has_saved_key {
        problems.push(Problem::KeyMissing);
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft<'a>(
        kind: ProviderKind,
        name: &'a str,
        url: &'a str,
        key: &'a str,
    ) -> ProviderDraft<'a> {
        ProviderDraft {
            kind,
            name,
            base_url: url,
            api_key: key,
            has_saved_key: false,
        }
    }

    #[test]
    fn kinds_round_trip_through_their_slugs_which_are_their_stored_names() {
        for kind in ProviderKind::ALL {
            assert_eq!(ProviderKind::from_slug(kind.slug()), Some(kind));
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.slug()),
                "stored settings keep their names"
            );
            assert_eq!(
                serde_json::from_value::<ProviderKind>(serde_json::json!(kind.slug())).unwrap(),
                kind
            );
        }
        assert_eq!(ProviderKind::from_slug("openai-chat"), None);
    }

    #[test]
    fn each_kind_speaks_its_protocol_and_only_compatible_servers_go_without_a_key() {
        assert_eq!(
            ProviderKind::Openai.protocol(),
            (Protocol::OpenAiChat, false)
        );
        assert_eq!(
            ProviderKind::Compatible.protocol(),
            (Protocol::OpenAiChat, true)
        );
        for kind in ProviderKind::ALL {
            assert_eq!(kind.needs_key(), kind != ProviderKind::Compatible);
            let endpoint = kind.endpoint(kind.default_base_url());
            assert!(api_base(&endpoint).is_ok(), "{kind:?}");
            if kind != ProviderKind::Openai {
                assert_eq!(ProviderKind::for_protocol(kind.protocol().0), kind);
            }
        }
        assert_eq!(
            ProviderKind::for_protocol(Protocol::OpenAiChat),
            ProviderKind::Compatible
        );
    }

    #[test]
    fn a_complete_draft_has_no_problems() {
        let openai = draft(
            ProviderKind::Openai,
            "Work",
            "https://api.openai.com/v1",
            "sk-1",
        );
        assert_eq!(validate(&openai), []);
        let ollama = draft(
            ProviderKind::Compatible,
            "Ollama",
            "http://127.0.0.1:11434/v1",
            "",
        );
        assert_eq!(validate(&ollama), [], "a compatible server needs no key");
    }

    #[test]
    fn the_name_is_required_and_bounded() {
        let url = "https://a.b/v1";
        for blank in ["", "   "] {
            assert_eq!(
                validate(&draft(ProviderKind::Openai, blank, url, "k")),
                [Problem::NameMissing]
            );
        }
        let longest = "n".repeat(MAX_NAME_CHARS);
        assert_eq!(
            validate(&draft(ProviderKind::Openai, &longest, url, "k")),
            []
        );
        let long = "n".repeat(MAX_NAME_CHARS + 1);
        assert_eq!(
            validate(&draft(ProviderKind::Openai, &long, url, "k")),
            [Problem::NameTooLong]
        );
        // Characters, not bytes.
        let wide = "名".repeat(MAX_NAME_CHARS);
        assert_eq!(validate(&draft(ProviderKind::Openai, &wide, url, "k")), []);
    }

    #[test]
    fn the_base_url_must_be_an_http_root() {
        for bad in [
            "",
            "ftp://x",
            "api.openai.com/v1",
            "http://",
            "https://a.b/v1?key=1",
            "https://a.b/v1#x",
        ] {
            assert_eq!(
                validate(&draft(ProviderKind::Openai, "x", bad, "k")),
                [Problem::BaseUrlInvalid],
                "{bad:?}"
            );
        }
        assert_eq!(
            validate(&draft(
                ProviderKind::Openai,
                "x",
                "  https://a.b/v1/  ",
                "k"
            )),
            [],
            "spaces and a trailing slash are fine"
        );
    }

    #[test]
    fn a_key_is_required_unless_one_is_saved_or_the_kind_needs_none() {
        for kind in ProviderKind::ALL {
            let mut without = draft(kind, "x", kind.default_base_url(), "  ");
            let expected: &[Problem] = if kind.needs_key() {
                &[Problem::KeyMissing]
            } else {
                &[]
            };
            assert_eq!(validate(&without), expected, "{kind:?}");
            without.has_saved_key = true;
            assert_eq!(
                validate(&without),
                [],
                "{kind:?}: editing keeps the saved key"
            );
        }
    }

    #[test]
    fn every_problem_is_reported_in_field_order() {
        let problems = validate(&draft(ProviderKind::Anthropic, " ", "ftp://x", ""));
        assert_eq!(
            problems,
            [
                Problem::NameMissing,
                Problem::BaseUrlInvalid,
                Problem::KeyMissing
            ]
        );
        let fields: Vec<Field> = problems.iter().map(|p| p.field()).collect();
        assert_eq!(fields, [Field::Name, Field::BaseUrl, Field::ApiKey]);
        assert_eq!(Problem::NameTooLong.field(), Field::Name);
    }
}
