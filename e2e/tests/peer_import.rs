//! Importing other apps' exports in Chromium, through Settings › Data's one import:
//! ChatGPT's ZIP (deflated, written by another ZIP implementation) with a regenerated
//! reply, Claude's `conversations.json` and a NextChat backup that holds an API key.
//! Each is named in the confirmation with what it held that is not imported; the
//! conversations open with their branches, can be continued with a provider (the
//! request carries the imported turns), come in once however often they are imported,
//! and no key of the other app is ever stored.

use std::path::Path;

use hearth_e2e::AppSession;
use hearth_e2e::chat::{last_status, messages, ready, send};
use hearth_e2e::paths::scratch_dir;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

fn node(id: &str, parent: Option<&str>, children: &[&str], message: Value) -> Value {
    json!({"id": id, "parent": parent, "children": children, "message": message})
}

fn message(role: &str, at: f64, content: Value) -> Value {
    json!({
        "id": format!("msg-{at}"),
        "author": {"role": role, "name": null, "metadata": {}},
        "create_time": at,
        "content": content,
        "status": "finished_successfully",
        "metadata": {"model_slug": "gpt-4o"},
        "recipient": "all",
    })
}

fn text(text: &str) -> Value {
    json!({"content_type": "text", "parts": [text]})
}

/// ChatGPT's `conversations.json`: a question with an image, a reply regenerated once
/// (the first one is on the path shown), and a second exchange after it.
fn chatgpt_conversations() -> Value {
    let mut system = message("system", 1.0, text(""));
    system["metadata"]["is_visually_hidden_from_conversation"] = json!(true);
    json!([{
        "title": "Cat or dog",
        "create_time": 1_700_000_000.0,
        "update_time": 1_700_000_100.0,
        "conversation_id": "6f0e-chatgpt",
        "id": "6f0e-chatgpt",
        "current_node": "a2",
        "mapping": {
            "root": node("root", None, &["sys"], Value::Null),
            "sys": node("sys", Some("root"), &["q1"], system),
            "q1": node("q1", Some("sys"), &["a1", "a1b"], message("user", 1_700_000_001.0, json!({
                "content_type": "multimodal_text",
                "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-x"}, "What is in the picture?"]
            }))),
            "a1": node("a1", Some("q1"), &["q2"], message("assistant", 1_700_000_002.0, text("A **cat**."))),
            "a1b": node("a1b", Some("q1"), &[], message("assistant", 1_700_000_003.0, text("A dog."))),
            "q2": node("q2", Some("a1"), &["a2"], message("user", 1_700_000_004.0, text("What colour?"))),
            "a2": node("a2", Some("q2"), &[], message("assistant", 1_700_000_005.0, text("Orange."))),
        }
    }])
}

/// A ZIP as ChatGPT sends it: deflated entries beside the conversations.
fn chatgpt_zip(path: &Path) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).expect("create"));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in [
        ("user.json", b"{\"id\": \"user-1\"}".to_vec()),
        (
            "conversations.json",
            chatgpt_conversations().to_string().into_bytes(),
        ),
        ("chat.html", b"<html><body>chats</body></html>".to_vec()),
    ] {
        zip.start_file(name, deflated).expect("entry");
        std::io::Write::write_all(&mut zip, &bytes).expect("write");
    }
    zip.finish().expect("finish");
}

/// Chooses `path`, waits for the confirmation, checks that it names `app` and holds
/// `expect` in its summary and `left_out` in what it leaves, and imports.
async fn import(session: &AppSession, path: &Path, app: &str, expect: &str, left_out: &str) {
    session.choose_files("#data-import-file", &[path]).await;
    session
        .wait_until("!!document.getElementById('data-import-summary')")
        .await;
    let summary = session.text_of("#data-import-summary").await;
    assert!(
        summary.contains(&format!("is an export from {app}")) && summary.contains(expect),
        "{summary}"
    );
    let omitted = session.text_of("#data-import-left-out").await;
    assert!(omitted.contains(left_out), "{omitted}");
    session
        .js(
            "document.getElementById('data-import-confirm').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await;
    session
        .screenshot(&format!("settings-data-import-{}", app.to_lowercase()))
        .await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("!document.getElementById('data-import-summary')")
        .await;
}

/// Every record of every store of the app's database, as one JSON text.
async fn database_text(session: &AppSession) -> String {
    let text = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             const open = indexedDB.open('hearth');
             open.onerror = () => done('open failed');
             open.onsuccess = async () => {
               const db = open.result;
               const out = [];
               for (const name of db.objectStoreNames) {
                 const all = await new Promise((resolve) => {
                   const request = db.transaction(name).objectStore(name).getAll();
                   request.onsuccess = () => resolve(request.result);
                   request.onerror = () => resolve([]);
                 });
                 out.push(JSON.stringify(all));
               }
               db.close();
               done(out.join('\\n'));
             };",
            vec![],
        )
        .await;
    text.as_str().unwrap_or_default().to_string()
}

async fn open_conversation(session: &AppSession, title: &str) {
    let opened = session
        .js(
            "const item = [...document.querySelectorAll('.conversation-item')]
               .find((i) => i.querySelector('.conversation-item__title')?.textContent === arguments[0]);
             item?.querySelector('.conversation-item__open')?.click();
             return !!item;",
            vec![json!(title)],
        )
        .await;
    assert_eq!(opened, json!(true), "no conversation {title}");
}

