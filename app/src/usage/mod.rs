//! What replies cost, in the app: the user's prices (the settings document `prices`,
//! read the first time a reply's details, the Usage view or an export need it; Hearth's
//! defaults in `hearth_core::cost::price` apply beneath them), one reply's cost for its
//! details, and the Usage view's ledger read from the stored messages ([`scan`]).

pub mod scan;

use hearth_core::chat::record::MessageRecord;
use hearth_core::cost::price::PriceError;
use hearth_core::cost::{Consumption, Cost, PriceEntry, PriceOrigin, Prices};
use leptos::prelude::*;

use crate::i18n::{I18n, Key};
use crate::storage::document::{DocumentCell, DocumentError, SettingsDocument};

thread_local! {
    /// The user's prices, once read; owned by no component.
    static PRICES: DocumentCell<Prices> = DocumentCell::default();
}

/// The prices' document.
static DOCUMENT: SettingsDocument<Prices> = SettingsDocument {
    key: "prices",
    channel: "hearth-prices",
    cell: &PRICES,
    repair: Prices::repaired,
};

/// The user's prices, once read (`None` until then); reading it in a view tracks it.
pub fn value() -> ArcRwSignal<Option<Prices>> {
    DOCUMENT.value()
}

/// The user's prices, read the first time.
pub async fn prices() -> Result<Prices, String> {
    DOCUMENT
        .ensure_loaded::<()>()
        .await
        .map_err(|error| format!("{error:?}"))
}

/// Why a price was not kept.
#[derive(Debug, Clone, PartialEq)]
pub enum PriceChangeError {
    /// The price breaks a rule (nothing changed).
    Refused(PriceError),
    /// Storage failed (nothing changed).
    Storage(String),
}

impl PriceChangeError {
    /// The sentence for the user.
    pub fn text(&self, i18n: &I18n) -> String {
        match self {
            Self::Refused(PriceError::NoModel) => i18n.t(Key::PriceErrorNoModel),
            Self::Refused(PriceError::ModelTooLong) => i18n.t(Key::PriceErrorModelTooLong),
            Self::Refused(PriceError::Amount) => i18n.t(Key::PriceErrorAmount),
            Self::Refused(PriceError::Threshold) => i18n.t(Key::PriceErrorThreshold),
            Self::Refused(PriceError::TooMany) => i18n.t(Key::PriceErrorTooMany),
            Self::Storage(reason) => i18n.t_with(Key::PriceErrorStorage, &[("reason", reason)]),
        }
    }
}

async fn change(
    edit: impl FnOnce(&mut Prices) -> Result<(), PriceError>,
) -> Result<(), PriceChangeError> {
    DOCUMENT
        .change::<(), PriceError>(edit)
        .await
        .map_err(|error| match error {
            DocumentError::Refused(refused) => PriceChangeError::Refused(refused),
            DocumentError::Storage(reason) | DocumentError::Unreadable(reason) => {
                PriceChangeError::Storage(reason)
            }
        })
}

/// Sets the user's price for a model (replacing its earlier one).
pub async fn set(entry: PriceEntry) -> Result<(), PriceChangeError> {
    change(move |prices| prices.set(entry)).await
}

/// Removes the user's price for `model` (its default, if any, applies again).
pub async fn remove(model: String) -> Result<(), PriceChangeError> {
    change(move |prices| {
        prices.remove(&model);
        Ok(())
    })
    .await
}

/// Takes the prices an import carries (`value`): each of its models this browser has
/// no price of its own for.
pub async fn adopt(value: serde_json::Value) -> Result<(), String> {
    let incoming = serde_json::from_value::<Prices>(value)
        .map_err(|error| error.to_string())?
        .repaired();
    change(move |prices| {
        for entry in incoming.entries {
            let mine = prices
                .lookup(&entry.model)
                .is_some_and(|(_, origin)| origin == PriceOrigin::User);
            if !mine {
                prices.set(entry).ok();
            }
        }
        Ok(())
    })
    .await
    .map_err(|error| format!("{error:?}"))
}

/// The prices for an export: `None` when the user set none.
pub async fn for_export() -> Result<Option<serde_json::Value>, String> {
    let prices = prices().await?;
    Ok((!prices.entries.is_empty())
        .then(|| serde_json::to_value(&prices).ok())
        .flatten())
}

/// What a reply used, from its record.
pub fn consumption(record: &MessageRecord) -> Consumption {
    let searches = hearth_core::web_search::record::by_model_count(
        &hearth_core::web_search::record::decode(record.web_searches.as_deref()),
    );
    let rounds = u32::try_from(record.tool_rounds.len()).unwrap_or(u32::MAX);
    Consumption::of(
        &record.usage,
        record.output_tokens(),
        u32::try_from(record.images.len()).unwrap_or(u32::MAX),
        searches,
        rounds.saturating_add(1),
    )
}

/// A reply's cost at `prices`: `None` when no price covers its model.
pub fn cost_of(record: &MessageRecord, prices: &Prices) -> Option<Cost> {
    let (price, _) = prices.lookup(record.model.as_deref()?)?;
    Some(consumption(record).cost(&price))
}
