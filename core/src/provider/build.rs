//! One streamed model request for a provider: the checks every protocol shares (the API
//! root, a model id that cannot reach another path, at least one message), then the
//! protocol's own body, built beside its stream parser (`openai_chat::request`,
//! `openai_responses::request`, `anthropic::request`, `gemini::request`) from the
//! protocol-neutral types of `provider::request`.

use super::request::{
    BuiltRequest, ChatRequest, Context, Endpoint, ModelCapabilities, RequestError, api_base,
};
use super::{Protocol, anthropic, gemini, openai_chat, openai_responses};

/// Builds the streamed request for `request` on `endpoint`.
pub fn build(
    endpoint: &Endpoint,
    request: &ChatRequest,
    capabilities: &ModelCapabilities,
) -> Result<BuiltRequest, RequestError> {
    let base = api_base(endpoint)?;
    let base = base.as_str();
    let model = request.model.trim();
    let model_ok = !model.is_empty()
        && model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/' | '@'));
    if !model_ok || model.contains("..") {
        return Err(RequestError::InvalidModel(request.model.clone()));
    }
    if request.messages.is_empty() {
        return Err(RequestError::NoMessages);
    }
    let mut context = Context {
        capabilities,
        omitted_images: 0,
    };
    let (url, body) = match endpoint.protocol {
        Protocol::OpenAiChat => openai_chat::request::build(&mut context, base, endpoint, request),
        Protocol::OpenAiResponses => {
            openai_responses::request::build(&mut context, base, endpoint, request)
        }
        Protocol::Anthropic => anthropic::request::build(&mut context, base, endpoint, request),
        Protocol::Gemini => gemini::request::build(&mut context, base, endpoint, request),
    };
    Ok(BuiltRequest {
        url,
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("accept".into(), "text/event-stream".into()),
        ],
        body,
        omitted_images: context.omitted_images,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::request::fixtures::*;

    #[test]
    fn effort_is_only_sent_when_the_user_set_it() {
        let mut request = conversation();
        request.reasoning_effort = None;
        for protocol in [
            Protocol::OpenAiChat,
            Protocol::OpenAiResponses,
            Protocol::Anthropic,
            Protocol::Gemini,
        ] {
            let built = build(
                &endpoint(protocol, "https://x.example/v1", true),
                &request,
                &FULL,
            )
            .unwrap();
            let text = built.body.to_string();
            for needle in ["reasoning", "thinking", "effort"] {
                assert!(!text.contains(needle), "{protocol:?} sent {needle}: {text}");
            }
        }
    }

    #[test]
    fn the_providers_own_search_is_its_own_tool_beside_the_functions() {
        let mut request = conversation();
        request.web_search = true;
        let body = |request: &ChatRequest, protocol, capabilities: &ModelCapabilities| {
            build(
                &endpoint(protocol, "https://x.example/v1", false),
                request,
                capabilities,
            )
            .unwrap()
            .body
        };
        // OpenAI Responses: the `web_search` tool after the functions.
        let responses = body(&request, Protocol::OpenAiResponses, &FULL);
        let tools = responses["tools"].as_array().unwrap();
        assert_eq!(
            tools.last().unwrap(),
            &serde_json::json!({"type": "web_search"})
        );
        assert!(tools.len() > 1, "{responses}");
        // Anthropic: its versioned server tool, at most four searches.
        let anthropic = body(&request, Protocol::Anthropic, &FULL);
        let search = anthropic["tools"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(search["type"], "web_search_20250305");
        assert_eq!(search["max_uses"], 4);
        // Gemini: Google Search grounding as a tool of its own.
        let gemini = body(&request, Protocol::Gemini, &FULL);
        assert_eq!(
            gemini["tools"].as_array().unwrap().last().unwrap(),
            &serde_json::json!({"google_search": {}})
        );
        // A model without function tools still gets the search.
        let plain = ModelCapabilities {
            tools: false,
            ..FULL
        };
        assert_eq!(
            body(&request, Protocol::OpenAiResponses, &plain)["tools"],
            serde_json::json!([{"type": "web_search"}])
        );
        // Off: no search tool anywhere.
        request.web_search = false;
        for protocol in [
            Protocol::OpenAiResponses,
            Protocol::Anthropic,
            Protocol::Gemini,
        ] {
            let text = body(&request, protocol, &FULL).to_string();
            assert!(
                !text.contains("web_search") && !text.contains("google_search"),
                "{text}"
            );
        }
        assert!(Protocol::Gemini.searches_itself());
        assert!(!Protocol::OpenAiChat.searches_itself());
    }

    #[test]
    fn invalid_inputs_are_typed_errors() {
        let request = conversation();
        assert_eq!(
            build(
                &endpoint(Protocol::OpenAiChat, "ftp://x", false),
                &request,
                &FULL
            ),
            Err(RequestError::InvalidBaseUrl)
        );
        for model in ["", "a b", "../../admin", "m?key=1", "m#x"] {
            let mut bad = conversation();
            bad.model = model.into();
            assert!(
                matches!(
                    build(&endpoint(Protocol::Gemini, "https://x", false), &bad, &FULL),
                    Err(RequestError::InvalidModel(_))
                ),
                "{model:?}"
            );
        }
        let mut empty = conversation();
        empty.messages.clear();
        assert_eq!(
            build(
                &endpoint(Protocol::OpenAiChat, "https://x", false),
                &empty,
                &FULL
            ),
            Err(RequestError::NoMessages)
        );
    }
}
