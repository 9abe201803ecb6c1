//! The user's web search settings, kept as one document of the browser's settings store:
//! the service chosen, the composer's switch, a SearXNG instance, a Google engine id and
//! how many results a search asks for. Keys are not here: they are sealed in the vault.

use serde::{Deserialize, Serialize};

use super::capability::{SearchChoice, SearchSetup};
use super::{DEFAULT_RESULTS, MAX_QUERY_CHARS, MAX_RESULTS, SearchProviderKind};

/// The longest SearXNG URL or engine id kept, in characters.
pub const MAX_FIELD_CHARS: usize = 2_048;

/// The settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WebSearchSettings {
    /// The service replies search with.
    pub choice: SearchChoice,
    /// The composer's switch: whether replies search now.
    pub enabled: bool,
    /// The SearXNG instance's URL.
    pub searxng_url: String,
    /// Google Programmable Search's engine id.
    pub google_engine_id: String,
    /// Results a search asks for (1 to [`MAX_RESULTS`]).
    pub results: u8,
}

impl Default for WebSearchSettings {
    fn default() -> Self {
        Self {
            choice: SearchChoice::Off,
            enabled: true,
            searxng_url: String::new(),
            google_engine_id: String::new(),
            results: DEFAULT_RESULTS as u8,
        }
    }
}

impl WebSearchSettings {
    /// A stored record made to keep the rules: fields trimmed and bounded, the count
    /// within range.
    pub fn repaired(mut self) -> Self {
        let bound = |text: &str| {
            text.trim()
                .chars()
                .take(MAX_FIELD_CHARS)
                .collect::<String>()
        };
        self.searxng_url = bound(&self.searxng_url);
        self.google_engine_id = bound(&self.google_engine_id);
        self.results = self.results.clamp(1, MAX_RESULTS as u8);
        self
    }

    /// What the resolver needs, given which services' keys are saved.
    pub fn setup(&self, saved_keys: impl IntoIterator<Item = SearchProviderKind>) -> SearchSetup {
        SearchSetup {
            choice: self.choice,
            searxng_url: self.searxng_url.clone(),
            google_engine_id: self.google_engine_id.clone(),
            saved_keys: saved_keys.into_iter().collect(),
        }
    }
}

/// The query a reply searches for before the model is asked: the question itself,
/// whitespace collapsed, cut at a word within [`MAX_QUERY_CHARS`]. `None` for a
/// question with no words.
pub fn question_query(question: &str) -> Option<String> {
    let words: Vec<&str> = question.split_whitespace().collect();
    let mut query = String::new();
    for word in words {
        let next = query.chars().count() + usize::from(!query.is_empty()) + word.chars().count();
        if next > MAX_QUERY_CHARS {
            if query.is_empty() {
                // One enormous word: its start.
                query = word.chars().take(MAX_QUERY_CHARS).collect();
            }
            break;
        }
        if !query.is_empty() {
            query.push(' ');
        }
        query.push_str(word);
    }
    (!query.is_empty()).then_some(query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_setup_searches_with_nothing_until_a_service_is_chosen() {
        let settings = WebSearchSettings::default();
        assert_eq!(settings.choice, SearchChoice::Off);
        assert!(settings.enabled);
        // An empty stored record reads as the default.
        let read: WebSearchSettings = serde_json::from_str("{}").unwrap();
        assert_eq!(read, settings);
    }

    #[test]
    fn a_stored_record_is_repaired() {
        let stored = WebSearchSettings {
            searxng_url: "  http://s.local  ".into(),
            google_engine_id: "x".repeat(MAX_FIELD_CHARS + 5),
            results: 0,
            ..WebSearchSettings::default()
        }
        .repaired();
        assert_eq!(stored.searxng_url, "http://s.local");
        assert_eq!(stored.google_engine_id.chars().count(), MAX_FIELD_CHARS);
        assert_eq!(stored.results, 1);
        let many = WebSearchSettings {
            results: 99,
            ..WebSearchSettings::default()
        };
        assert_eq!(many.repaired().results, MAX_RESULTS as u8);
    }

    #[test]
    fn the_choice_is_stored_by_name() {
        let settings = WebSearchSettings {
            choice: SearchChoice::Provider(SearchProviderKind::Brave),
            ..WebSearchSettings::default()
        };
        let value = serde_json::to_value(&settings).unwrap();
        assert_eq!(
            value["choice"],
            serde_json::json!({"kind": "provider", "provider": "brave"})
        );
        let setup = settings.setup([SearchProviderKind::Brave]);
        assert!(setup.saved_keys.contains(&SearchProviderKind::Brave));
    }

    #[test]
    fn the_question_becomes_a_bounded_query() {
        assert_eq!(
            question_query("  What is the\n tide  today? ").as_deref(),
            Some("What is the tide today?")
        );
        assert_eq!(question_query(" \n "), None);
        let long = "word ".repeat(200);
        let query = question_query(&long).unwrap();
        assert!(query.chars().count() <= MAX_QUERY_CHARS);
        assert!(query.ends_with("word"));
        let one = "x".repeat(1000);
        assert_eq!(
            question_query(&one).unwrap().chars().count(),
            MAX_QUERY_CHARS
        );
    }
}
