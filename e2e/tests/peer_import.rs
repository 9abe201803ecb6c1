//! Importing other apps' exports in Chromium, through Settings › Data's one import:
//! ChatGPT's ZIP (deflated, written by another ZIP implementation) with a regenerated
//! reply, an uploaded image and document and a generated image, Claude's
//! `conversations.json` with an attachment's text, and a NextChat backup that holds an
//! API key. Each is named in the confirmation with what it held that is not imported;
//! the conversations open with their branches and their files (images scaled and shown
//! as thumbnails, documents as text), can be continued with a provider (the request
//! carries the imported turns, the image and the document's text), come in once however
//! often they are imported, and no key of the other app is ever stored.

use std::path::Path;

use hearth_e2e::AppSession;
use hearth_e2e::attach::{gradient_png, stored_files};
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

/// ChatGPT's `conversations.json`: a question with an image and a document, a reply
/// regenerated once (the first one is on the path shown), and a second exchange after
/// it whose question names an image the export does not hold and whose reply comes with
/// an image the model generated.
fn chatgpt_conversations() -> Value {
    let mut system = message("system", 1.0, text(""));
    system["metadata"]["is_visually_hidden_from_conversation"] = json!(true);
    let mut question = message(
        "user",
        1_700_000_001.0,
        json!({
            "content_type": "multimodal_text",
            "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-x"}, "What is in the picture?"]
        }),
    );
    question["metadata"]["attachments"] = json!([
        {"id": "file-x", "name": "cat.png", "mime_type": "image/png"},
        {"id": "file-notes", "name": "notes.md", "mime_type": "text/markdown"}
    ]);
    let colour = message(
        "user",
        1_700_000_004.0,
        json!({
            "content_type": "multimodal_text",
            "parts": ["What colour?", {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-gone"}]
        }),
    );
    let mut call = message(
        "assistant",
        1_700_000_004.5,
        text("{\"prompt\": \"an orange cat\"}"),
    );
    call["recipient"] = json!("dalle.text2im");
    let generated = message(
        "tool",
        1_700_000_004.8,
        json!({
            "content_type": "multimodal_text",
            "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "sediment://file_00000000aa11"}]
        }),
    );
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
            "q1": node("q1", Some("sys"), &["a1", "a1b"], question),
            "a1": node("a1", Some("q1"), &["q2"], message("assistant", 1_700_000_002.0, text("A **cat**."))),
            "a1b": node("a1b", Some("q1"), &[], message("assistant", 1_700_000_003.0, text("A dog."))),
            "q2": node("q2", Some("a1"), &["call"], colour),
            "call": node("call", Some("q2"), &["gen"], call),
            "gen": node("gen", Some("call"), &["a2"], generated),
            "a2": node("a2", Some("gen"), &[], message("assistant", 1_700_000_005.0, text("Orange."))),
        }
    }])
}

/// A ZIP as ChatGPT sends it: deflated entries beside the conversations, the uploaded
/// files named after their ids, the generated image in its own folder (a PNG, though
/// named `.webp`: its bytes say what it is).
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
        ("file-x-cat.png", gradient_png(300, 200)),
        (
            "file-notes-notes.md",
            b"# Cat notes\n\nThe cat is called Marmalade.\n".to_vec(),
        ),
        (
            "dalle-generations/file_00000000aa11-7f3e.webp",
            gradient_png(64, 64),
        ),
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
    fixture.set_listing_fields(
        "fixture-small",
        json!({"architecture": {"input_modalities": ["text", "image"]}}),
    );
    let session = ready(&fixture).await;
    let dir = scratch_dir("peer-import");
    session.open_settings_tab("data").await;

    // ChatGPT's ZIP: the six steps it shows are five messages, one of them a branch.
    let chatgpt = dir.join("chatgpt-export.zip");
    chatgpt_zip(&chatgpt);
    // Its three files come in; the image it only names is said to be left out.
    import(
        &session,
        &chatgpt,
        "ChatGPT",
        "conversations 1 · messages 5 · files 3",
        "images 1",
    )
    .await;
    session.wait_for_toast("Files: 3").await;
    assert_eq!(
        stored_files(&session).await.as_array().map(Vec::len),
        Some(6),
        "two images with their thumbnails, a document with its text"
    );
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
                 "attachments": [{"file_name": "draft.txt", "extracted_content": "rain"}],
                 "files": [{"file_name": "sky.jpg"}]},
                {"uuid": "h2", "sender": "assistant", "text": "", "created_at": "2024-06-01T10:00:02Z",
                 "content": [{"type": "thinking", "thinking": "Five, seven, five."}, {"type": "text", "text": "Soft rain on the roof"}]}
            ]
        }])
        .to_string(),
    )
    .unwrap();
    // The attachment comes in with its text; the file Claude kept only the name of does
    // not.
    import(
        &session,
        &claude,
        "Claude",
        "conversations 1 · messages 2 · files 1",
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
    // The question carries its image (a thumbnail) and its document; the last reply the
    // image its model generated.
    let chips = session
        .js(
            "return [...document.querySelectorAll('.message')].map((m) =>
               [...m.querySelectorAll('.attachment-chip')].map((c) =>
                 [c.querySelector('.attachment-chip__name').textContent, c.dataset.kind]));",
            vec![],
        )
        .await;
    assert_eq!(
        chips,
        json!([
            [["cat.png", "png"], ["notes.md", "markdown"]],
            [],
            [],
            [["7f3e.webp", "png"]]
        ])
    );
    session
        .wait_until(
            "[...document.querySelectorAll('.message .attachment-chip__thumb')]
               .filter((img) => img.complete && img.naturalWidth > 0).length === 2",
        )
        .await;
    session.screenshot("peer-import-files").await;
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
    // The imported image goes to a model that sees (the generated one is the reply's, and
    // replies carry no images); the document's text is the request's context.
    let images: Vec<&Value> = request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|part| part["type"] == "image_url")
        .collect();
    assert_eq!(images.len(), 1, "{request}");
    assert!(
        request["messages"]
            .to_string()
            .contains("The cat is called Marmalade."),
        "{request}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    session.finish().await;
}
