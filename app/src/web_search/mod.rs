//! Web search in the app: the user's settings (one settings document, `web-search`,
//! read the first time the composer's switch, Settings › Web search or a reply needs
//! it), each service's key (sealed in the vault under `local:search:<kind>:api-key`),
//! the one resolution of whether a reply can search (`hearth_core::web_search::
//! capability` over the settings, the saved keys and the edge's `/api/config`), and one
//! search through the edge (`POST /api/search`, a key sealed for `search:<kind>`).
//! Every failure is a stable code ([`Failure`]) a reply's search block renders in the
//! user's language ([`describe`]).

use hearth_core::api::web_search::{SearchService, WebSearchRequest, WebSearchResponse};
use hearth_core::web_search::SearchProviderKind;
use hearth_core::web_search::capability::{self, Missing, Offered, Route};
use hearth_core::web_search::settings::WebSearchSettings;
use leptos::prelude::*;

use crate::edge::EdgeError;
use crate::envelope::{self, EdgeKeyRefusal, SealError};
use crate::i18n::{I18n, Key};
use crate::storage::document::{DocumentCell, SettingsDocument};

thread_local! {
    /// The settings, once read; owned by no component, so the first screen builds nothing.
    static SETTINGS: DocumentCell<WebSearchSettings> = DocumentCell::default();
}

/// The settings' document.
static DOCUMENT: SettingsDocument<WebSearchSettings> = SettingsDocument {
    key: "web-search",
    channel: "hearth-web-search",
    cell: &SETTINGS,
    repair: WebSearchSettings::repaired,
};

/// The local storage entry that says a search service is chosen in this browser, so the
/// first screen reads no settings document for a feature nobody set up.
pub const CHOSEN_KEY: &str = "hearth.webSearch";

/// Whether a search service is chosen in this browser (without reading the settings).
pub fn chosen_here() -> bool {
    crate::browser::local_storage_get(CHOSEN_KEY).is_some()
}

/// The settings, once read (`None` until then); reading it in a view tracks it.
pub fn value() -> ArcRwSignal<Option<WebSearchSettings>> {
    DOCUMENT.value()
}

/// The settings, read the first time.
pub async fn settings() -> Result<WebSearchSettings, String> {
    DOCUMENT
        .ensure_loaded::<()>()
        .await
        .map_err(|error| format!("{error:?}"))
}

/// Changes the settings (stored, then shown, then told to other tabs).
pub async fn change(edit: impl FnOnce(&mut WebSearchSettings)) -> Result<(), String> {
    let chosen = DOCUMENT
        .change::<bool, ()>(move |settings| {
            edit(settings);
            *settings = settings.clone().repaired();
            Ok(settings.choice != hearth_core::web_search::capability::SearchChoice::Off)
        })
        .await
        .map_err(|error| format!("{error:?}"))?;
    // Other tabs' switches hear this through the `storage` event.
    if chosen {
        crate::browser::local_storage_set(CHOSEN_KEY, "1");
    } else {
        crate::browser::local_storage_remove(CHOSEN_KEY);
    }
    Ok(())
}

/// Takes the settings an import carries (`value`), when this browser has chosen no
/// service: its own choice wins. Keys never travel: a keyed service asks for its key
/// again here.
pub async fn adopt(value: serde_json::Value) -> Result<(), String> {
    let incoming: WebSearchSettings =
        serde_json::from_value(value).map_err(|error| error.to_string())?;
    change(move |settings| {
        if settings.choice == hearth_core::web_search::capability::SearchChoice::Off {
            *settings = incoming;
        }
    })
    .await
}

/// The settings for an export: `None` when no service is chosen.
pub async fn for_export() -> Result<Option<serde_json::Value>, String> {
    let settings = settings().await?;
    Ok(
        (settings.choice != hearth_core::web_search::capability::SearchChoice::Off)
            .then(|| serde_json::to_value(&settings).ok())
            .flatten(),
    )
}

/// The vault context of `kind`'s key.
pub fn key_context(kind: SearchProviderKind) -> String {
    format!("local:search:{}:api-key", kind.as_str())
}

