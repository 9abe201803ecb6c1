//! A conversation's model fallback policy: which model answers when the chosen one
//! fails.
//!
//! - **Pinned** (the default): only the chosen model.
//! - **Resilient**: the chosen model first; on a transient failure (unreachable, timed
//!   out, rate limited, unavailable) before anything of the reply arrived, the
//!   conversation's alternatives in their order.
//! - **Adaptive**: as resilient, and a model that failed transiently in the last few
//!   minutes is tried after those that did not (so a reply may start on an
//!   alternative).
//!
//! Every alternative must be on the same side as the chosen model: a model on this
//! machine or network ([`Locality::Local`]) never falls back to one on the internet, nor
//! the other way, so private context never leaves for a remote provider unexpectedly.
//! Refusals (authentication, a bad or too large request, content rules, an unknown
//! model, a context that does not fit) never fail over: another model would be refused
//! alike, or the user must act. The model that answered and why is kept on the reply
//! ([`FallbackRecord`]).

use serde::{Deserialize, Serialize};

use super::error::{ErrorCode, GenerationError};
use crate::preferences::ModelRef;

/// The most alternatives a conversation names.
pub const MAX_ALTERNATIVES: usize = 3;
/// How long a transient failure counts against a model for the adaptive policy, in ms.
pub const RECENT_FAILURE_MS: f64 = 5.0 * 60_000.0;

/// Which models may answer a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FallbackPolicy {
    /// Only the chosen model.
    #[default]
    Pinned,
    /// The chosen model, then the alternatives on a transient failure.
    Resilient,
    /// As resilient, models that failed lately tried last.
    Adaptive,
}

/// A conversation's policy and its alternatives, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Fallback {
    /// The policy.
    pub policy: FallbackPolicy,
    /// The models that may answer instead, in the order they are tried.
    pub models: Vec<ModelRef>,
}

impl Fallback {
    /// The setting as it may be kept: each model once, at most [`MAX_ALTERNATIVES`].
    pub fn repaired(mut self) -> Self {
        let mut seen: Vec<ModelRef> = Vec::new();
        self.models.retain(|m| {
            let fresh = !m.model.is_empty() && !seen.contains(m);
            seen.push(m.clone());
            fresh
        });
        self.models.truncate(MAX_ALTERNATIVES);
        self
    }
}

/// Which side of the network a provider is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Locality {
    /// This machine or its private network (`localhost`, loopback, RFC 1918, `.local`).
    Local,
    /// Anywhere else, and a provider the deployment runs (its address is not ours to
    /// know).
    Remote,
}

/// The side a provider at `base_url` is on (`server_side`: the deployment's provider,
/// whose address the browser does not see).
pub fn locality(base_url: &str, server_side: bool) -> Locality {
    if server_side {
        return Locality::Remote;
    }
    let Ok(url) = url::Url::parse(base_url.trim()) else {
        return Locality::Remote;
    };
    let local = match url.host() {
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost") || name.ends_with(".local")
        }
        Some(url::Host::Ipv4(ip)) => {
            let class = crate::url_policy::classify(ip.into());
            class.is_private_network()
        }
        Some(url::Host::Ipv6(ip)) => {
            let class = crate::url_policy::classify(ip.into());
            class.is_private_network()
        }
        None => false,
    };
    if local {
        Locality::Local
    } else {
        Locality::Remote
    }
}

/// Whether `error` may be answered by another model: a transient failure of the
/// provider, never a refusal.
pub fn fails_over(error: &GenerationError) -> bool {
    matches!(
        error.code,
        ErrorCode::ProviderUnreachable
            | ErrorCode::Timeout
            | ErrorCode::RateLimited
            | ErrorCode::ProviderUnavailable
            | ErrorCode::ResponseTimeout
            | ErrorCode::StreamInterrupted
    )
}

/// A model that may answer, and its side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The model.
    pub model: ModelRef,
    /// Its provider's side.
    pub locality: Locality,
}

/// The models to try for a reply, in order, under `policy`: `chosen` and the
/// `alternatives` on its side (each once); `failed_lately` says which failed
/// transiently a moment ago (the adaptive policy tries them last).
pub fn order(
    policy: FallbackPolicy,
    chosen: &Candidate,
    alternatives: &[Candidate],
    failed_lately: impl Fn(&ModelRef) -> bool,
) -> Vec<ModelRef> {
    let mut models = vec![chosen.model.clone()];
    if policy == FallbackPolicy::Pinned {
        return models;
    }
    for alternative in alternatives {
        if alternative.locality == chosen.locality && !models.contains(&alternative.model) {
            models.push(alternative.model.clone());
        }
    }
    if policy == FallbackPolicy::Adaptive {
        // A stable sort: the user's order stands among the healthy and among the rest.
        models.sort_by_key(|m| failed_lately(m));
    }
    models
}

/// What a reply keeps when another model answered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FallbackRecord {
    /// The model the conversation had chosen.
    pub from: ModelRef,
    /// Why it did not answer (`None`: it failed a moment before, so it was not asked).
    pub reason: Option<GenerationError>,
}

impl Fallback {
    /// The setting a conversation keeps (`None` or unreadable: pinned).
    pub fn decode(text: Option<&str>) -> Self {
        text.and_then(|t| serde_json::from_str::<Self>(t).ok())
            .map(Self::repaired)
            .unwrap_or_default()
    }

