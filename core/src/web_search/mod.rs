//! Web search: the search services Hearth can ask and their documented wire formats
//! ([`provider`]), what one search answers ([`WebResult`]: bounded, cleaned of markup,
//! and data for the model, never instructions), the limits of one turn's searching
//! ([`policy`]), and the one resolver that says whether search works and through what,
//! for the settings, the composer, a request's preflight and the edge's health alike
//! ([`capability`]); the user's settings ([`settings`]) and what a reply keeps of its
//! searches ([`record`]).

pub mod capability;
pub mod policy;
pub mod provider;
pub mod record;
pub mod settings;

use serde::{Deserialize, Serialize};

use crate::html_text::html_text;
use crate::safe_url::web_host;

/// The most results one search gives back.
pub const MAX_RESULTS: usize = 10;
/// How many results a search asks for when the caller does not say.
pub const DEFAULT_RESULTS: usize = 5;
/// The longest query sent, in characters (after trimming).
pub const MAX_QUERY_CHARS: usize = 400;
/// The most characters of a result's title kept.
pub const MAX_TITLE_CHARS: usize = 300;
/// The most characters of a result's snippet kept.
pub const MAX_SNIPPET_CHARS: usize = 1_000;
/// The longest result URL kept.
pub const MAX_URL_CHARS: usize = 2_048;

/// A search service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchProviderKind {
    /// A SearXNG instance (usually self-hosted), its JSON output enabled.
    Searxng,
    /// Brave Search API.
    Brave,
    /// Tavily.
    Tavily,
    /// Exa.
    Exa,
    /// Google Programmable Search (Custom Search JSON API) with a search engine id.
    Google,
}

impl SearchProviderKind {
    /// Every kind, in the order settings list them.
    pub const ALL: [Self; 5] = [
        Self::Searxng,
        Self::Brave,
        Self::Tavily,
        Self::Exa,
        Self::Google,
    ];

    /// The wire and configuration spelling (`searxng`, `brave`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Searxng => "searxng",
            Self::Brave => "brave",
            Self::Tavily => "tavily",
            Self::Exa => "exa",
            Self::Google => "google",
        }
    }

    /// Whether it needs an API key (SearXNG needs a URL instead).
    pub fn needs_key(self) -> bool {
        !matches!(self, Self::Searxng)
    }

    /// The BYOK envelope context of its key: `search:<kind>`.
    pub fn key_context(self) -> String {
        crate::byok::context::search(self.as_str())
    }
}

impl std::str::FromStr for SearchProviderKind {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let value = value.trim().to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == value)
            .ok_or_else(|| {
                format!(
                    "unknown search provider `{value}`; expected one of searxng, brave, \
                     tavily, exa, google"
                )
            })
    }
}

/// One page a search found. Everything in it came from a third party: it is shown
/// through the sanitising renderer and given to the model as quoted data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebResult {
    /// The page's title, plain text.
    pub title: String,
    /// The page (`http(s)` only).
    pub url: String,
    /// What the service quotes of the page, plain text (may be empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snippet: String,
    /// When the page was published, as the service wrote it (may be absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

impl WebResult {
    /// A result from a service's raw fields: markup and entities turned into text,
    /// whitespace collapsed, each field cut to its bound. `None` when the URL is not an
    /// `http(s)` address with a host, or too long.
    pub fn clean(title: &str, url: &str, snippet: &str, published: Option<&str>) -> Option<Self> {
        let url = url.trim();
        if url.chars().count() > MAX_URL_CHARS || web_host(url).is_none() {
            return None;
        }
        let published = published.map(|p| plain(p, 64)).filter(|p| !p.is_empty());
        Some(Self {
            title: plain(title, MAX_TITLE_CHARS),
            url: url.to_string(),
            snippet: plain(snippet, MAX_SNIPPET_CHARS),
            published,
        })
    }
}

/// `text` (which may hold markup, as Brave's and SearXNG's snippets do) as plain text
/// of at most `max` characters, whitespace collapsed; a cut ends with `…`.
fn plain(text: &str, max: usize) -> String {
    let text = if text.contains('<') || text.contains('&') {
        html_text(text)
    } else {
        text.to_string()
    };
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if words.chars().count() <= max {
        return words;
    }
    let mut cut: String = words.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Why a search failed. Each has a stable code the app renders in the user's language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebSearchError {
    /// The service refused the key (HTTP 401 or 403).
    #[error("the search service refused the key (HTTP {0})")]
    KeyRefused(u16),
    /// The service says too many searches were made (HTTP 429).
    #[error("the search service is rate limiting these searches")]
    RateLimited,
    /// A SearXNG instance answered 403 to `format=json`: its JSON output is off.
    #[error(
        "this SearXNG instance does not allow JSON output (enable `json` in its search.formats)"
    )]
    JsonDisabled,
    /// The service failed (another status).
    #[error("the search service answered HTTP {0}")]
    Upstream(u16),
    /// The answer is not the service's documented JSON.
    #[error("the search service's answer could not be read: {0}")]
    Malformed(String),
}

