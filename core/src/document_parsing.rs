//! Which parser turns the user's documents into text (attachments and knowledge files
//! alike), and where its credential comes from: the one resolver the settings, the
//! upload and its refusal share.
//!
//! The edge's own parser is the default and sends the file nowhere. MinerU and
//! LlamaParse are remote services the file is uploaded to: with the user's own key
//! (kept in the vault, sealed for the edge per upload), with the deployment's key when
//! the operator configured one and the user chose it, or (MinerU only: its agent mode,
//! files up to 10 MiB) with no key at all. LlamaParse without any key is refused here,
//! before a file leaves the browser.

use serde::{Deserialize, Serialize};

use crate::api::doc_parse::DocParseProvider;

/// The user's choice (one settings document, `document-parsing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ParsingSettings {
    /// Who parses.
    pub parser: DocParseProvider,
    /// Use the deployment's key for a remote parser rather than the user's own.
    pub deployment_key: bool,
}

impl ParsingSettings {
    /// The settings with what cannot apply dropped (no key for the edge's own parser).
    pub fn repaired(self) -> Self {
        Self {
            deployment_key: self.deployment_key && self.parser.is_remote(),
            ..self
        }
    }
}

/// Where a remote parser's credential comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// The user's own key, sealed for the edge.
    Own,
    /// The operator's key (`useDefault`): it never leaves the edge.
    Deployment,
    /// None (MinerU's agent mode).
    Keyless,
}

/// How a document goes to the edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// The parser.
    pub parser: DocParseProvider,
    /// Its credential (`None` for the edge's own parser).
    pub credential: Option<Credential>,
}

/// Why the chosen parser cannot be used; the code is what the user is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// The deployment's key was chosen and the operator has none for it.
    DeploymentKey,
    /// The parser needs a key and none is saved (nor the deployment's chosen).
    Key,
    /// A key is saved but this edge cannot take sealed keys.
    Sealing,
}

impl Missing {
    /// The stable code.
    pub fn code(self) -> &'static str {
        match self {
            Self::DeploymentKey => "parse_no_deployment_key",
            Self::Key => "parse_no_key",
            Self::Sealing => "parse_no_sealing",
        }
    }
}

/// What the edge offers for parsing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offered {
    /// The remote parsers the operator has a key for.
    pub deployment_keys: Vec<DocParseProvider>,
    /// Whether the edge takes sealed keys (`GET /api/byok/public-key`).
    pub sealed_keys: bool,
}

/// How documents go to the edge with `settings`, the user's key for its parser saved or
/// not (`own_key`), and what the edge `offered`.
pub fn route(
    settings: ParsingSettings,
    own_key: bool,
    offered: &Offered,
) -> Result<Route, Missing> {
    let settings = settings.repaired();
    let parser = settings.parser;
    if !parser.is_remote() {
        return Ok(Route {
            parser,
            credential: None,
        });
    }
    let credential = if settings.deployment_key {
        if !offered.deployment_keys.contains(&parser) {
            return Err(Missing::DeploymentKey);
        }
        Credential::Deployment
    } else if own_key {
        if !offered.sealed_keys {
            return Err(Missing::Sealing);
        }
        Credential::Own
    } else if parser == DocParseProvider::Mineru {
        Credential::Keyless
    } else {
        return Err(Missing::Key);
    };
    Ok(Route {
        parser,
        credential: Some(credential),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: DocParseProvider = DocParseProvider::Local;
    const MINERU: DocParseProvider = DocParseProvider::Mineru;
    const LLAMA: DocParseProvider = DocParseProvider::LlamaParse;

    fn settings(parser: DocParseProvider, deployment_key: bool) -> ParsingSettings {
        ParsingSettings {
            parser,
            deployment_key,
        }
    }

    fn offered(deployment_keys: &[DocParseProvider], sealed_keys: bool) -> Offered {
        Offered {
            deployment_keys: deployment_keys.to_vec(),
            sealed_keys,
        }
    }

    #[test]
    fn the_edges_own_parser_needs_nothing() {
        for own in [false, true] {
            assert_eq!(
                route(settings(LOCAL, true), own, &Offered::default()),
                Ok(Route {
                    parser: LOCAL,
                    credential: None
                })
            );
        }
        assert_eq!(settings(LOCAL, true).repaired(), ParsingSettings::default());
    }

    #[test]
    fn a_remote_parser_takes_the_chosen_key_and_says_what_is_missing() {
        let all = offered(&[MINERU, LLAMA], true);
        let used = |s, own, o: &Offered| route(s, own, o).map(|r| r.credential);
        // The deployment's key, chosen: used even with the user's own saved.
        assert_eq!(
            used(settings(LLAMA, true), true, &all),
            Ok(Some(Credential::Deployment))
        );
        assert_eq!(
            used(settings(LLAMA, true), true, &offered(&[MINERU], true)),
            Err(Missing::DeploymentKey)
        );
        // The user's own, sealed for the edge.
        assert_eq!(
            used(settings(LLAMA, false), true, &all),
            Ok(Some(Credential::Own))
        );
        assert_eq!(
            used(settings(LLAMA, false), true, &offered(&[], false)),
            Err(Missing::Sealing)
        );
        // No key: MinerU's agent mode; LlamaParse cannot.
        assert_eq!(
            used(settings(MINERU, false), false, &all),
            Ok(Some(Credential::Keyless))
        );
        assert_eq!(used(settings(LLAMA, false), false, &all), Err(Missing::Key));
        assert_eq!(Missing::Key.code(), "parse_no_key");
    }

    #[test]
    fn settings_read_from_any_json_and_keep_their_wire_spelling() {
        let read: ParsingSettings =
            serde_json::from_str(r#"{"parser": "llamaParse", "deploymentKey": true}"#)
                .expect("valid");
        assert_eq!(read, settings(LLAMA, true));
        let empty: ParsingSettings = serde_json::from_str("{}").expect("valid");
        assert_eq!(empty, ParsingSettings::default());
        assert_eq!(
            serde_json::to_value(settings(MINERU, false)).expect("json"),
            serde_json::json!({"parser": "mineru", "deploymentKey": false})
        );
    }
}