    /// The setting as a conversation keeps it (`None` for the default).
    pub fn encode(&self) -> Option<String> {
        (*self != Self::default())
            .then(|| serde_json::to_string(self).ok())
            .flatten()
    }
}

impl FallbackRecord {
    /// The record a reply keeps, if any.
    pub fn decode(text: Option<&str>) -> Option<Self> {
        serde_json::from_str(text?).ok()
    }

    /// As a reply keeps it.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str) -> ModelRef {
        ModelRef {
            provider_id: format!("p-{id}"),
            model: id.into(),
        }
    }

    fn candidate(id: &str, locality: Locality) -> Candidate {
        Candidate {
            model: model(id),
            locality,
        }
    }

    #[test]
    fn pinned_asks_only_the_chosen_model_and_the_others_go_in_the_users_order() {
        let chosen = candidate("a", Locality::Remote);
        let others = [
            candidate("b", Locality::Remote),
            candidate("a", Locality::Remote),
            candidate("c", Locality::Remote),
        ];
        assert_eq!(
            order(FallbackPolicy::Pinned, &chosen, &others, |_| false),
            [model("a")]
        );
        assert_eq!(
            order(FallbackPolicy::Resilient, &chosen, &others, |_| false),
            [model("a"), model("b"), model("c")]
        );
    }

    #[test]
    fn a_model_never_falls_back_across_the_network_boundary() {
        let local = candidate("llama", Locality::Local);
        let others = [
            candidate("gpt", Locality::Remote),
            candidate("qwen", Locality::Local),
        ];
        assert_eq!(
            order(FallbackPolicy::Resilient, &local, &others, |_| false),
            [model("llama"), model("qwen")]
        );
        let remote = candidate("gpt", Locality::Remote);
        assert_eq!(
            order(FallbackPolicy::Adaptive, &remote, &others[1..], |_| false),
            [model("gpt")]
        );
    }

    #[test]
    fn adaptive_tries_models_that_failed_lately_last() {
        let chosen = candidate("a", Locality::Remote);
        let others = [
            candidate("b", Locality::Remote),
            candidate("c", Locality::Remote),
        ];
        let failed = |m: &ModelRef| m.model == "a" || m.model == "b";
        assert_eq!(
            order(FallbackPolicy::Adaptive, &chosen, &others, failed),
            [model("c"), model("a"), model("b")]
        );
        // Resilient keeps its order whatever failed.
        assert_eq!(
            order(FallbackPolicy::Resilient, &chosen, &others, failed),
            [model("a"), model("b"), model("c")]
        );
    }

    #[test]
    fn only_transient_failures_fail_over() {
        let over = [
            GenerationError::from_http_status(503, None),
            GenerationError::from_http_status(500, None),
            GenerationError::from_http_status(429, None),
            GenerationError::from_http_status(504, None),
            GenerationError::provider_unreachable(None),
            GenerationError::response_timeout(30),
            GenerationError::stream_interrupted(),
        ];
        for error in over {
            assert!(fails_over(&error), "{error:?}");
        }
        let refused = [
            GenerationError::from_http_status(401, None),
            GenerationError::from_http_status(403, None),
            GenerationError::from_http_status(404, None),
            GenerationError::from_http_status(400, None),
            GenerationError::from_http_status(413, None),
            GenerationError::provider_error("content policy"),
            GenerationError::offline(),
            GenerationError::context(&crate::context::ContextError::BudgetExceeded {
                needed: 10,
                available: 5,
            }),
        ];
        for error in refused {
            assert!(!fails_over(&error), "{error:?}");
        }
    }

    #[test]
    fn a_provider_is_local_by_its_address_and_the_deployments_are_remote() {
        for url in [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080",
            "http://[::1]:8000",
            "http://192.168.1.20:1234/v1",
            "http://10.0.0.5",
            "http://gpu-box.local:8000",
            "http://ollama.localhost",
        ] {
            assert_eq!(locality(url, false), Locality::Local, "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "https://8.8.8.8",
            "not a url",
            "http://169.254.169.254",
        ] {
            assert_eq!(locality(url, false), Locality::Remote, "{url}");
        }
        assert_eq!(locality("http://localhost:1", true), Locality::Remote);
    }

    #[test]
    fn a_setting_keeps_each_model_once_and_at_most_three() {
        let kept = Fallback {
            policy: FallbackPolicy::Resilient,
            models: vec![model("a"), model("a"), model("b"), model("c"), model("d")],
        }
        .repaired();
        assert_eq!(kept.models, [model("a"), model("b"), model("c")]);
        let json = serde_json::to_value(&kept).unwrap();
        assert_eq!(json["policy"], "resilient");
        assert_eq!(Fallback::decode(kept.encode().as_deref()), kept);
        assert_eq!(Fallback::default().encode(), None);
        assert_eq!(Fallback::decode(Some("{broken")), Fallback::default());
        let record = FallbackRecord {
            from: model("a"),
            reason: Some(GenerationError::from_http_status(503, None)),
        };
        assert_eq!(FallbackRecord::decode(Some(&record.encode())), Some(record));
    }
}