impl WebSearchError {
    /// The stable code of this failure (`SEARCH_KEY_REFUSED`, …).
    pub fn code(&self) -> &'static str {
        match self {
            Self::KeyRefused(_) => "SEARCH_KEY_REFUSED",
            Self::RateLimited => "SEARCH_RATE_LIMITED",
            Self::JsonDisabled => "SEARCH_JSON_DISABLED",
            Self::Upstream(_) => "SEARCH_UPSTREAM_FAILED",
            Self::Malformed(_) => "SEARCH_ANSWER_MALFORMED",
        }
    }
}

/// A query as sent: trimmed, whitespace collapsed, at most [`MAX_QUERY_CHARS`]. `None`
/// for a query with no words or a longer one (a model's paragraph is not a query).
pub fn checked_query(query: &str) -> Option<String> {
    let query = query.split_whitespace().collect::<Vec<_>>().join(" ");
    (!query.is_empty() && query.chars().count() <= MAX_QUERY_CHARS).then_some(query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_and_unknown_ones_are_named() {
        for kind in SearchProviderKind::ALL {
            assert_eq!(kind.as_str().parse::<SearchProviderKind>(), Ok(kind));
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.as_str())
            );
        }
        assert_eq!(" Brave ".parse(), Ok(SearchProviderKind::Brave));
        let err = "bing".parse::<SearchProviderKind>().unwrap_err();
        assert!(err.contains("bing") && err.contains("searxng"), "{err}");
        assert_eq!(SearchProviderKind::Exa.key_context(), "search:exa");
        assert!(!SearchProviderKind::Searxng.needs_key());
        assert!(SearchProviderKind::Google.needs_key());
    }

    #[test]
    fn a_result_is_plain_text_within_bounds() {
        let result = WebResult::clean(
            " Tides &amp; <b>moon</b> ",
            " https://sea.example/tides ",
            "High tide at <strong>noon</strong>\n\n  today",
            Some(" 2 days ago "),
        )
        .unwrap();
        assert_eq!(result.title, "Tides & moon");
        assert_eq!(result.url, "https://sea.example/tides");
        assert_eq!(result.snippet, "High tide at noon today");
        assert_eq!(result.published.as_deref(), Some("2 days ago"));

        let long = WebResult::clean(
            &"t".repeat(400),
            "https://a.example/",
            &"s ".repeat(900),
            None,
        )
        .unwrap();
        assert_eq!(long.title.chars().count(), MAX_TITLE_CHARS);
        assert!(long.title.ends_with('…'));
        assert_eq!(long.snippet.chars().count(), MAX_SNIPPET_CHARS);
        assert_eq!(long.published, None);
    }

    #[test]
    fn a_result_without_a_web_address_is_dropped() {
        for url in [
            "javascript:alert(1)",
            "data:text/html,<script>",
            "ftp://files.example/",
            "/relative",
            "",
        ] {
            assert_eq!(WebResult::clean("t", url, "", None), None, "{url}");
        }
        let long = format!("https://a.example/{}", "x".repeat(MAX_URL_CHARS));
        assert_eq!(WebResult::clean("t", &long, "", None), None);
    }

    #[test]
    fn queries_are_collapsed_and_bounded() {
        assert_eq!(
            checked_query("  rust\n wasm  ").as_deref(),
            Some("rust wasm")
        );
        assert_eq!(checked_query(" \n\t "), None);
        assert!(checked_query(&"a".repeat(MAX_QUERY_CHARS)).is_some());
        assert_eq!(checked_query(&"a".repeat(MAX_QUERY_CHARS + 1)), None);
    }

    #[test]
    fn every_failure_has_its_own_code() {
        let all = [
            WebSearchError::KeyRefused(401),
            WebSearchError::RateLimited,
            WebSearchError::JsonDisabled,
            WebSearchError::Upstream(500),
            WebSearchError::Malformed("x".into()),
        ];
        let codes: std::collections::BTreeSet<_> = all.iter().map(|e| e.code()).collect();
        assert_eq!(codes.len(), all.len());
    }
}
