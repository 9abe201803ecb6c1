//! Edge operations a client can ask about after their answer was lost in transit: plugin
//! install, uninstall and execute carry a client-chosen id ([`OPERATION_ID_HEADER`]);
//! `GET /api/operations/{id}` answers its [`OperationState`], and the same request sent
//! again with the same id answers the recorded outcome instead of doing the work twice.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The request header naming an operation.
pub const OPERATION_ID_HEADER: &str = "hearth-operation-id";

/// Whether `id` can name something a client chose (an operation, a relayed reply): 16 to
/// 64 ASCII letters, digits or `-`.
pub fn valid_client_chosen_id(id: &str) -> bool {
    (16..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Where an operation is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum OperationState {
    /// An instance is doing it.
    Running,
    /// The instance doing it stopped before it finished: it may or may not have taken
    /// effect (an install can be checked in the list; a call cannot).
    Interrupted,
    /// It finished: the answer it was given, kept for an hour.
    Done {
        /// The answer's HTTP status.
        status: u16,
        /// The answer's JSON body (the result, or the `ApiError`).
        body: Value,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn states_read_and_write_as_tagged_objects() {
        let done = OperationState::Done {
            status: 200,
            body: json!({"ok": true}),
        };
        let text = serde_json::to_value(&done).unwrap();
        assert_eq!(
            text,
            json!({"state": "done", "status": 200, "body": {"ok": true}})
        );
        assert_eq!(
            serde_json::from_value::<OperationState>(text).unwrap(),
            done
        );
        assert_eq!(
            serde_json::to_value(OperationState::Interrupted).unwrap(),
            json!({"state": "interrupted"})
        );
        assert!(serde_json::from_value::<OperationState>(json!({"state": "maybe"})).is_err());
    }

    #[test]
    fn client_chosen_ids_are_bounded_and_plain() {
        assert!(valid_client_chosen_id("0123456789abcdef"));
        assert!(valid_client_chosen_id(&"a-".repeat(32)));
        assert!(!valid_client_chosen_id("short"));
        assert!(!valid_client_chosen_id(&"a".repeat(65)));
        assert!(!valid_client_chosen_id("0123456789abcdef/../x"));
        assert!(!valid_client_chosen_id("0123456789abcdef\n"));
    }
}
