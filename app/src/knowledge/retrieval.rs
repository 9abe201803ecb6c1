//! The passages a turn's question finds in its conversation's collections
//! (`hearth_core::knowledge::retrieve`): the ready files of those collections, their
//! texts read from the private file system and indexed once, the index kept while the
//! files (ids, versions, names) do not change. A file whose text cannot be read is left
//! out and named, never silently.

use std::cell::RefCell;
use std::collections::HashSet;

use hearth_core::chat::request::ContextItem;
use hearth_core::knowledge::attached;
use hearth_core::knowledge::retrieve::{
    FileText, KnowledgeIndex, context_items, fingerprint, in_scope,
};

use super::{DOCUMENT, KnowledgeStoreError, read_text};

thread_local! {
    /// The last index built, kept while its files do not change.
    static INDEX: RefCell<Option<KnowledgeIndex>> = const { RefCell::new(None) };
}

/// What a question found.
pub struct Retrieved {
    /// The passages, best first, as context items that carry their citations.
    pub items: Vec<ContextItem>,
    /// The files whose text could not be read.
    pub unreadable: Vec<String>,
}

/// The passages `question` finds in the collections `collections` (a conversation's).
pub async fn passages(
    collections: &[String],
    question: &str,
) -> Result<Retrieved, KnowledgeStoreError> {
    let library = DOCUMENT.ensure_loaded().await?;
    let ids = attached(&library, collections);
    let scope = in_scope(ids.iter().filter_map(|id| library.collection(id)), &[]);
    let wanted = fingerprint(scope.iter().copied());
    let mut unreadable = Vec::new();
    let current = INDEX.with(|kept| kept.borrow().as_ref().is_some_and(|i| i.is_for(wanted)));
    if !current {
        let mut texts = Vec::new();
        let mut read = Vec::new();
        for (collection, file) in &scope {
            match read_text(&file.content_path).await {
                Ok(text) => {
                    read.push((*collection, *file));
                    texts.push(FileText {
                        collection,
                        file,
                        text,
                    });
                }
                Err(_) => unreadable.push(file.name.clone()),
            }
        }
        let index = KnowledgeIndex::build(&texts);
        // An index missing a file is not kept: the next turn tries to read it again.
        if unreadable.is_empty() {
            INDEX.with(|kept| *kept.borrow_mut() = Some(index));
        } else {
            let allowed: HashSet<&str> = read.iter().map(|(_, f)| f.id.as_str()).collect();
            let found = index.retrieve(question, &allowed);
            return Ok(Retrieved {
                items: context_items(&found),
                unreadable,
            });
        }
    }
    let allowed: HashSet<&str> = scope.iter().map(|(_, f)| f.id.as_str()).collect();
    let items = INDEX.with(|kept| {
        kept.borrow()
            .as_ref()
            .map(|index| context_items(&index.retrieve(question, &allowed)))
            .unwrap_or_default()
    });
    Ok(Retrieved { items, unreadable })
}
