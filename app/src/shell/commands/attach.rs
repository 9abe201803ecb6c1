//! Attaching an MCP resource chosen with `@`: read through the edge (the plugin's
//! credential sealed for the call), its contents made files (`core::plugin::mcp_resource`)
//! and added to the draft like any chosen file, so the attachments' own checks (type
//! from the bytes, size and count limits) apply and their chips show the reading. What
//! cannot be read is said in a toast; the text typed stays.

use hearth_core::api::McpResourcesAction;
use hearth_core::plugin::mcp_resource::{McpResource, ResourceFile, resource_files};
use leptos::task::spawn_local;

use crate::attachments::Draft;
use crate::i18n::{I18n, Key};
use crate::plugins::Plugins;
use crate::ui::toast::{ToastKind, Toasts};

/// Reads `resource` from the server `plugin_id` (titled `server`) into `draft`.
pub(super) fn attach(
    (plugins, draft, toasts, i18n): (Plugins, Draft, Toasts, I18n),
    plugin_id: String,
    server: String,
    resource: McpResource,
) {
    let title = resource.title.clone();
    toasts.show(
        ToastKind::Info,
        i18n.t_with(
            Key::MentionAttaching,
            &[("title", &title), ("server", &server)],
        ),
    );
    spawn_local(async move {
        let read = plugins
            .mcp_resources(&plugin_id, McpResourcesAction::Read { uri: resource.uri })
            .await
            .map_err(|error| error.to_string())
            .and_then(|result| resource_files(&result).map_err(|error| error.to_string()));
        match read {
            Ok(files) => draft.add_all(files.into_iter().filter_map(as_file).collect()),
            Err(reason) => toasts.show(
                ToastKind::Error,
                i18n.t_with(
                    Key::MentionFailed,
                    &[("title", &title), ("reason", &reason)],
                ),
            ),
        }
    });
}

/// A resource's file as a browser `File` (its type left to the attachments, which read
/// it from the bytes).
fn as_file(file: ResourceFile) -> Option<web_sys::File> {
    let bytes = js_sys::Uint8Array::from(file.bytes.as_slice());
    let parts = js_sys::Array::of1(&bytes);
    web_sys::File::new_with_u8_array_sequence(&parts, &file.name).ok()
}
