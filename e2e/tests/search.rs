//! Global search in Chromium against the real build: the palette (Ctrl+K, keyboard only)
//! finds text on a conversation's active branch and never on an inactive one, opens a
//! result at its message in a 10,000-message conversation, finds Chinese and Japanese,
//! answers after a reload from the snapshot the worker saved in OPFS (without building
//! again), finds a message another tab wrote, and the sidebar filter matches titles only;
//! it finds memories, workspaces, knowledge collections and passages of their files too,
//! and opens each where it lives.

use fantoccini::key::Key;
use hearth_e2e::AppSession;
use hearth_e2e::chat::{last_status, ready, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

/// Seeds conversations straight into IndexedDB, as an earlier version (without the
/// search journal) would have left them: `[{id, title, updatedAt?, messages: [{id,
/// parentId, activeChildId, role, content}]}]`, each conversation's active root its
/// first message.
const SEED: &str = r#"
const [conversations, done] = [arguments[0], arguments[arguments.length - 1]];
const open = indexedDB.open('hearth');
open.onsuccess = () => {
  const tx = open.result.transaction(['conversations', 'messages'], 'readwrite');
  const now = Date.now();
  conversations.forEach((c, n) => {
    tx.objectStore('conversations').put({ id: c.id, title: c.title, titleByUser: true,
      pinned: false, activeRootId: c.messages[0]?.id ?? null, createdAt: now - n,
      updatedAt: c.updatedAt ?? now - n, rev: 1 });
    c.messages.forEach((m, i) => tx.objectStore('messages').put({ id: m.id,
      conversationId: c.id, parentId: m.parentId ?? null, activeChildId: m.activeChildId ?? null,
      role: m.role, content: m.content, reasoning: m.reasoning ?? '', status: 'done',
      createdAt: now + i, updatedAt: now + i, rev: 1 }));
  });
  tx.oncomplete = () => done(true);
  tx.onerror = () => done(String(tx.error));
};
"#;

/// Seeds conversation `c-long` of `count` messages in one chain, message `m<at>` holding
/// the word "xylophone".
const SEED_LONG: &str = r#"
const [count, at, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const open = indexedDB.open('hearth');
open.onsuccess = () => {
  const tx = open.result.transaction(['conversations', 'messages'], 'readwrite');
  const now = Date.now();
  tx.objectStore('conversations').put({ id: 'c-long', title: 'Ten thousand messages',
    titleByUser: true, pinned: false, activeRootId: 'm0', createdAt: now, updatedAt: now, rev: 1 });
  const messages = tx.objectStore('messages');
  for (let i = 0; i < count; i++) {
    messages.put({ id: 'm' + i, conversationId: 'c-long',
      parentId: i === 0 ? null : 'm' + (i - 1),
      activeChildId: i === count - 1 ? null : 'm' + (i + 1),
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: i === at ? 'Message ' + i + ' plays a xylophone solo.' : 'Message ' + i + ' about nothing much.',
      reasoning: '', status: 'done', createdAt: now + i, updatedAt: now + i, rev: 1 });
  }
  tx.oncomplete = () => done(true);
  tx.onerror = () => done(String(tx.error));
};
"#;

async fn seed(session: &AppSession, script: &str, args: Vec<Value>) {
    let seeded = session
        .client
        .execute_async(script, args)
        .await
        .expect("seed IndexedDB");
    assert_eq!(seeded, json!(true), "{seeded}");
}

/// Opens the palette with Ctrl+K and searches for `query`.
async fn search(session: &AppSession, query: &str) {
    let open = session
        .js(
            "return !!document.querySelector('dialog.dialog--search')?.open",
            vec![],
        )
        .await;
    if open != json!(true) {
        session.press_ctrl('k').await;
    }
    let input = session.wait_for(".search-palette__input").await;
    input.clear().await.expect("clear");
    input.send_keys(query).await.expect("type the query");
}

/// The result titles and passages shown for the current query.
async fn results(session: &AppSession) -> Value {
    session
        .js(
            "return [...document.querySelectorAll('.search-result')].map((r) => [
               r.querySelector('.search-result__title').textContent,
               r.querySelector('.search-result__passage').textContent,
               [...r.querySelectorAll('mark')].map((m) => m.textContent)]);",
            vec![],
        )
        .await
}

