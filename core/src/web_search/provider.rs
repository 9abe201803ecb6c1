//! The search services' documented wire formats: the request that asks one of them a
//! query ([`request`]), where its key goes ([`key_header`]: always a header, never the
//! URL, so no log or redirect carries it), and its answer read into [`WebResult`]s
//! ([`read_answer`]). Pure: the edge sends the request through its checked client.
//!
//! - SearXNG: `GET <instance>/search?q=…&format=json` → `{results: [{url, title, content,
//!   publishedDate}]}`; an instance without JSON output answers 403.
//! - Brave: `GET /res/v1/web/search?q=…&count=…`, `X-Subscription-Token` →
//!   `{web: {results: [{title, url, description, age}]}}` (no `web` when nothing matched;
//!   titles and descriptions carry `<strong>`).
//! - Tavily: `POST /search {query, max_results, search_depth}`, `Authorization: Bearer` →
//!   `{results: [{title, url, content, published_date}]}`.
//! - Exa: `POST /search {query, type, numResults, contents: {highlights}}`, `x-api-key` →
//!   `{results: [{title, url, publishedDate, highlights, text}]}` (`title` may be null).
//! - Google Programmable Search: `GET /customsearch/v1?cx=…&q=…&num=…`,
//!   `x-goog-api-key` → `{items: [{title, link, snippet}]}` (no `items` when nothing
//!   matched).

use serde_json::{Value, json};
use url::Url;

use super::{MAX_RESULTS, SearchProviderKind, WebResult, WebSearchError};

/// Characters of highlights asked of Exa for each result.
const EXA_HIGHLIGHT_CHARS: usize = 1_000;

/// The API each hosted service answers at; SearXNG has none (the user names an
/// instance).
pub fn default_base(kind: SearchProviderKind) -> Option<&'static str> {
    match kind {
        SearchProviderKind::Searxng => None,
        SearchProviderKind::Brave => Some("https://api.search.brave.com"),
        SearchProviderKind::Tavily => Some("https://api.tavily.com"),
        SearchProviderKind::Exa => Some("https://api.exa.ai"),
        SearchProviderKind::Google => Some("https://www.googleapis.com"),
    }
}

/// What to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query<'a> {
    /// The query, already checked ([`super::checked_query`]).
    pub text: &'a str,
    /// How many results to ask for (1 to [`MAX_RESULTS`]).
    pub count: usize,
    /// The user's language (`en`, `zh-CN`), for services that take one.
    pub language: Option<&'a str>,
    /// Google's search engine id (`cx`); the other services take none.
    pub engine_id: Option<&'a str>,
}

/// An HTTP method a service is asked with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`, the query in the URL.
    Get,
    /// `POST`, the query in a JSON body.
    Post,
}

/// One request to a service, without its key.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderRequest {
    /// The method.
    pub method: Method,
    /// The whole URL, query string included.
    pub url: String,
    /// The JSON body of a `POST`.
    pub body: Option<Value>,
}

/// Why a request could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// The base URL is not an absolute `http(s)` URL.
    #[error("`{0}` is not an http(s) URL")]
    BadBase(String),
    /// Google was asked without a search engine id.
    #[error("Google Programmable Search needs a search engine id (cx)")]
    MissingEngineId,
}

/// The request asking `kind` at `base` (its API root, or the SearXNG instance).
pub fn request(
    kind: SearchProviderKind,
    base: &str,
    query: &Query<'_>,
) -> Result<ProviderRequest, RequestError> {
    let count = query.count.clamp(1, MAX_RESULTS);
    let endpoint = |path: &str| endpoint(base, path);
    let made = match kind {
        SearchProviderKind::Searxng => {
            let mut url = endpoint("search")?;
            url.query_pairs_mut()
                .append_pair("q", query.text)
                .append_pair("format", "json");
            if let Some(language) = query.language {
                url.query_pairs_mut().append_pair("language", language);
            }
            get(url)
        }
        SearchProviderKind::Brave => {
            let mut url = endpoint("res/v1/web/search")?;
            url.query_pairs_mut()
                .append_pair("q", query.text)
                .append_pair("count", &count.to_string());
            get(url)
        }
        SearchProviderKind::Tavily => post(
            endpoint("search")?,
            json!({"query": query.text, "max_results": count, "search_depth": "basic"}),
        ),
        SearchProviderKind::Exa => post(
            endpoint("search")?,
            json!({
                "query": query.text,
                "type": "auto",
                "numResults": count,
                "contents": {"highlights": {"maxCharacters": EXA_HIGHLIGHT_CHARS}},
            }),
        ),
        SearchProviderKind::Google => {
            let engine_id = query
                .engine_id
                .filter(|id| !id.trim().is_empty())
                .ok_or(RequestError::MissingEngineId)?;
            let mut url = endpoint("customsearch/v1")?;
            url.query_pairs_mut()
                .append_pair("cx", engine_id.trim())
                .append_pair("q", query.text)
                .append_pair("num", &count.to_string());
            if let Some(language) = query.language {
                url.query_pairs_mut().append_pair("hl", language);
            }
            get(url)
        }
    };
    Ok(made)
}

