//! Listing a provider's models: the request path for each protocol and a parser for each
//! answer shape (OpenAI and compatible `{data: [{id}]}`, Anthropic `{data: [{id,
//! display_name}]}`, Gemini `{models: [{name, inputTokenLimit, …}]}`). What a listing
//! does not say stays unknown (`None`), never zero; users can edit it per model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Protocol;
use super::request::{Endpoint, ModelCapabilities, RequestError, api_base};

/// The most models kept from one listing.
pub const MAX_MODELS: usize = 2000;

/// One model as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// The id to send in requests.
    pub id: String,
    /// A display name, if the provider gives one.
    pub display_name: Option<String>,
    /// What the listing tells about the model's abilities and limits.
    pub capabilities: ModelCapabilities,
}

/// A listing that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelListError {
    /// The body is not JSON.
    #[error("the model list is not JSON")]
    NotJson,
    /// The JSON has no model array where the protocol puts it.
    #[error("the model list has no `{0}` array")]
    MissingList(&'static str),
}

/// The URL that lists `endpoint`'s models.
pub fn list_url(endpoint: &Endpoint) -> Result<String, RequestError> {
    let base = api_base(endpoint)?;
    Ok(match endpoint.protocol {
        Protocol::OpenAiChat | Protocol::OpenAiResponses => format!("{base}/models"),
        Protocol::Anthropic => format!("{base}/models?limit=1000"),
        Protocol::Gemini => format!("{base}/models?pageSize=1000"),
    })
}

/// Parses a listing body.
pub fn parse_list(protocol: Protocol, body: &str) -> Result<Vec<ModelInfo>, ModelListError> {
    let value: Value = serde_json::from_str(body).map_err(|_| ModelListError::NotJson)?;
    let (key, entries) = match protocol {
        Protocol::Gemini => ("models", value.get("models")),
        _ => ("data", value.get("data")),
    };
    let entries = entries
        .and_then(Value::as_array)
        .ok_or(ModelListError::MissingList(key))?;
    let mut models: Vec<ModelInfo> = entries
        .iter()
        .filter_map(|entry| match protocol {
            Protocol::Gemini => gemini_model(entry),
            _ => {
                let id = entry["id"].as_str()?.trim();
                (!id.is_empty()).then(|| ModelInfo {
                    id: id.to_string(),
                    display_name: entry["display_name"].as_str().map(str::to_string),
                    capabilities: ModelCapabilities {
                        // OpenRouter-style listings say what a model takes.
                        tools: lists(&entry["supported_parameters"], "tools"),
                        reasoning: lists(&entry["supported_parameters"], "reasoning"),
                        vision: lists(&entry["architecture"]["input_modalities"], "image"),
                        context_window: positive(&entry["context_length"])
                            .or_else(|| positive(&entry["max_input_tokens"])),
                        max_output_tokens: positive(&entry["max_tokens"]),
                    },
                })
            }
        })
        .take(MAX_MODELS)
        .collect();
    models.sort_by(|a, b| a.id.cmp(&b.id));
    models.dedup_by(|a, b| a.id == b.id);
    Ok(models)
}

/// Whether `value` is an array holding the string `item`.
fn lists(value: &Value, item: &str) -> bool {
    value
        .as_array()
        .is_some_and(|items| items.iter().any(|i| i == item))
}

fn positive(value: &Value) -> Option<u64> {
    value.as_u64().filter(|n| *n > 0)
}