async fn wait_for_results(session: &AppSession, count: usize) {
    session
        .wait_until(&format!(
            "document.querySelectorAll('.search-result').length === {count} && \
             [...document.querySelectorAll('.search-result__passage')].every((p) => p.textContent.length > 0)"
        ))
        .await;
}

async fn wait_for_no_results(session: &AppSession, query: &str) {
    session
        .wait_until(&format!(
            "document.querySelector('.search-palette__status')?.textContent.includes('{query}') && \
             document.querySelectorAll('.search-result').length === 0"
        ))
        .await;
}

fn monotremes() -> Value {
    json!([{
        "id": "c-branch",
        "title": "Monotremes",
        "messages": [
            { "id": "u0", "role": "user", "content": "Which mammals lay eggs?", "activeChildId": "a2" },
            { "id": "a1", "role": "assistant", "parentId": "u0", "content": "The echidna lays eggs." },
            { "id": "a2", "role": "assistant", "parentId": "u0", "content": "The platypus lays eggs." }
        ]
    }, {
        "id": "c-cjk",
        "title": "旅行の計画",
        "messages": [
            { "id": "z0", "role": "user", "content": "我们讨论了数据库索引的设计。", "activeChildId": "j1" },
            { "id": "j1", "role": "assistant", "parentId": "z0", "content": "昨日は東京タワーに行きました。" }
        ]
    }])
}

#[tokio::test]
async fn the_palette_finds_the_active_branch_and_opens_a_result_at_its_message() {
    let session = AppSession::open(1280, 900).await;
    seed(&session, SEED, vec![monotremes()]).await;
    seed(&session, SEED_LONG, vec![json!(10_000), json!(4321)]).await;
    session.reload_app().await;
    session.wait_for(".conversation-item__open").await;

    search(&session, "platypus").await;
    wait_for_results(&session, 1).await;
    let found = results(&session).await;
    assert_eq!(found[0][0], json!("Monotremes"), "{found}");
    assert_eq!(found[0][2], json!(["platypus"]), "{found}");
    // The combobox points at the listbox and its active option.
    let aria = session
        .js(
            "const i = document.querySelector('.search-palette__input');
             return [i.getAttribute('role'), i.getAttribute('aria-expanded'),
               i.getAttribute('aria-activedescendant'),
               document.getElementById(i.getAttribute('aria-controls'))?.getAttribute('role'),
               document.querySelector('.search-result')?.getAttribute('aria-selected')];",
            vec![],
        )
        .await;
    assert_eq!(
        aria,
        json!(["combobox", "true", "search-option-0", "listbox", "true"])
    );

    // Only on an inactive branch: not found, and the state says so.
    search(&session, "echidna").await;
    wait_for_no_results(&session, "echidna").await;

    // Chinese and Japanese, by the characters as written.
    search(&session, "数据库").await;
    wait_for_results(&session, 1).await;
    assert_eq!(results(&session).await[0][2], json!(["数据库"]));
    search(&session, "東京タワー").await;
    wait_for_results(&session, 1).await;
    assert_eq!(results(&session).await[0][0], json!("旅行の計画"));
    search(&session, "京都").await;
    wait_for_no_results(&session, "京都").await;

    // Keyboard only: Enter opens the result, scrolled to and highlighted.
    search(&session, "xylophone").await;
    wait_for_results(&session, 1).await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until("!document.querySelector('dialog.dialog--search')?.open")
        .await;
    session
        .wait_until(
            "(() => { const row = document.querySelector('[data-row=m4321]'); \
             const list = document.querySelector('.message-list'); \
             if (!row || !list) return false; \
             const a = row.getBoundingClientRect(), b = list.getBoundingClientRect(); \
             return row.classList.contains('message-row--found') && a.top >= b.top - 1 && a.bottom <= b.bottom + 1; })()",
        )
        .await;
    let text = session.text_of("[data-row=m4321]").await;
    assert!(text.contains("xylophone solo"), "{text}");
    session.finish().await;
}

