//! `POST /api/search`: one web search through the edge, with the deployment's service
//! ("Default Search") or one of the user's own (its key sealed for `search:<kind>`, or a
//! SearXNG instance URL checked by the edge's URL policy). Every field is bounded
//! ([`WebSearchRequest::check_bounds`]); the answer is the cleaned results.

use serde::{Deserialize, Serialize};

use super::relay_bounds::BoundError;
use crate::byok::Envelope;
use crate::web_search::{MAX_RESULTS, SearchProviderKind, WebResult, checked_query};

/// Longest SearXNG URL, in characters.
pub const MAX_URL_CHARS: usize = 2_048;
/// Longest Google engine id, in characters.
pub const MAX_ENGINE_ID_CHARS: usize = 128;
/// Longest language tag, in characters.
pub const MAX_LANGUAGE_CHARS: usize = 16;

/// Which service to ask.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", deny_unknown_fields)]
pub enum SearchService {
    /// The deployment's own.
    #[serde(rename = "default")]
    Default,
    /// A SearXNG instance.
    #[serde(rename = "searxng", rename_all = "camelCase")]
    Searxng {
        /// Its URL.
        base_url: String,
    },
    /// A keyed service (Brave, Tavily, Exa).
    #[serde(rename = "keyed", rename_all = "camelCase")]
    Keyed {
        /// Which.
        provider: SearchProviderKind,
        /// Its key, sealed for `search:<provider>`.
        api_key: Envelope,
    },
    /// Google Programmable Search.
    #[serde(rename = "google", rename_all = "camelCase")]
    Google {
        /// Its key, sealed for `search:google`.
        api_key: Envelope,
        /// The search engine id (`cx`).
        engine_id: String,
    },
}

/// The body of `POST /api/search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WebSearchRequest {
    /// The service.
    pub service: SearchService,
    /// The query (1 to [`crate::web_search::MAX_QUERY_CHARS`] characters of words).
    pub query: String,
    /// How many results (1 to [`MAX_RESULTS`]; default
    /// [`crate::web_search::DEFAULT_RESULTS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u8>,
    /// The user's language (`en`, `zh-CN`), for services that take one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// The answer of `POST /api/search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebSearchResponse {
    /// The service that answered.
    pub provider: SearchProviderKind,
    /// The query as sent.
    pub query: String,
    /// What it found, each page once.
    pub results: Vec<WebResult>,
}

impl WebSearchRequest {
    /// The count asked for, within bounds.
    pub fn count(&self) -> usize {
        self.count
            .map_or(crate::web_search::DEFAULT_RESULTS, usize::from)
            .clamp(1, MAX_RESULTS)
    }

