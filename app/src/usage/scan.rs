//! Reading the Usage view's ledger from storage: every conversation's stored replies
//! (every branch: a regenerated reply was paid for too), priced with the user's prices,
//! counted from a chosen day. Conversations are read one at a time and the page is
//! given back every few milliseconds, so a large history never blocks it; the caller
//! hears the progress and may stop the reading.
//!
//! Only the fields the ledger needs are read from each stored record (role, model, time,
//! usage, image count; the text only to estimate an output count the provider did not
//! report), never the whole record.

use std::collections::HashMap;

use hearth_core::calendar::days_from_civil;
use hearth_core::context::{TokenCount, estimate_tokens};
use hearth_core::cost::ledger::{Ledger, ReplyUse};
use hearth_core::cost::{Consumption, Prices};
use hearth_core::provider::Usage;
use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};

use crate::storage::{BY_CONVERSATION, CONVERSATIONS, Db, MESSAGES};

/// How long the reading keeps the page before giving it back.
const SLICE_MS: f64 = 8.0;

/// The ledger and what the view shows beside it.
pub struct Scanned {
    /// The sums.
    pub ledger: Ledger,
    /// Each conversation's title, by id.
    pub titles: HashMap<String, String>,
    /// Today, as days since 1970-01-01 in the user's time zone.
    pub today: i64,
}

/// The local calendar day of the time `ms` (since the epoch), as days since 1970-01-01.
pub fn local_day(ms: f64) -> i64 {
    let date = js_sys::Date::new(&JsValue::from_f64(ms));
    days_from_civil(
        i64::from(date.get_full_year()),
        i64::from(date.get_month()) + 1,
        i64::from(date.get_date()),
    )
}

/// Reads the ledger of the last `days` days (`None`: everything), telling `progress`
/// how many conversations of how many are read; `None` when `wanted` says to stop.
pub async fn read(
    prices: Prices,
    days: Option<u32>,
    progress: impl Fn(usize, usize),
    wanted: impl Fn() -> bool,
) -> Result<Option<Scanned>, String> {
    let today = local_day(js_sys::Date::now());
    let since = days.map(|days| today - i64::from(days) + 1);
    let mut ledger = Ledger::new(prices, since);
    let db = Db::open().await.map_err(|e| e.to_string())?;
    let conversations = db.all_raw(CONVERSATIONS).await.map_err(|e| e.to_string())?;
    let mut titles = HashMap::new();
    let mut slice_start = js_sys::Date::now();
    for (done, conversation) in conversations.iter().enumerate() {
        if js_sys::Date::now() - slice_start > SLICE_MS {
            progress(done, conversations.len());
            crate::browser::sleep_ms(0).await;
            if !wanted() {
                return Ok(None);
            }
            slice_start = js_sys::Date::now();
        }
        let Some(id) = text(conversation, "id") else {
            continue;
        };
        if let Some(title) = text(conversation, "title") {
            titles.insert(id.clone(), title);
        }
        let messages = db
            .raw_by(MESSAGES, BY_CONVERSATION, &id)
            .await
            .map_err(|e| e.to_string())?;
        for message in &messages {
            if let Some(reply) = reply_use(message, &id) {
                ledger.add(&reply);
            }
        }
    }
    progress(conversations.len(), conversations.len());
    Ok(Some(Scanned {
        ledger,
        titles,
        today,
    }))
}

/// A stored reply's use: `None` for a question, or a reply that failed before the
/// provider answered anything.
fn reply_use(message: &JsValue, conversation_id: &str) -> Option<ReplyUse> {
    if text(message, "role").as_deref() != Some("assistant") {
        return None;
    }
    let usage = field(message, "usage")
        .and_then(|value| js_sys::JSON::stringify(&value).ok())
        .and_then(|json| serde_json::from_str::<Usage>(&String::from(json)).ok())
        .unwrap_or_default();
    let output = match usage.output_tokens {
        Some(value) => TokenCount {
            value,
            estimated: false,
        },
        None => {
            let written = text(message, "content").unwrap_or_default();
            let reasoning = text(message, "reasoning").unwrap_or_default();
            TokenCount {
                value: estimate_tokens(&written) + estimate_tokens(&reasoning),
                estimated: true,
            }
        }
    };
    if usage.is_empty() && output.value == 0 {
        return None;
    }
    let images = field(message, "images")
        .and_then(|value| value.dyn_into::<js_sys::Array>().ok())
        .map_or(0, |images| images.length());
    // The provider's own searches (its fee), and the requests the reply made (one, and
    // one more per round of tool calls: its counts are their sums).
    let searches = hearth_core::web_search::record::by_model_count(
        &hearth_core::web_search::record::decode(text(message, "webSearches").as_deref()),
    );
    let rounds = field(message, "toolRounds")
        .and_then(|value| value.dyn_into::<js_sys::Array>().ok())
        .map_or(0, |rounds| rounds.length());
    let created = field(message, "createdAt")
        .and_then(|value| value.as_f64())
        .unwrap_or(0.0);
    Some(ReplyUse {
        day: local_day(created),
        model: text(message, "model").unwrap_or_default(),
        conversation_id: conversation_id.to_string(),
        consumption: Consumption::of(&usage, output, images, searches, rounds + 1),
    })
}

fn field(record: &JsValue, name: &str) -> Option<JsValue> {
    Reflect::get(record, &JsValue::from_str(name))
        .ok()
        .filter(|value| !value.is_undefined() && !value.is_null())
}

fn text(record: &JsValue, name: &str) -> Option<String> {
    field(record, name).and_then(|value| value.as_string())
}