/// Seals `key` for `kind` in the vault (a blank key forgets it).
pub async fn save_key(kind: SearchProviderKind, key: &str) -> Result<(), String> {
    crate::vault::save_service_key(&key_context(kind), key).await?;
    // The switch and the settings read the saved keys again.
    DOCUMENT
        .change::<(), ()>(|_| Ok(()))
        .await
        .map_err(|error| format!("{error:?}"))
}

/// `kind`'s key as shown to the user (masked), if one is saved.
pub async fn masked_key(kind: SearchProviderKind) -> Option<String> {
    crate::vault::masked_service_key(&key_context(kind)).await
}

async fn key(kind: SearchProviderKind) -> Result<Option<String>, String> {
    crate::vault::service_key(&key_context(kind)).await
}

/// The services whose key is saved.
pub async fn saved_keys() -> Vec<SearchProviderKind> {
    let Ok(vault) = crate::vault::opened().await else {
        return Vec::new();
    };
    let mut saved = Vec::new();
    for kind in SearchProviderKind::ALL
        .into_iter()
        .filter(|k| k.needs_key())
    {
        if matches!(vault.load(&key_context(kind)).await, Ok(Some(_))) {
            saved.push(kind);
        }
    }
    saved
}

/// What the edge offers (none of it when no edge answers: a static copy of the app).
pub async fn offered(model_searches: bool) -> Offered {
    match crate::edge::fetch_config().await {
        Ok(config) => Offered {
            edge: config.capabilities.web_search,
            default_search: config.capabilities.default_search,
            sealed_keys: config.capabilities.byok,
            model_searches,
        },
        Err(_) => Offered {
            model_searches,
            ..Offered::default()
        },
    }
}

/// Whether replies can search with `settings` now, and how: for a reply's model when
/// `model_searches` says whether it searches by itself, or for any model (`None`: the
/// settings and the switch, where the model's own search is decided at each reply).
pub async fn resolve(
    settings: &WebSearchSettings,
    model_searches: Option<bool>,
) -> Result<Route, Missing> {
    let setup = settings.setup(saved_keys().await);
    capability::resolve(&setup, offered(model_searches.unwrap_or(true)).await)
}

/// Why a search failed: a stable code and the service's status, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// `SEARCH_KEY_REFUSED`, `URL_BLOCKED`, `EDGE_UNREACHABLE`, …
    pub code: String,
    /// The service's HTTP status.
    pub status: Option<u16>,
}

impl Failure {
    fn of(code: &str) -> Self {
        Self {
            code: code.into(),
            status: None,
        }
    }

    fn from_edge(error: &EdgeError) -> Self {
        match error {
            EdgeError::Api(api) => {
                let details = api.details.as_ref();
                let reason = details
                    .and_then(|d| d["reason"].as_str())
                    .filter(|r| r.starts_with("SEARCH_"));
                let code = reason.map(str::to_string).unwrap_or_else(|| {
                    serde_json::to_value(api.code)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_else(|| "EDGE_UNEXPECTED".into())
                });
                Self {
                    code,
                    status: details
                        .and_then(|d| d["upstreamStatus"].as_u64())
                        .and_then(|s| u16::try_from(s).ok()),
                }
            }
            EdgeError::Unreachable => Self::of("EDGE_UNREACHABLE"),
            EdgeError::Offline => Self::of("OFFLINE"),
            EdgeError::Unexpected(_) => Self::of("EDGE_UNEXPECTED"),
        }
    }
}

/// One attempt's failure, telling [`envelope::with_sealed`] when the edge's key changed.
enum Attempt {
    Seal(SealError),
    Edge(EdgeError),
}

impl EdgeKeyRefusal for Attempt {
    fn edge_key_refused(&self) -> bool {
        matches!(self, Self::Edge(error) if error.edge_key_refused())
    }
}

