//! What a reply keeps of its searches, for its search block: each query in the order it
//! was sent and how it went (the pages it found, or why it failed, as a stable code the
//! app renders in the user's language). Kept on the message as JSON text
//! (`MessageRecord::web_searches`), decoded only where shown, like its sources.

use serde::{Deserialize, Serialize};

/// The most searches one reply records (a turn sends at most four; a continuation or a
/// refused call adds none).
pub const MAX_RECORDED: usize = 16;

/// One search of a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchRecord {
    /// The query as sent (empty for the model provider's own search, whose queries are
    /// its own).
    pub query: String,
    /// The model provider searched with its own tool (`query` is then empty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_model: bool,
    /// How many searches the provider's own tool ran (its queries; one when it named
    /// none). Zero for a search of the edge's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub searches: u32,
    /// How it went.
    pub outcome: SearchOutcome,
}

/// How one search went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum SearchOutcome {
    /// Still waiting for the service.
    Searching,
    /// Answered: how many pages it found, and how many of them were new to the reply.
    Found {
        /// Pages the service gave.
        pages: u32,
        /// Of them, pages the reply had not seen.
        new: u32,
    },
    /// Failed: a stable code (`SEARCH_KEY_REFUSED`, `URL_BLOCKED`, …) and the status the
    /// service answered, if any. Never the service's own text.
    Failed {
        /// The code.
        code: String,
        /// The service's HTTP status.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
    },
}

/// `records` as a message keeps them (`None` when there are none).
pub fn encode(records: &[SearchRecord]) -> Option<String> {
    if records.is_empty() {
        return None;
    }
    let kept = &records[..records.len().min(MAX_RECORDED)];
    serde_json::to_string(kept).ok()
}

/// The records a message keeps as `text`; none when it holds no readable list.
pub fn decode(text: Option<&str>) -> Vec<SearchRecord> {
    text.and_then(|text| serde_json::from_str::<Vec<SearchRecord>>(text).ok())
        .map(|mut records| {
            records.truncate(MAX_RECORDED);
            records
        })
        .unwrap_or_default()
}

/// How many of `records` were searches, and how many of those failed (a reply's
/// receipt).
pub fn tally(records: &[SearchRecord]) -> (usize, usize) {
    let failed = records
        .iter()
        .filter(|r| matches!(r.outcome, SearchOutcome::Failed { .. }))
        .count();
    (records.len(), failed)
}

/// How many searches the model provider ran with its own tool for `records`' reply
/// (what its search fee is charged for).
pub fn by_model_count(records: &[SearchRecord]) -> u32 {
    records
        .iter()
        .filter(|r| r.by_model && matches!(r.outcome, SearchOutcome::Found { .. }))
        .map(|r| r.searches.max(1))
        .fold(0, u32::saturating_add)
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A reply reopened after a reload: a search still waiting never finishes (its request
/// died with the page), so it is recorded as interrupted.
pub fn reopened(records: &mut [SearchRecord]) {
    for record in records {
        if record.outcome == SearchOutcome::Searching {
            record.outcome = SearchOutcome::Failed {
                code: INTERRUPTED.into(),
                status: None,
            };
        }
    }
}

/// The code of a search cut short by a stop or a reload.
pub const INTERRUPTED: &str = "SEARCH_INTERRUPTED";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_unreadable_text_is_none() {
        let records = vec![
            SearchRecord {
                by_model: false,
                searches: 0,
                query: "tides".into(),
                outcome: SearchOutcome::Found { pages: 5, new: 4 },
            },
            SearchRecord {
                by_model: false,
                searches: 0,
                query: "moon".into(),
                outcome: SearchOutcome::Failed {
                    code: "SEARCH_KEY_REFUSED".into(),
                    status: Some(401),
                },
            },
        ];
        let text = encode(&records).unwrap();
        assert!(text.contains(r#""state":"failed""#), "{text}");
        assert_eq!(decode(Some(&text)), records);
        assert_eq!(encode(&[]), None);
        assert!(decode(Some("{not json")).is_empty());
        assert!(decode(None).is_empty());
    }

    #[test]
    fn a_tally_counts_searches_and_failures() {
        let found = SearchRecord {
            query: "a".into(),
            by_model: false,
            searches: 0,
            outcome: SearchOutcome::Found { pages: 2, new: 2 },
        };
        let failed = SearchRecord {
            outcome: SearchOutcome::Failed {
                code: "SEARCH_RATE_LIMITED".into(),
                status: Some(429),
            },
            ..found.clone()
        };
        assert_eq!(tally(&[found.clone(), failed, found]), (3, 1));
        assert_eq!(tally(&[]), (0, 0));
    }

    #[test]
    fn the_providers_own_searches_are_counted_by_their_queries_when_answered() {
        let by_model = |searches: u32, outcome: SearchOutcome| SearchRecord {
            query: String::new(),
            by_model: true,
            searches,
            outcome,
        };
        let found = SearchOutcome::Found { pages: 3, new: 3 };
        let failed = SearchOutcome::Failed {
            code: "SEARCH_FAILED".into(),
            status: None,
        };
        let edges = SearchRecord {
            query: "tides".into(),
            by_model: false,
            searches: 0,
            outcome: found.clone(),
        };
        assert_eq!(by_model_count(&[by_model(3, found.clone()), edges]), 3);
        // One that named no query still ran once; a failed one is not charged.
        assert_eq!(by_model_count(&[by_model(0, found.clone())]), 1);
        assert_eq!(by_model_count(&[by_model(2, failed)]), 0);
        // Kept with the record; an older record reads as none.
        let text = encode(&[by_model(2, found)]).unwrap();
        assert!(text.contains("\"searches\":2"), "{text}");
        assert_eq!(decode(Some(&text))[0].searches, 2);
        let old = r#"[{"query":"","byModel":true,"outcome":{"state":"found","pages":1,"new":1}}]"#;
        assert_eq!(by_model_count(&decode(Some(old))), 1);
    }

    #[test]
    fn the_list_is_bounded() {
        let many: Vec<SearchRecord> = (0..40)
            .map(|n| SearchRecord {
                by_model: false,
                searches: 0,
                query: n.to_string(),
                outcome: SearchOutcome::Searching,
            })
            .collect();
        assert_eq!(decode(encode(&many).as_deref()).len(), MAX_RECORDED);
    }

    #[test]
    fn a_search_left_waiting_by_a_reload_is_interrupted() {
        let mut records = vec![
            SearchRecord {
                by_model: false,
                searches: 0,
                query: "a".into(),
                outcome: SearchOutcome::Searching,
            },
            SearchRecord {
                by_model: false,
                searches: 0,
                query: "b".into(),
                outcome: SearchOutcome::Found { pages: 1, new: 1 },
            },
        ];
        reopened(&mut records);
        assert_eq!(
            records[0].outcome,
            SearchOutcome::Failed {
                code: INTERRUPTED.into(),
                status: None
            }
        );
        assert_eq!(
            records[1].outcome,
            SearchOutcome::Found { pages: 1, new: 1 }
        );
    }
}
