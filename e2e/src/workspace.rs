//! Workspaces from the sidebar, as a user reaches them by keyboard.

use fantoccini::key::Key;
use serde_json::json;

use crate::AppSession;

/// Opens the sidebar's workspace menu from the keyboard and chooses the item whose
/// `data-workspace-choice` is `id` ("" for all conversations) with the arrow keys.
pub async fn choose_workspace(session: &AppSession, id: &str) {
    session
        .js(
            "document.getElementById('sidebar-workspace').focus()",
            vec![],
        )
        .await;
    session.press(&[Key::Down]).await;
    session
        .wait_until("document.activeElement?.closest('#workspace-menu') !== null")
        .await;
    for _ in 0..8 {
        let on = session
            .js(
                "return document.activeElement?.dataset.workspaceChoice ?? null",
                vec![],
            )
            .await;
        if on == json!(id) {
            break;
        }
        session.press(&[Key::Down]).await;
    }
    session.press(&[Key::Enter]).await;
    session
        .wait_until("document.getElementById('workspace-menu')?.hidden !== false")
        .await;
    assert_eq!(
        session
            .js("return document.activeElement?.id", vec![])
            .await,
        json!("sidebar-workspace"),
        "focus goes back to the button"
    );
}
