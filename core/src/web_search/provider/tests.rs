//! Each service's request and answer, as its documentation writes them.

use serde_json::json;

use super::*;

fn query(text: &str) -> Query<'_> {
    Query {
        text,
        count: 3,
        language: None,
        engine_id: None,
    }
}

fn read(kind: SearchProviderKind, body: Value) -> Result<Vec<WebResult>, WebSearchError> {
    read_answer(kind, 200, body.to_string().as_bytes(), 5)
}

#[test]
fn searxng_is_asked_below_the_instance_path_for_json() {
    let asked = request(
        SearchProviderKind::Searxng,
        "http://127.0.0.1:8888/searx?x=1#top",
        &Query {
            language: Some("zh-CN"),
            ..query("rust & wasm")
        },
    )
    .unwrap();
    assert_eq!(asked.method, Method::Get);
    assert_eq!(
        asked.url,
        "http://127.0.0.1:8888/searx/search?q=rust+%26+wasm&format=json&language=zh-CN"
    );
    assert_eq!(asked.body, None);
    assert_eq!(key_header(SearchProviderKind::Searxng, "k"), None);
}

#[test]
fn brave_takes_a_count_and_its_token_in_a_header() {
    let asked = request(
        SearchProviderKind::Brave,
        "https://api.search.brave.com",
        &query("tides"),
    )
    .unwrap();
    assert_eq!(
        asked.url,
        "https://api.search.brave.com/res/v1/web/search?q=tides&count=3"
    );
    assert_eq!(
        key_header(SearchProviderKind::Brave, " BSA1 "),
        Some(("x-subscription-token", "BSA1".into()))
    );
}

#[test]
fn tavily_and_exa_are_posted_json() {
    let tavily = request(
        SearchProviderKind::Tavily,
        "https://api.tavily.com/",
        &query("q"),
    )
    .unwrap();
    assert_eq!(tavily.method, Method::Post);
    assert_eq!(tavily.url, "https://api.tavily.com/search");
    assert_eq!(
        tavily.body,
        Some(json!({"query": "q", "max_results": 3, "search_depth": "basic"}))
    );
    assert_eq!(
        key_header(SearchProviderKind::Tavily, "tvly-1"),
        Some(("authorization", "Bearer tvly-1".into()))
    );
    let exa = request(SearchProviderKind::Exa, "https://api.exa.ai", &query("q")).unwrap();
    assert_eq!(exa.url, "https://api.exa.ai/search");
    assert_eq!(exa.body.as_ref().unwrap()["numResults"], 3);
    assert_eq!(
        exa.body.as_ref().unwrap()["contents"]["highlights"]["maxCharacters"],
        1000
    );
    assert_eq!(
        key_header(SearchProviderKind::Exa, "e").unwrap().0,
        "x-api-key"
    );
}

#[test]
fn google_needs_its_engine_id_and_never_puts_the_key_in_the_url() {
    assert_eq!(
        request(
            SearchProviderKind::Google,
            "https://www.googleapis.com",
            &query("q")
        ),
        Err(RequestError::MissingEngineId)
    );
    let asked = request(
        SearchProviderKind::Google,
        "https://www.googleapis.com",
        &Query {
            engine_id: Some("0123:abc"),
            language: Some("ja"),
            count: 40,
            ..query("東京 天気")
        },
    )
    .unwrap();
    assert_eq!(
        asked.url,
        "https://www.googleapis.com/customsearch/v1?cx=0123%3Aabc&q=%E6%9D%B1%E4%BA%AC+%E5%A4%A9%E6%B0%97&num=10&hl=ja"
    );
    assert!(!asked.url.contains("key="));
    assert_eq!(
        key_header(SearchProviderKind::Google, "AIza").unwrap().0,
        "x-goog-api-key"
    );
}

#[test]
fn a_base_that_is_not_a_web_url_is_refused() {
    for base in [
        "",
        "searx.example",
        "file:///etc",
        "javascript:x",
        "ftp://a.example",
    ] {
        assert!(
            matches!(
                request(SearchProviderKind::Searxng, base, &query("q")),
                Err(RequestError::BadBase(_))
            ),
            "{base}"
        );
    }
}

