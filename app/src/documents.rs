//! Which parser reads the user's documents (attachments and knowledge files): the
//! settings (one settings document, `document-parsing`, read the first time a document
//! goes to the edge or Settings › Knowledge shows its choice), each remote parser's key
//! (sealed in the vault under `local:docs:<parser>:api-key`), and the upload's fields
//! (`hearth_core::document_parsing::route` over the settings, the saved key and the
//! edge's `/api/config`; the key sealed for `docs:<parser>` per upload).

use hearth_core::api::doc_parse::DocParseProvider;
use hearth_core::document_parsing::{self, Credential, Missing, Offered, ParsingSettings};

use crate::envelope::Sealer;
use crate::storage::document::{DocumentCell, SettingsDocument};

thread_local! {
    static SETTINGS: DocumentCell<ParsingSettings> = DocumentCell::default();
}

static DOCUMENT: SettingsDocument<ParsingSettings> = SettingsDocument {
    key: "document-parsing",
    channel: "hearth-document-parsing",
    cell: &SETTINGS,
    repair: ParsingSettings::repaired,
};

/// The settings, read the first time.
pub async fn settings() -> Result<ParsingSettings, String> {
    DOCUMENT
        .ensure_loaded::<()>()
        .await
        .map_err(|error| format!("{error:?}"))
}

/// Changes the settings (stored, then shown, then told to other tabs).
pub async fn change(edit: impl FnOnce(&mut ParsingSettings)) -> Result<(), String> {
    DOCUMENT
        .change::<(), ()>(move |settings| {
            edit(settings);
            *settings = settings.repaired();
            Ok(())
        })
        .await
        .map_err(|error| format!("{error:?}"))
}

/// The vault context of `parser`'s key.
fn key_context(parser: DocParseProvider) -> String {
    format!("local:docs:{}:api-key", parser.as_str())
}

async fn key(parser: DocParseProvider) -> Result<Option<String>, String> {
    crate::vault::service_key(&key_context(parser)).await
}

/// Seals `key` for `parser` in the vault (a blank key forgets it).
pub async fn save_key(parser: DocParseProvider, key: &str) -> Result<(), String> {
    crate::vault::save_service_key(&key_context(parser), key).await
}

/// `parser`'s key as shown to the user (masked), if one is saved.
pub async fn masked_key(parser: DocParseProvider) -> Option<String> {
    crate::vault::masked_service_key(&key_context(parser)).await
}

/// What the edge offers for parsing (nothing remote when no edge answers).
pub async fn offered() -> Offered {
    match crate::edge::fetch_config().await {
        Ok(config) => Offered {
            deployment_keys: config.deployment_parsers,
            sealed_keys: config.capabilities.byok,
        },
        Err(_) => Offered::default(),
    }
}

/// A document's upload fields besides the file: the parser and its credential.
#[derive(Debug, Clone, Default)]
pub struct UploadFields {
    /// The parser's wire name (`None`: the edge's own).
    pub provider: Option<&'static str>,
    /// The user's key sealed for the edge, as the envelope's JSON.
    pub credential: Option<String>,
    /// The deployment's key.
    pub use_default: bool,
}

impl UploadFields {
    /// The multipart text fields they make.
    pub fn form_fields(&self) -> Vec<(&'static str, String)> {
        let fields = [
            ("provider", self.provider.map(str::to_string)),
            ("credential", self.credential.clone()),
            ("useDefault", self.use_default.then(|| "true".to_string())),
        ];
        fields
            .into_iter()
            .filter_map(|(name, value)| Some((name, value?)))
            .collect()
    }
}

/// Why a document cannot go to the chosen parser: a stable code (`parse_no_key`, …).
pub type Refused = &'static str;

/// The fields to upload a document with under the user's settings, the user's key
/// sealed with `sealer`.
pub async fn upload_fields(sealer: &Sealer) -> Result<UploadFields, Refused> {
    let settings = settings().await.map_err(|_| "parse_settings_unreadable")?;
    if !settings.parser.is_remote() {
        return Ok(UploadFields::default());
    }
    let saved = key(settings.parser)
        .await
        .map_err(|_| "parse_key_unreadable")?;
    let route = document_parsing::route(settings, saved.is_some(), &offered().await)
        .map_err(Missing::code)?;
    let mut fields = UploadFields {
        provider: Some(route.parser.as_str()),
        ..UploadFields::default()
    };
    match (route.credential, saved, route.parser.credential_context()) {
        (Some(Credential::Deployment), _, _) => fields.use_default = true,
        (Some(Credential::Own), Some(secret), Some(context)) => {
            let envelope = sealer
                .seal(&context, &secret)
                .await
                .map_err(|_| "parse_seal_failed")?;
            fields.credential = serde_json::to_string(&envelope).ok();
        }
        _ => {}
    }
    Ok(fields)
}