fn gemini_model(entry: &Value) -> Option<ModelInfo> {
    let name = entry["name"].as_str()?;
    let generates = entry["supportedGenerationMethods"]
        .as_array()
        .is_none_or(|methods| methods.iter().any(|m| m == "generateContent"));
    if !generates {
        return None;
    }
    Some(ModelInfo {
        id: name.strip_prefix("models/").unwrap_or(name).to_string(),
        display_name: entry["displayName"].as_str().map(str::to_string),
        capabilities: ModelCapabilities {
            reasoning: entry["thinking"].as_bool().unwrap_or(false),
            context_window: positive(&entry["inputTokenLimit"]),
            max_output_tokens: positive(&entry["outputTokenLimit"]),
            ..ModelCapabilities::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_openrouter_listing_says_which_models_take_tools_images_and_reasoning() {
        let body = r#"{"data": [
            {"id": "a/tools", "supported_parameters": ["tools", "tool_choice", "reasoning"],
             "architecture": {"input_modalities": ["text", "image"]}},
            {"id": "b/plain", "supported_parameters": ["temperature"]},
            {"id": "c/odd", "supported_parameters": "tools"}
        ]}"#;
        let models = parse_list(Protocol::OpenAiChat, body).unwrap();
        let caps: Vec<(bool, bool, bool)> = models
            .iter()
            .map(|m| {
                (
                    m.capabilities.tools,
                    m.capabilities.vision,
                    m.capabilities.reasoning,
                )
            })
            .collect();
        assert_eq!(
            caps,
            [
                (true, true, true),
                (false, false, false),
                (false, false, false)
            ]
        );
    }

    #[test]
    fn openai_and_compatible_listings() {
        let body = r#"{"object":"list","data":[
            {"id":"gpt-4.1","object":"model","owned_by":"openai"},
            {"id":"llama3.1:8b","object":"model","context_length":131072},
            {"id":"  "},{"id":"gpt-4.1"},{"object":"model"}]}"#;
        let models = parse_list(Protocol::OpenAiChat, body).unwrap();
        assert_eq!(models.len(), 2);
        assert_eq!(models[0].id, "gpt-4.1");
        assert_eq!(
            models[0].capabilities.context_window, None,
            "unknown, not zero"
        );
        assert_eq!(models[1].capabilities.context_window, Some(131_072));
    }

    #[test]
    fn anthropic_listing() {
        let body = r#"{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"}],"has_more":false}"#;
        let models = parse_list(Protocol::Anthropic, body).unwrap();
        assert_eq!(models[0].display_name.as_deref(), Some("Claude Sonnet 4.5"));
    }

    #[test]
    fn gemini_listing_keeps_generators_with_their_limits() {
        let body = r#"{"models":[
            {"name":"models/gemini-2.5-flash","displayName":"Gemini 2.5 Flash","inputTokenLimit":1048576,"outputTokenLimit":65536,"supportedGenerationMethods":["generateContent","countTokens"],"thinking":true},
            {"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}]}"#;
        let models = parse_list(Protocol::Gemini, body).unwrap();
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].id, "gemini-2.5-flash");
        assert_eq!(models[0].capabilities.context_window, Some(1_048_576));
        assert_eq!(models[0].capabilities.max_output_tokens, Some(65_536));
        assert!(models[0].capabilities.reasoning);
    }

    #[test]
    fn unreadable_listings_are_typed_errors() {
        assert_eq!(
            parse_list(Protocol::OpenAiChat, "<html>"),
            Err(ModelListError::NotJson)
        );
        assert_eq!(
            parse_list(Protocol::Gemini, r#"{"data":[]}"#),
            Err(ModelListError::MissingList("models"))
        );
        for base in ["https://api.anthropic.com", "https://api.anthropic.com/v1/"] {
            let endpoint = Endpoint {
                protocol: Protocol::Anthropic,
                base_url: base.into(),
                compatible: false,
            };
            assert_eq!(
                list_url(&endpoint).unwrap(),
                "https://api.anthropic.com/v1/models?limit=1000"
            );
        }
        let bad = Endpoint {
            protocol: Protocol::OpenAiChat,
            base_url: "https://x/v1?key=secret".into(),
            compatible: true,
        };
        assert_eq!(list_url(&bad), Err(RequestError::InvalidBaseUrl));
    }
}
