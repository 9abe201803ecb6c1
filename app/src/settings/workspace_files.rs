//! The workspace editor's files: documents and text every conversation in the workspace
//! reads (`hearth_core::workspace::files`), added by picker or drop and read like a
//! message's attachments (`crate::attachments`, with the workspace's bounds and its own
//! folder), each a chip with its reading state and a remove button. The editor decides
//! what stays when it closes ([`Files::close`]).

use hearth_core::attachment::Attachment;
use hearth_core::workspace::files::{MAX_FILES, MAX_TOTAL_BYTES, left_behind};
use leptos::prelude::*;

use crate::attachments::chips::{DraftChips, size_label};
use crate::attachments::{Draft, Holder, input_files};
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::toast::use_toasts;

/// The files of one editor: the draft, and those the saved workspace had.
#[derive(Clone, Copy)]
pub(super) struct Files {
    /// The files shown (the saved ones first, then those added).
    pub draft: Draft,
    saved: StoredValue<Vec<Attachment>>,
    stored: StoredValue<bool>,
}

impl Files {
    /// The editor's files, starting from the saved workspace's `saved`.
    pub fn new(saved: Vec<Attachment>) -> Self {
        let draft = Draft::for_holder(Holder::Workspace, use_i18n(), use_toasts());
        draft.keep(saved.clone());
        Self {
            draft,
            saved: StoredValue::new(saved),
            stored: StoredValue::new(false),
        }
    }

    /// Whether a file is still being read.
    pub fn busy(&self) -> bool {
        self.draft
            .files_untracked()
            .iter()
            .any(|f| !matches!(f.state, crate::attachments::DraftState::Ready(_)))
    }

    /// The files to save.
    pub fn chosen(&self) -> Vec<Attachment> {
        self.draft.ready_untracked()
    }

    /// Says the workspace was stored with [`Files::chosen`] (the change itself deletes
    /// the saved files it no longer has: `crate::workspaces::Workspaces::save`).
    pub fn stored(&self) {
        self.stored.set_value(true);
    }

    /// The editor closes: unless it was stored, the files added since it opened are
    /// deleted (files still being read stop).
    pub fn close(&self) {
        if self.stored.get_value() {
            return;
        }
        let added = left_behind(&self.draft.ready_untracked(), &self.saved.get_value());
        self.draft.clear();
        leptos::task::spawn_local(crate::workspaces::files::forget(added));
    }
}

/// The files' fieldset.
#[component]
pub(super) fn WorkspaceFiles(files: Files) -> impl IntoView {
    let i18n = use_i18n();
    let draft = files.draft;
    let hint = move || {
        i18n.t_with(
            Key::WorkspacesFieldFilesHint,
            &[
                ("max", &MAX_FILES.to_string()),
                ("size", &size_label(MAX_TOTAL_BYTES)),
            ],
        )
    };
    view! {
        <fieldset class="field workspace-files" id="workspace-editor-files"
            on:dragover=|event| event.prevent_default()
            on:drop=move |event| {
                if draft.add_transfer(event.data_transfer()) {
                    event.prevent_default();
                }
            }>
            <legend class="field__label">{tr(Key::WorkspacesFieldFiles)}</legend>
            <p class="field__hint" id="workspace-editor-files-hint">{hint}</p>
            <DraftChips draft />
            <div class="skill-card__actions">
                <label class="button button--secondary button--small file-button">
                    <input id="workspace-editor-file-input" class="visually-hidden" type="file" multiple
                        aria-label=tr(Key::WorkspacesFilesAdd)
                        aria-describedby="workspace-editor-files-hint"
                        on:change=move |event| draft.add_all(input_files(&event)) />
                    <span aria-hidden="true">{tr(Key::WorkspacesFilesAdd)}</span>
                </label>
            </div>
        </fieldset>
    }
}