    /// Checks every field's bound.
    pub fn check_bounds(&self) -> Result<(), BoundError> {
        let refuse = |field: &str, problem: String| BoundError {
            field: field.into(),
            problem,
        };
        if checked_query(&self.query).is_none() {
            return Err(refuse(
                "query",
                format!(
                    "must be 1 to {} characters of words",
                    crate::web_search::MAX_QUERY_CHARS
                ),
            ));
        }
        if let Some(count) = self.count
            && !(1..=MAX_RESULTS).contains(&usize::from(count))
        {
            return Err(refuse("count", format!("must be 1 to {MAX_RESULTS}")));
        }
        if let Some(language) = &self.language
            && (language.is_empty()
                || language.len() > MAX_LANGUAGE_CHARS
                || !language
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-'))
        {
            return Err(refuse(
                "language",
                format!("must be a language tag of at most {MAX_LANGUAGE_CHARS} characters"),
            ));
        }
        match &self.service {
            SearchService::Default => {}
            SearchService::Searxng { base_url } => {
                if base_url.trim().is_empty() || base_url.chars().count() > MAX_URL_CHARS {
                    return Err(refuse(
                        "service.baseUrl",
                        format!("must be 1 to {MAX_URL_CHARS} characters"),
                    ));
                }
            }
            SearchService::Keyed { provider, .. } => {
                if !matches!(
                    provider,
                    SearchProviderKind::Brave
                        | SearchProviderKind::Tavily
                        | SearchProviderKind::Exa
                ) {
                    return Err(refuse(
                        "service.provider",
                        "must be brave, tavily or exa".into(),
                    ));
                }
            }
            SearchService::Google { engine_id, .. } => {
                let id = engine_id.trim();
                if id.is_empty()
                    || id.len() > MAX_ENGINE_ID_CHARS
                    || !id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-'))
                {
                    return Err(refuse(
                        "service.engineId",
                        format!(
                            "must be a search engine id of 1 to {MAX_ENGINE_ID_CHARS} letters, \
                             digits, `:`, `_` or `-`"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn envelope() -> serde_json::Value {
        json!({"v":1,"kid":"k","alg":"RSA-OAEP-256+A256GCM","iv":"a","wrappedKey":"b",
               "ciphertext":"c","context":"search:brave"})
    }

    fn parse(value: serde_json::Value) -> Result<WebSearchRequest, serde_json::Error> {
        serde_json::from_value(value)
    }

    #[test]
    fn each_service_reads_from_its_wire_form() {
        let default = parse(json!({"service": {"kind": "default"}, "query": "q"})).unwrap();
        assert_eq!(default.service, SearchService::Default);
        assert_eq!(default.count(), crate::web_search::DEFAULT_RESULTS);
        let searx = parse(
            json!({"service": {"kind": "searxng", "baseUrl": "http://s"},
            "query": "q", "count": 3, "language": "zh-CN"}),
        )
        .unwrap();
        assert!(matches!(searx.service, SearchService::Searxng { .. }));
        assert_eq!(searx.count(), 3);
        let keyed = parse(json!({"service": {"kind": "keyed", "provider": "brave",
            "apiKey": envelope()}, "query": "q"}))
        .unwrap();
        assert!(keyed.check_bounds().is_ok());
        let google = parse(json!({"service": {"kind": "google", "apiKey": envelope(),
            "engineId": "0123:abc"}, "query": "q"}))
        .unwrap();
        assert!(google.check_bounds().is_ok());
    }

    #[test]
    fn unknown_fields_and_plain_keys_are_refused() {
        assert!(parse(json!({"service": {"kind": "default"}, "query": "q", "x": 1})).is_err());
        assert!(
            parse(json!({"service": {"kind": "keyed", "provider": "brave",
                "apiKey": "BSA-plain"}, "query": "q"}))
            .is_err()
        );
        assert!(parse(json!({"service": {"kind": "bing"}, "query": "q"})).is_err());
    }

    #[test]
    fn every_field_is_bounded() {
        let base = |service: serde_json::Value, extra: serde_json::Value| {
            let mut body = json!({"service": service, "query": "q"});
            for (k, v) in extra.as_object().unwrap() {
                body[k] = v.clone();
            }
            parse(body).unwrap().check_bounds().map_err(|e| e.field)
        };
        let default = json!({"kind": "default"});
        assert_eq!(
            base(default.clone(), json!({"query": "  "})),
            Err("query".into())
        );
        assert_eq!(
            base(default.clone(), json!({"query": "x".repeat(401)})),
            Err("query".into())
        );
        assert_eq!(
            base(default.clone(), json!({"count": 0})),
            Err("count".into())
        );
        assert_eq!(
            base(default.clone(), json!({"count": 11})),
            Err("count".into())
        );
        assert_eq!(base(default.clone(), json!({"count": 10})), Ok(()));
        assert_eq!(
            base(default.clone(), json!({"language": "en\"><x"})),
            Err("language".into())
        );
        assert_eq!(
            base(json!({"kind": "searxng", "baseUrl": ""}), json!({})),
            Err("service.baseUrl".into())
        );
        assert_eq!(
            base(
                json!({"kind": "keyed", "provider": "searxng", "apiKey": envelope()}),
                json!({})
            ),
            Err("service.provider".into())
        );
        assert_eq!(
            base(
                json!({"kind": "google", "apiKey": envelope(), "engineId": "a b"}),
                json!({})
            ),
            Err("service.engineId".into())
        );
    }
}