#[tokio::test]
async fn other_apps_exports_come_in_with_their_branches_and_without_their_keys() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let dir = scratch_dir("peer-import");
    session.open_settings_tab("data").await;

    // ChatGPT's ZIP: the six steps it shows are five messages, one of them a branch.
    let chatgpt = dir.join("chatgpt-export.zip");
    chatgpt_zip(&chatgpt);
    import(
        &session,
        &chatgpt,
        "ChatGPT",
        "conversations 1 · messages 5",
        "images 1",
    )
    .await;
    // Again: everything is already here.
    session.choose_files("#data-import-file", &[&chatgpt]).await;
    session
        .wait_until("document.getElementById('data-import-summary')?.textContent.includes('conversations 0 · messages 0')")
        .await;
    session.click_by_script("#data-import-confirm").await;
    session
        .wait_until("!document.getElementById('data-import-summary')")
        .await;

    // Claude's conversations.json, chosen on its own.
    let claude = dir.join("conversations.json");
    std::fs::write(
        &claude,
        json!([{
            "uuid": "c-1", "name": "Haiku", "created_at": "2024-06-01T10:00:00Z", "updated_at": "2024-06-01T10:01:00Z",
            "chat_messages": [
                {"uuid": "h1", "sender": "human", "text": "A haiku on rain", "created_at": "2024-06-01T10:00:01Z",
                 "attachments": [{"file_name": "draft.txt", "extracted_content": "rain"}], "files": []},
                {"uuid": "h2", "sender": "assistant", "text": "", "created_at": "2024-06-01T10:00:02Z",
                 "content": [{"type": "thinking", "thinking": "Five, seven, five."}, {"type": "text", "text": "Soft rain on the roof"}]}
            ]
        }])
        .to_string(),
    )
    .unwrap();
    import(
        &session,
        &claude,
        "Claude",
        "conversations 1 · messages 2",
        "attached files 1",
    )
    .await;

    // NextChat's backup, API key and access code included.
    let nextchat = dir.join("nextchat-backup.json");
    std::fs::write(
        &nextchat,
        json!({
            "chat-next-web-store": {"sessions": [{
                "id": "n-1", "topic": "Magnets", "lastUpdate": 1_720_000_000_000u64,
                "messages": [
                    {"id": "x1", "role": "user", "content": "How do magnets work?", "date": "7/3/2024, 10:00:00 AM"},
                    {"id": "x2", "role": "assistant", "content": "Aligned spins.", "date": "7/3/2024, 10:00:05 AM"}
                ]
            }]},
            "access-control": {"openaiApiKey": "sk-nextchat-e2e-secret", "accessCode": "e2e-access-code"}
        })
        .to_string(),
    )
    .unwrap();
    import(
        &session,
        &nextchat,
        "NextChat",
        "conversations 1 · messages 2",
        "the app's settings",
    )
    .await;
    session.screenshot("settings-data-peer-import").await;
    let stored = database_text(&session).await;
    assert!(
        stored.contains("Aligned spins."),
        "the records are readable"
    );
    assert!(
        !stored.contains("sk-nextchat-e2e-secret") && !stored.contains("e2e-access-code"),
        "another app's key is never stored"
    );

    // A file of none of these formats is refused, naming what Hearth reads.
    let other = dir.join("other.json");
    std::fs::write(&other, r#"[{"question": "q", "answer": "a"}]"#).unwrap();
    session.choose_files("#data-import-file", &[&other]).await;
    session
        .wait_until("document.getElementById('data-error')?.textContent.includes('neither a Hearth export')")
        .await;
    session
        .wait_until("document.getElementById('data-counts')?.textContent.includes('Conversations: 3 · Messages: 9')")
        .await;
    session.press(&[fantoccini::key::Key::Escape]).await;

    // The ChatGPT conversation opens on the path it showed, with the branch one step away.
    open_conversation(&session, "Cat or dog").await;
    // The replies are Markdown, rendered by the worker.
    session
        .wait_until("document.querySelectorAll('.message').length === 4 && !!document.querySelector('.message--assistant .markdown strong')")
        .await;
    assert_eq!(
        messages(&session).await,
        json!([
            ["user", "done", "What is in the picture?"],
            ["assistant", "done", "A cat."],
            ["user", "done", "What colour?"],
            ["assistant", "done", "Orange."],
        ])
    );
    session
        .wait_until("document.querySelector('.message--assistant .branch__position')?.textContent === '1/2'")
        .await;
    session
        .click_by_script(".message--assistant .branch button:last-of-type")
        .await;
    session
        .wait_until("document.querySelectorAll('.message').length === 2 && document.querySelectorAll('.message')[1].textContent.includes('A dog.')")
        .await;
    session
        .click_by_script(".message--assistant .branch button:first-of-type")
        .await;
    session
        .wait_until("document.querySelectorAll('.message').length === 4")
        .await;

    // And it goes on like any conversation: the request carries the imported turns.
    fixture.enqueue(Reply::text("Ginger, most likely."));
    send(&session, "Which shade?").await;
    session
        .wait_until("document.querySelectorAll('.message').length === 6")
        .await;
    last_status(&session, "done").await;
    let request = fixture
        .requests()
        .iter()
        .rev()
        .map(|r| r.json())
        .find(|body| body["messages"].to_string().contains("Which shade?"))
        .expect("the chat request");
    let sent: Vec<String> = request["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| match &m["content"] {
            Value::String(text) => text.clone(),
            parts => parts
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["text"].as_str())
                .collect::<String>(),
        })
        .collect();
    assert_eq!(
        sent,
        [
            "What is in the picture?",
            "A **cat**.",
            "What colour?",
            "Orange.",
            "Which shade?"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}