/// Searches `query` through `route` with `settings`; aborting `signal` cancels it.
pub async fn search(
    route: Route,
    settings: &WebSearchSettings,
    query: &str,
    language: &str,
    signal: &web_sys::AbortSignal,
) -> Result<WebSearchResponse, Failure> {
    let keyed = match route {
        Route::Default => None,
        Route::Provider(SearchProviderKind::Searxng) => None,
        Route::Provider(kind) => Some((
            kind,
            key(kind)
                .await
                .map_err(|_| Failure::of("SEARCH_KEY_UNREADABLE"))?
                .ok_or_else(|| Failure::of(Missing::Key(kind).code()))?,
        )),
        Route::ModelOwn => return Err(Failure::of(Missing::ModelCannot.code())),
    };
    let answer = envelope::with_sealed(async |sealer| {
        let service = match (&keyed, route) {
            (None, Route::Provider(_)) => SearchService::Searxng {
                base_url: settings.searxng_url.clone(),
            },
            (None, _) => SearchService::Default,
            (Some((kind, secret)), _) => {
                let api_key = sealer
                    .seal(&kind.key_context(), secret)
                    .await
                    .map_err(Attempt::Seal)?;
                if *kind == SearchProviderKind::Google {
                    SearchService::Google {
                        api_key,
                        engine_id: settings.google_engine_id.clone(),
                    }
                } else {
                    SearchService::Keyed {
                        provider: *kind,
                        api_key,
                    }
                }
            }
        };
        let request = WebSearchRequest {
            service,
            query: query.to_string(),
            count: Some(settings.results),
            language: Some(language.to_string()),
        };
        crate::edge::web_search(&request, signal)
            .await
            .map_err(Attempt::Edge)
    })
    .await;
    answer.map_err(|attempt| match attempt {
        Attempt::Seal(SealError::Edge(error)) | Attempt::Edge(error) => Failure::from_edge(&error),
        Attempt::Seal(SealError::Crypto(_)) => Failure::of("SEARCH_SEAL_FAILED"),
    })
}

/// What a failed search's `code` means, in the user's language.
pub fn describe(i18n: &I18n, code: &str, status: Option<u16>) -> String {
    let key = match code {
        "SEARCH_KEY_REFUSED" => Key::WebSearchFailKeyRefused,
        "SEARCH_RATE_LIMITED" => Key::WebSearchFailRateLimited,
        "SEARCH_JSON_DISABLED" => Key::WebSearchFailJsonDisabled,
        "SEARCH_ANSWER_MALFORMED" => Key::WebSearchFailMalformed,
        "SEARCH_KEY_MISSING" | "SEARCH_KEY_UNREADABLE" => Key::WebSearchFailKeyMissing,
        "SEARCH_UNCONFIGURED" => Key::WebSearchMissingDefault,
        "SEARCH_NO_EDGE" => Key::WebSearchMissingEdge,
        "SEARCH_BYOK_UNAVAILABLE" => Key::WebSearchMissingSealing,
        "SEARCH_URL_MISSING" => Key::WebSearchMissingUrl,
        "SEARCH_URL_INVALID" => Key::WebSearchMissingBadUrl,
        "SEARCH_ENGINE_ID_MISSING" => Key::WebSearchMissingEngineId,
        "SEARCH_MODEL_CANNOT" => Key::WebSearchMissingModel,
        "SEARCH_INTERRUPTED" => Key::WebSearchFailInterrupted,
        "URL_BLOCKED" => Key::WebSearchFailBlocked,
        "RESPONSE_TIMEOUT" => Key::WebSearchFailTimeout,
        "UPSTREAM_UNREACHABLE" | "EDGE_UNREACHABLE" | "OFFLINE" => Key::WebSearchFailUnreachable,
        _ => {
            return i18n.t_with(
                Key::WebSearchFailOther,
                &[(
                    "code",
                    &match status {
                        Some(status) => format!("{code}, HTTP {status}"),
                        None => code.to_string(),
                    },
                )],
            );
        }
    };
    i18n.t(key)
}

/// What keeps search from working, in the user's language.
pub fn missing_text(i18n: &I18n, missing: Missing) -> String {
    i18n.t(match missing {
        Missing::Off => Key::WebSearchMissingOff,
        Missing::NoEdge => Key::WebSearchMissingEdge,
        Missing::NoDefault => Key::WebSearchMissingDefault,
        Missing::Key(_) => Key::WebSearchFailKeyMissing,
        Missing::SealedKeys => Key::WebSearchMissingSealing,
        Missing::Url => Key::WebSearchMissingUrl,
        Missing::BadUrl => Key::WebSearchMissingBadUrl,
        Missing::EngineId => Key::WebSearchMissingEngineId,
        Missing::ModelCannot => Key::WebSearchMissingModel,
    })
}