fn get(url: Url) -> ProviderRequest {
    ProviderRequest {
        method: Method::Get,
        url: url.into(),
        body: None,
    }
}

fn post(url: Url, body: Value) -> ProviderRequest {
    ProviderRequest {
        method: Method::Post,
        url: url.into(),
        body: Some(body),
    }
}

/// `base` with `path` appended below it (a base with a path of its own keeps it: a
/// SearXNG served under `/searx/`).
fn endpoint(base: &str, path: &str) -> Result<Url, RequestError> {
    let bad = || RequestError::BadBase(base.to_string());
    let mut url = Url::parse(base.trim()).map_err(|_| bad())?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(bad());
    }
    url.set_query(None);
    url.set_fragment(None);
    if !url.path().ends_with('/') {
        let with_slash = format!("{}/", url.path());
        url.set_path(&with_slash);
    }
    url.join(path).map_err(|_| bad())
}

/// The header carrying `key` for `kind`, with its value; `None` for a service that
/// takes no key.
pub fn key_header(kind: SearchProviderKind, key: &str) -> Option<(&'static str, String)> {
    let key = key.trim();
    match kind {
        SearchProviderKind::Searxng => None,
        SearchProviderKind::Brave => Some(("x-subscription-token", key.to_string())),
        SearchProviderKind::Tavily => Some(("authorization", format!("Bearer {key}"))),
        SearchProviderKind::Exa => Some(("x-api-key", key.to_string())),
        SearchProviderKind::Google => Some(("x-goog-api-key", key.to_string())),
    }
}

/// The results of `kind`'s answer (`status`, `body`), at most `count`, each page once.
pub fn read_answer(
    kind: SearchProviderKind,
    status: u16,
    body: &[u8],
    count: usize,
) -> Result<Vec<WebResult>, WebSearchError> {
    match status {
        200..=299 => {}
        403 if kind == SearchProviderKind::Searxng => return Err(WebSearchError::JsonDisabled),
        401 | 403 => return Err(WebSearchError::KeyRefused(status)),
        429 => return Err(WebSearchError::RateLimited),
        _ => return Err(WebSearchError::Upstream(status)),
    }
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        WebSearchError::Malformed(format!(
            "not JSON (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    if !value.is_object() {
        return Err(WebSearchError::Malformed("not a JSON object".into()));
    }
    let (list, fields) = match kind {
        SearchProviderKind::Searxng => (&value["results"], Fields::SEARXNG),
        SearchProviderKind::Brave => (&value["web"]["results"], Fields::BRAVE),
        SearchProviderKind::Tavily => (&value["results"], Fields::TAVILY),
        SearchProviderKind::Exa => (&value["results"], Fields::EXA),
        SearchProviderKind::Google => (&value["items"], Fields::GOOGLE),
    };
    let items = match list {
        Value::Array(items) => items.as_slice(),
        // Brave leaves `web` out and Google `items` when nothing matched.
        Value::Null if matches!(kind, SearchProviderKind::Brave | SearchProviderKind::Google) => {
            &[]
        }
        _ => {
            return Err(WebSearchError::Malformed(format!(
                "no `{}` list",
                fields.list_name
            )));
        }
    };
    let mut results: Vec<WebResult> = Vec::new();
    for item in items {
        if results.len() >= count.clamp(1, MAX_RESULTS) {
            break;
        }
        let text = |name: &str| item[name].as_str().unwrap_or_default();
        let snippet = match kind {
            SearchProviderKind::Exa => exa_snippet(item),
            _ => text(fields.snippet).to_string(),
        };
        let published = fields.published.and_then(|name| item[name].as_str());
        let Some(result) =
            WebResult::clean(text(fields.title), text(fields.url), &snippet, published)
        else {
            continue;
        };
        if results.iter().all(|r| r.url != result.url) {
            results.push(result);
        }
    }
    Ok(results)
}

/// Where one service keeps a result's fields.
struct Fields {
    list_name: &'static str,
    title: &'static str,
    url: &'static str,
    snippet: &'static str,
    published: Option<&'static str>,
}

impl Fields {
    const SEARXNG: Self = Self {
        list_name: "results",
        title: "title",
        url: "url",
        snippet: "content",
        published: Some("publishedDate"),
    };
    const BRAVE: Self = Self {
        list_name: "web.results",
        title: "title",
        url: "url",
        snippet: "description",
        published: Some("age"),
    };
    const TAVILY: Self = Self {
        list_name: "results",
        title: "title",
        url: "url",
        snippet: "content",
        published: Some("published_date"),
    };
    const EXA: Self = Self {
        list_name: "results",
        title: "title",
        url: "url",
        snippet: "",
        published: Some("publishedDate"),
    };
    const GOOGLE: Self = Self {
        list_name: "items",
        title: "title",
        url: "link",
        snippet: "snippet",
        published: None,
    };
}

/// Exa's highlights joined, else the start of its text, else its summary.
fn exa_snippet(item: &Value) -> String {
    let highlights: Vec<&str> = item["highlights"]
        .as_array()
        .map(|all| all.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !highlights.is_empty() {
        return highlights.join(" … ");
    }
    ["text", "summary"]
        .into_iter()
        .find_map(|name| item[name].as_str().filter(|t| !t.trim().is_empty()))
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests;