/// Waits until the worker has saved its snapshot (a few seconds after the last change).
async fn wait_for_snapshot(session: &AppSession) {
    for _ in 0..200 {
        let size = session
            .client
            .execute_async(SNAPSHOT_SIZE, vec![])
            .await
            .expect("read OPFS");
        // More than the 16-byte header: an index was written.
        if size.as_f64().unwrap_or(0.0) > 16.0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the index was never saved");
}

#[tokio::test]
async fn a_reload_answers_from_the_saved_index_without_building_again() {
    let session = AppSession::open(1280, 900).await;
    seed(&session, SEED, vec![monotremes()]).await;
    session.reload_app().await;
    session.wait_for(".conversation-item__open").await;
    search(&session, "platypus").await;
    wait_for_results(&session, 1).await;
    let built = session
        .js(
            "return performance.getEntriesByName('hearth:search:built').length",
            vec![],
        )
        .await;
    assert_eq!(built, json!(1), "the first use builds the index");
    // Saved by the worker a few seconds after the build.
    wait_for_snapshot(&session).await;

    session.reload_app().await;
    session.wait_for(".conversation-item__open").await;
    search(&session, "platypus").await;
    wait_for_results(&session, 1).await;
    let marks = session
        .js(
            "return ['hearth:search:built', 'hearth:search:restored']
               .map((n) => performance.getEntriesByName(n).length)",
            vec![],
        )
        .await;
    assert_eq!(marks, json!([0, 1]), "answered from the snapshot");
    session.finish().await;
}

#[tokio::test]
async fn a_message_written_in_another_tab_is_found() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(Reply::text("Stars are far away."));
    send(&session, "Tell me about stars").await;
    last_status(&session, "done").await;
    // The first tab's index is up.
    search(&session, "stars").await;
    wait_for_results(&session, 1).await;
    session.press(&[Key::Escape]).await;

    let (first, _) = session.open_tab().await;
    session.open_app("/").await;
    session.wait_for(".conversation-item__open").await;
    fixture.enqueue(Reply::text("Quasars are the brightest."));
    send(&session, "And quasars?").await;
    last_status(&session, "done").await;

    session.client.switch_to_window(first).await.expect("back");
    search(&session, "quasars").await;
    wait_for_results(&session, 1).await;
    let found = results(&session).await;
    assert!(
        found[0][1].as_str().unwrap_or_default().contains("uasars"),
        "{found}"
    );
    session.browser.close().await;
}

#[tokio::test]
async fn the_sidebar_filter_matches_titles_only() {
    let session = AppSession::open(1280, 900).await;
    let conversations = json!([
        { "id": "r1", "title": "Rust borrow checker", "messages": [
            { "id": "r1m", "role": "user", "content": "I also bake sourdough bread." } ] },
        { "id": "s1", "title": "Sourdough starter", "messages": [
            { "id": "s1m", "role": "user", "content": "How often to feed it?" } ] },
        { "id": "r2", "title": "Rust async runtimes", "messages": [
            { "id": "r2m", "role": "user", "content": "Tokio or smol?" } ] }
    ]);
    seed(&session, SEED, vec![conversations]).await;
    session.reload_app().await;
    session
        .wait_until("document.querySelectorAll('.conversation-item').length === 3")
        .await;
    let titles = "return [...document.querySelectorAll('.conversation-item__title')].map((t) => t.textContent).sort()";
    let filter = session.wait_for("#sidebar-filter").await;
    filter.send_keys("rust").await.expect("type");
    session
        .wait_until("document.querySelectorAll('.conversation-item').length === 2")
        .await;
    assert_eq!(
        session.js(titles, vec![]).await,
        json!(["Rust async runtimes", "Rust borrow checker"])
    );
    filter.clear().await.expect("clear");
    filter.send_keys("sourdough").await.expect("type");
    session
        .wait_until("document.querySelectorAll('.conversation-item').length === 1")
        .await;
    assert_eq!(
        session.js(titles, vec![]).await,
        json!(["Sourdough starter"])
    );
    filter.clear().await.expect("clear");
    filter.send_keys("zzzz").await.expect("type");
    session.wait_for(".sidebar__filter-empty").await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("document.querySelectorAll('.conversation-item').length === 3")
        .await;
    session.finish().await;
}

