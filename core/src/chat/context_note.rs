//! What a reply tells the user about the context its request left out: passages of a
//! file (or, later, a knowledge base or a search) that did not fit the model's input,
//! images a model without vision could not be shown, and attached files no longer stored
//! in this browser. Stored on the reply as codes with their figures; the app says them in
//! the user's language. Nothing is left out unseen.

use serde::{Deserialize, Serialize};

/// One thing the user should know about what a reply's request did not carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "code")]
pub enum ContextNote {
    /// `count` passages of `origin` (a file's name) did not fit and were not sent.
    #[serde(rename = "passages_left_out")]
    PassagesLeftOut {
        /// Where they come from, as the user knows it.
        origin: String,
        /// How many were left out.
        count: u32,
        /// How many there were.
        of: u32,
    },
    /// `count` attached images were not sent: the model has no vision.
    #[serde(rename = "images_not_sent")]
    ImagesNotSent {
        /// How many.
        count: u32,
    },
    /// Attached files whose bytes are no longer stored in this browser (deleted, or a
    /// conversation imported without them), by name: the model was told they are gone.
    #[serde(rename = "files_missing")]
    FilesMissing {
        /// The files' names, each once.
        names: Vec<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_stored_as_codes_with_their_figures() {
        let note = ContextNote::PassagesLeftOut {
            origin: "report.pdf".into(),
            count: 3,
            of: 9,
        };
        let stored = serde_json::to_value(&note).unwrap();
        assert_eq!(
            stored,
            serde_json::json!({"code": "passages_left_out", "origin": "report.pdf", "count": 3, "of": 9})
        );
        assert_eq!(serde_json::from_value::<ContextNote>(stored).unwrap(), note);
        let images = serde_json::to_value(ContextNote::ImagesNotSent { count: 1 }).unwrap();
        assert_eq!(images["code"], "images_not_sent");
    }
}
