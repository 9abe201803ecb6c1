//! A reply's details, as rows of name and value in the user's language: the model, the
//! instructions it was written with, timings, tokens, its cost at the user's prices, the
//! model that answered instead of the chosen one and why, the tools and searches it
//! used, and why it finished.

use hearth_core::chat::MessageRecord;

use crate::i18n::{I18n, Key};

/// The details' rows; the cost row once the prices are read (`prices`).
pub fn rows(
    record: &MessageRecord,
    prices: Option<&hearth_core::cost::Prices>,
    i18n: I18n,
) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    if let Some(model) = &record.model {
        rows.push((i18n.t(Key::MessageDetailModel), model.clone()));
    }
    let prompts = hearth_core::workspace::prompt::decode(record.prompts.as_deref());
    if !prompts.is_empty() {
        use hearth_core::workspace::prompt::PromptLevel;
        let names: Vec<String> = prompts
            .iter()
            .map(|p| match p.level {
                PromptLevel::Global => i18n.t(Key::MessageDetailPromptGlobal),
                PromptLevel::Workspace => i18n.t_with(
                    Key::MessageDetailPromptWorkspace,
                    &[("name", p.name.as_deref().unwrap_or_default())],
                ),
                PromptLevel::Conversation => match &p.name {
                    Some(name) => i18n.t_with(Key::MessageDetailPromptAssistant, &[("name", name)]),
                    None => i18n.t(Key::MessageDetailPromptConversation),
                },
            })
            .collect();
        rows.push((i18n.t(Key::MessageDetailPrompts), names.join(" · ")));
    }
    let ms = |value: Option<u64>| {
        value
            .map(|ms| format!("{:.2} s", ms as f64 / 1000.0))
            .unwrap_or_else(|| "—".into())
    };
    rows.push((
        i18n.t(Key::MessageDetailFirstToken),
        ms(record.timings.first_token_ms),
    ));
    rows.push((i18n.t(Key::MessageDetailTotal), ms(record.timings.total_ms)));
    rows.push((
        i18n.t(Key::MessageDetailTokensIn),
        record
            .input_tokens()
            .map(|t| t.to_string())
            .unwrap_or_else(|| "—".into()),
    ));
    rows.push((
        i18n.t(Key::MessageDetailTokensOut),
        record.output_tokens().to_string(),
    ));
    // What it cost, at the user's prices or Hearth's (a model none prices says so).
    if let (Some(prices), Some(_)) = (prices, &record.model) {
        let cost = match crate::usage::cost_of(record, prices) {
            Some(cost) => cost.to_string(),
            None => i18n.t(Key::MessageDetailCostUnpriced),
        };
        rows.push((i18n.t(Key::MessageDetailCost), cost));
    }
    // Another model answered than the one chosen: which, and why.
    if let Some(fell) =
        hearth_core::chat::fallback::FallbackRecord::decode(record.fallback.as_deref())
    {
        let reason = match &fell.reason {
            Some(error) => crate::i18n::errors::describe(&i18n, error).0,
            None => i18n.t(Key::MessageDetailFallbackRecent),
        };
        rows.push((
            i18n.t(Key::MessageDetailFallback),
            i18n.t_with(
                Key::MessageDetailFallbackValue,
                &[("from", &fell.from.model), ("reason", &reason)],
            ),
        ));
    }
    // The receipt: the tools the reply called, and its web searches.
    let tools = hearth_core::chat::tools::tools_used(&record.tool_rounds);
    if !tools.is_empty() {
        let named: Vec<String> = tools
            .into_iter()
            .map(|(name, count)| match count {
                1 => name,
                n => format!("{name} ×{n}"),
            })
            .collect();
        rows.push((i18n.t(Key::MessageDetailTools), named.join(" · ")));
    }
    let searches = hearth_core::web_search::record::decode(record.web_searches.as_deref());
    let (searched, failed) = hearth_core::web_search::record::tally(&searches);
    if searched > 0 {
        rows.push((
            i18n.t(Key::MessageDetailSearches),
            i18n.t_with(
                Key::MessageDetailSearchesCount,
                &[
                    ("count", &searched.to_string()),
                    ("failed", &failed.to_string()),
                ],
            ),
        ));
    }
    rows.push((
        i18n.t(Key::MessageDetailFinish),
        record
            .finish_reason
            .as_ref()
            .map_or_else(|| "—".into(), ToString::to_string),
    ));
    rows
}