#[tokio::test]
async fn the_palette_fits_a_phone() {
    let session = AppSession::open(390, 844).await;
    seed(&session, SEED, vec![monotremes()]).await;
    session.reload_app().await;
    search(&session, "eggs").await;
    wait_for_results(&session, 1).await;
    let fits = session
        .js(
            "const d = document.querySelector('dialog.dialog--search').getBoundingClientRect();
             return d.left >= 0 && d.right <= window.innerWidth &&
               document.documentElement.scrollWidth <= window.innerWidth;",
            vec![],
        )
        .await;
    assert_eq!(fits, json!(true));
    session.screenshot("search-palette-phone").await;
    session.finish().await;
}

#[tokio::test]
async fn delete_all_erases_the_saved_index_and_search_finds_nothing() {
    let session = AppSession::open(1280, 900).await;
    seed(&session, SEED, vec![monotremes()]).await;
    session.reload_app().await;
    session.wait_for(".conversation-item__open").await;
    search(&session, "platypus").await;
    wait_for_results(&session, 1).await;
    wait_for_snapshot(&session).await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog.dialog--search')?.open")
        .await;

    session.open_settings_tab("data").await;
    hearth_e2e::export::delete_all_conversations(&session).await;
    session.press(&[Key::Escape]).await;
    session
        .wait_until("!document.querySelector('dialog')?.open")
        .await;
    // Gone with the data (or, once the emptied index is saved again, a file of an empty
    // index: a header and no terms).
    let size = session
        .client
        .execute_async(SNAPSHOT_SIZE, vec![])
        .await
        .expect("read OPFS");
    assert!(size.as_f64().unwrap_or(f64::MAX) < 256.0, "{size}");
    search(&session, "platypus").await;
    wait_for_no_results(&session, "platypus").await;
    session.press(&[Key::Escape]).await;
    session.reload_app().await;
    search(&session, "platypus").await;
    wait_for_no_results(&session, "platypus").await;
    session.finish().await;
}

/// The size of the worker's snapshot file (0 when there is none).
const SNAPSHOT_SIZE: &str = r#"
const done = arguments[arguments.length - 1];
navigator.storage.getDirectory()
  .then((root) => root.getDirectoryHandle('search'))
  .then((dir) => dir.getFileHandle('conversations.idx'))
  .then((file) => file.getFile())
  .then((file) => done(file.size), () => done(0));
"#;

