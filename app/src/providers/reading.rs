//! Reading the providers back, in lazily loaded chunks: the vault's opening, the list's
//! and the model lists' deserialisers and the operator's providers from the edge are
//! not needed to draw the first screen. The first chunk is fetched while the database
//! opens.

use std::collections::HashMap;

use hearth_core::provider::models::ModelInfo;
use leptos::prelude::*;

use super::record::Provider;
use super::{DOCUMENT, ProvidersError, models_document};
use crate::storage::{Db, SETTINGS};
use crate::vault::Vault;

/// The vault and the user's providers in `db` (`None` without a database, which only
/// fetches this chunk).
#[lazy]
pub async fn stored(db: Option<Db>) -> Option<Result<(Vault, Vec<Provider>), ProvidersError>> {
    let db = db?;
    Some(
        async {
            let vault = Vault::open(db.clone()).await?;
            let list = db
                .get_json::<Vec<Provider>>(SETTINGS, DOCUMENT)
                .await?
                .unwrap_or_default();
            Ok((vault, list))
        }
        .await,
    )
}

/// The operator's providers (none when the edge cannot say).
#[lazy]
pub async fn operators() -> Vec<Provider> {
    crate::edge::fetch_server_providers()
        .await
        .map(|server| server.into_iter().map(Provider::from_server).collect())
        .unwrap_or_default()
}

/// The saved model list of each provider of `ids` (with the models its operator listed,
/// used when none was saved).
#[lazy]
pub async fn models(db: Db, ids: Vec<(String, Vec<String>)>) -> HashMap<String, Vec<ModelInfo>> {
    let mut models = HashMap::new();
    for (id, listed) in ids {
        if let Ok(Some(list)) = db
            .get_json::<Vec<ModelInfo>>(SETTINGS, &models_document(&id))
            .await
        {
            models.insert(id, list);
        } else if !listed.is_empty() {
            let list = listed
                .into_iter()
                .map(|model| ModelInfo {
                    id: model,
                    display_name: None,
                    capabilities: Default::default(),
                })
                .collect();
            models.insert(id, list);
        }
    }
    models
}