#[test]
fn each_services_answer_is_read_into_clean_results() {
    let searx = read(
        SearchProviderKind::Searxng,
        json!({"query": "q", "number_of_results": 0, "results": [
            {"url": "https://a.example/", "title": "A", "content": "about <b>a</b>",
             "engine": "duckduckgo", "publishedDate": "2026-11-30T00:00:00"},
            {"url": "https://b.example/", "title": "B", "content": "", "engine": "wikipedia"}
        ], "answers": [], "suggestions": []}),
    )
    .unwrap();
    assert_eq!(searx.len(), 2);
    assert_eq!(searx[0].snippet, "about a");
    assert_eq!(searx[0].published.as_deref(), Some("2026-11-30T00:00:00"));

    let brave = read(
        SearchProviderKind::Brave,
        json!({"type": "search", "query": {"original": "q"}, "web": {"type": "search", "results": [
            {"title": "The <strong>tides</strong>", "url": "https://sea.example/",
             "description": "High <strong>tide</strong> at noon", "age": "2 days ago",
             "profile": {"name": "Sea"}, "meta_url": {"hostname": "sea.example"}}
        ]}}),
    )
    .unwrap();
    assert_eq!(brave[0].title, "The tides");
    assert_eq!(brave[0].snippet, "High tide at noon");
    assert_eq!(brave[0].published.as_deref(), Some("2 days ago"));

    let tavily = read(
        SearchProviderKind::Tavily,
        json!({"query": "q", "answer": null, "images": [], "response_time": 1.2, "results": [
            {"title": "T", "url": "https://t.example/", "content": "tavily text", "score": 0.9,
             "raw_content": null}
        ]}),
    )
    .unwrap();
    assert_eq!(tavily[0].snippet, "tavily text");

    let exa = read(
        SearchProviderKind::Exa,
        json!({"requestId": "r", "resolvedSearchType": "neural", "results": [
            {"id": "https://e.example/1", "title": null, "url": "https://e.example/1",
             "publishedDate": "2026-01-02T00:00:00.000Z", "author": null,
             "highlights": ["first part", "second part"], "highlightScores": [0.5, 0.4]},
            {"id": "x", "title": "Only text", "url": "https://e.example/2", "text": "the page"}
        ]}),
    )
    .unwrap();
    assert_eq!(exa[0].title, "");
    assert_eq!(exa[0].snippet, "first part … second part");
    assert_eq!(exa[1].snippet, "the page");

    let google = read(
        SearchProviderKind::Google,
        json!({"kind": "customsearch#search", "searchInformation": {"totalResults": "1"},
            "items": [{"kind": "customsearch#result", "title": "G", "link": "https://g.example/",
                "displayLink": "g.example", "snippet": "google\nsnippet"}]}),
    )
    .unwrap();
    assert_eq!(google[0].url, "https://g.example/");
    assert_eq!(google[0].snippet, "google snippet");
}

#[test]
fn nothing_found_is_an_empty_list_not_a_failure() {
    assert_eq!(
        read(
            SearchProviderKind::Brave,
            json!({"type": "search", "query": {}})
        ),
        Ok(vec![])
    );
    assert_eq!(
        read(
            SearchProviderKind::Google,
            json!({"searchInformation": {"totalResults": "0"}})
        ),
        Ok(vec![])
    );
    assert_eq!(
        read(SearchProviderKind::Tavily, json!({"results": []})),
        Ok(vec![])
    );
}

#[test]
fn results_are_bounded_deduplicated_and_unsafe_links_dropped() {
    let mut items: Vec<Value> = (0..30)
        .map(|i| json!({"url": format!("https://r.example/{}", i % 12), "title": i}))
        .collect();
    items.insert(0, json!({"url": "javascript:alert(1)", "title": "x"}));
    items.insert(1, json!({"title": "no url"}));
    let body = json!({ "results": items }).to_string();
    let results = read_answer(SearchProviderKind::Searxng, 200, body.as_bytes(), 50).unwrap();
    assert_eq!(results.len(), MAX_RESULTS);
    let urls: std::collections::BTreeSet<_> = results.iter().map(|r| &r.url).collect();
    assert_eq!(urls.len(), MAX_RESULTS);
    assert!(
        results
            .iter()
            .all(|r| r.url.starts_with("https://r.example/"))
    );
    let two = read_answer(SearchProviderKind::Searxng, 200, body.as_bytes(), 2).unwrap();
    assert_eq!(two.len(), 2);
}

#[test]
fn failures_are_typed_by_status_and_shape() {
    let read_status = |kind, status| read_answer(kind, status, b"{}", 5);
    assert_eq!(
        read_status(SearchProviderKind::Brave, 401),
        Err(WebSearchError::KeyRefused(401))
    );
    assert_eq!(
        read_status(SearchProviderKind::Google, 403),
        Err(WebSearchError::KeyRefused(403))
    );
    assert_eq!(
        read_status(SearchProviderKind::Searxng, 403),
        Err(WebSearchError::JsonDisabled)
    );
    assert_eq!(
        read_status(SearchProviderKind::Exa, 429),
        Err(WebSearchError::RateLimited)
    );
    assert_eq!(
        read_status(SearchProviderKind::Tavily, 500),
        Err(WebSearchError::Upstream(500))
    );
    for (kind, body) in [
        (SearchProviderKind::Searxng, "<html>"),
        (SearchProviderKind::Searxng, "[]"),
        (SearchProviderKind::Searxng, "{}"),
        (SearchProviderKind::Tavily, r#"{"results": {"a": 1}}"#),
        (SearchProviderKind::Brave, r#"{"web": {"results": 3}}"#),
    ] {
        assert!(
            matches!(
                read_answer(kind, 200, body.as_bytes(), 5),
                Err(WebSearchError::Malformed(_))
            ),
            "{kind:?} {body}"
        );
    }
}