#[tokio::test]
async fn the_palette_finds_memories_workspaces_and_collections_and_opens_each_where_it_lives() {
    let session = AppSession::open(1280, 900).await;
    // A memory and a workspace, made where the user makes them.
    session.open_settings_tab("memory").await;
    session.wait_for("#memory-panel").await;
    session
        .set_value("#memory-content", "The user's cat is called Marmalade.")
        .await;
    session.set_value("#memory-tags", "pets").await;
    session.click_by_script("#memory-save").await;
    session
        .wait_until("document.querySelectorAll('#memory-list [data-memory]').length === 1")
        .await;
    session.open_settings_tab("workspaces").await;
    session.wait_for("#workspaces-empty").await;
    session.click_by_script("#workspaces-new").await;
    session.fill("#workspace-editor-name", "Garden club").await;
    session
        .fill("#workspace-editor-prompt", "Answer about roses and soil.")
        .await;
    session.click_by_script("#workspace-editor-save").await;
    session.wait_for_toast("Workspace saved.").await;
    session.open_settings_tab("knowledge").await;
    session.wait_for("#knowledge-name").await;
    let collection =
        hearth_e2e::knowledge::create(&session, "Tax papers", "Receipts for the accountant").await;
    session.close_settings().await;

    // A memory: found by its words, highlighted, labelled; Enter shows it in Settings.
    search(&session, "marmalade").await;
    wait_for_results(&session, 1).await;
    assert_eq!(
        results(&session).await,
        json!([["pets", "The user's cat is called Marmalade.", ["Marmalade"]]])
    );
    assert_eq!(
        session
            .js(
                "return document.querySelector('.search-result').dataset.searchKind",
                vec![]
            )
            .await,
        json!("memory")
    );
    session
        .wait_until("document.querySelector('.search-palette__status').textContent.includes('memories, workspaces and collections: 1')")
        .await;
    session.screenshot("search-memory").await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until(
            "(() => { const card = document.querySelector('#memory-list .plugin-card--found');
                      return !!card && document.activeElement === card.querySelector('[data-memory-edit]'); })()",
        )
        .await;
    session.close_settings().await;

    // A workspace: found by its instructions; Enter makes it the current one.
    search(&session, "roses").await;
    wait_for_results(&session, 1).await;
    assert_eq!(
        results(&session).await,
        json!([["Garden club", "Answer about roses and soil.", ["roses"]]])
    );
    session.press(&[Key::Enter]).await;
    session
        .wait_until(
            "document.getElementById('sidebar-workspace')?.textContent.includes('Garden club')",
        )
        .await;
    assert_eq!(
        session
            .js(
                "return !!document.querySelector('dialog.dialog--search')?.open",
                vec![]
            )
            .await,
        json!(false)
    );

    // A collection: found by its description; Enter shows it in Settings › Knowledge.
    search(&session, "accountant").await;
    wait_for_results(&session, 1).await;
    assert_eq!(
        results(&session).await,
        json!([["Tax papers", "Receipts for the accountant", ["accountant"]]])
    );
    assert_eq!(
        session
            .text_of(".search-result[data-search-kind='knowledge'] .search-result__date")
            .await,
        "Knowledge collection"
    );
    session.press(&[Key::Enter]).await;
    session
        .wait_until(&format!(
            "(() => {{ const card = document.querySelector('[data-collection=\"{collection}\"].plugin-card--found');
                      return !!card && document.activeElement === card.querySelector('[data-knowledge-edit]'); }})()"
        ))
        .await;
    session.close_settings().await;

    // A passage of one of its files: found by the file's words (asked of the worker),
    // labelled with where it is; Enter shows its collection in Settings › Knowledge.
    let invoice = hearth_e2e::paths::scratch_dir("search-knowledge-file").join("invoice-march.md");
    std::fs::write(
        &invoice,
        "# March\n\nTwelve crates of quince delivered to the orchard.\n",
    )
    .unwrap();
    session.open_settings_tab("knowledge").await;
    session
        .choose_files(&format!("#knowledge-add-{collection}"), &[&invoice])
        .await;
    hearth_e2e::knowledge::wait_stage(&session, "invoice-march.md", "ready").await;
    session.close_settings().await;
    let files_asked = "return performance.getEntriesByName('hearth:search:files-asked').length";
    let asked_before = session.js(files_asked, vec![]).await.as_u64().unwrap();
    search(&session, "quince").await;
    wait_for_results(&session, 1).await;
    // The files are searched once the query rests, not for each of its six keystrokes.
    let asked = session.js(files_asked, vec![]).await.as_u64().unwrap() - asked_before;
    assert!(
        (1..6).contains(&asked),
        "the files were searched {asked} times"
    );
    let found = results(&session).await;
    assert!(
        found[0][0]
            .as_str()
            .unwrap()
            .starts_with("Tax papers › invoice-march.md")
            && found[0][1]
                .as_str()
                .unwrap()
                .starts_with("Twelve crates of quince delivered")
            && found[0][2] == json!(["quince"]),
        "{found}"
    );
    assert_eq!(
        session
            .text_of(".search-result[data-search-kind='knowledge-file'] .search-result__date")
            .await,
        "Knowledge file"
    );
    session.screenshot("search-knowledge-file").await;
    session.press(&[Key::Enter]).await;
    session
        .wait_until(&format!(
            "(() => {{ const card = document.querySelector('[data-collection=\"{collection}\"].plugin-card--found');
                      return !!card && document.activeElement === card.querySelector('[data-knowledge-edit]'); }})()"
        ))
        .await;
    session.close_settings().await;

    // Nothing matching anywhere says so; in Japanese the kinds are Japanese.
    search(&session, "volcano").await;
    wait_for_no_results(&session, "volcano").await;
    session.press(&[Key::Escape]).await;
    session.reload_in("ja").await;
    search(&session, "marmalade").await;
    wait_for_results(&session, 1).await;
    assert_eq!(
        session
            .text_of(".search-result[data-search-kind='memory'] .search-result__date")
            .await,
        "メモリー"
    );
    session.assert_no_console_errors().await;
    session.finish().await;
}
