//! A long conversation in Chromium against the real build: a flick through it makes
//! light rows (the message's text only), which become whole messages (Markdown, actions)
//! once the list rests, in order, without the list jumping away from where the flick
//! ended; the end of the conversation, reached by flicking back, is whole too.

use hearth_e2e::AppSession;
use serde_json::{Value, json};

/// Seeds one conversation of `count` messages, alternating questions and Markdown
/// answers of varied length.
const SEED_LONG: &str = r#"
const [count, done] = [arguments[0], arguments[arguments.length - 1]];
const open = indexedDB.open('hearth');
open.onsuccess = () => {
  const tx = open.result.transaction(['conversations', 'messages'], 'readwrite');
  const now = Date.now();
  tx.objectStore('conversations').put({ id: 'c-flick', title: 'A long flick',
    titleByUser: true, pinned: false, activeRootId: 'm0', createdAt: now, updatedAt: now, rev: 1 });
  const messages = tx.objectStore('messages');
  for (let i = 0; i < count; i++) {
    const user = i % 2 === 0;
    messages.put({ id: 'm' + i, conversationId: 'c-flick',
      parentId: i === 0 ? null : 'm' + (i - 1),
      activeChildId: i === count - 1 ? null : 'm' + (i + 1),
      role: user ? 'user' : 'assistant',
      content: user ? 'Question ' + i + '?' :
        'Answer **' + i + '** with `code`:\n\n- one\n- two\n\n' + 'More text. '.repeat(i % 13),
      reasoning: '', status: 'done', createdAt: now + i, updatedAt: now + i, rev: 1 });
  }
  tx.oncomplete = () => done(true);
  tx.onerror = () => done(String(tx.error));
};
"#;

/// Scrolls the list by `viewports` (negative: up), one viewport a frame, and answers
/// whether light rows were on screen at the end, with the row then at the top.
const FLICK: &str = r#"
const [viewports, done] = [arguments[0], arguments[arguments.length - 1]];
const list = document.querySelector('.message-list');
let steps = 0;
const step = () => {
  list.scrollTop = list.scrollTop + Math.sign(viewports) * list.clientHeight;
  steps += 1;
  if (steps < Math.abs(viewports)) { requestAnimationFrame(step); return; }
  requestAnimationFrame(() => {
    const box = list.getBoundingClientRect();
    const rows = [...list.querySelectorAll('.message-row')];
    const top = rows.find((r) => r.getBoundingClientRect().bottom > box.top + 1);
    done({ light: list.querySelectorAll('[data-light]').length,
      lightText: list.querySelector('[data-light] .message__text')?.textContent ?? null,
      lightActions: list.querySelectorAll('[data-light] .message__actions').length,
      top: top?.dataset.row ?? null });
  });
};
requestAnimationFrame(step);
"#;

/// Every rendered row: its id, whether it is whole (actions, and a reply's Markdown) and
/// whether it is in the list's visible box.
const ROWS: &str = r#"
const list = document.querySelector('.message-list');
const box = list.getBoundingClientRect();
return [...list.querySelectorAll('.message-row')].map((r) => {
  const a = r.getBoundingClientRect();
  const reply = r.querySelector('.message--assistant');
  return { id: r.dataset.row, light: r.hasAttribute('data-light'),
    whole: !!r.querySelector('.message__actions') && (!reply || !!reply.querySelector('.md-block')),
    visible: a.bottom > box.top && a.top < box.bottom };
});
"#;

async fn rows(session: &AppSession) -> Vec<Value> {
    session
        .js(ROWS, vec![])
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Waits until no row is light and every rendered row is whole.
async fn rested(session: &AppSession) -> Vec<Value> {
    session
        .wait_until(
            "(() => { const list = document.querySelector('.message-list'); \
             return !list.querySelector('[data-light]') && \
               [...list.querySelectorAll('.message-row')].every((r) => r.querySelector('.message__actions') && \
                 (!r.querySelector('.message--assistant') || r.querySelector('.md-block'))); })()",
        )
        .await;
    rows(session).await
}

fn index_of(id: &Value) -> u64 {
    id.as_str()
        .and_then(|id| id.strip_prefix('m'))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a row id: {id}"))
}

/// The rows are consecutive messages of the path, in order.
fn assert_consecutive(rows: &[Value]) {
    let ids: Vec<u64> = rows.iter().map(|r| index_of(&r["id"])).collect();
    assert!(!ids.is_empty());
    for pair in ids.windows(2) {
        assert_eq!(pair[1], pair[0] + 1, "{ids:?}");
    }
}

#[tokio::test]
async fn a_flick_makes_light_rows_that_become_whole_messages_where_the_flick_ended() {
    let session = AppSession::open(1280, 900).await;
    session
        .client
        .execute_async(SEED_LONG, vec![json!(3000)])
        .await
        .expect("seed IndexedDB");
    session.reload_app().await;
    session.wait_for(".conversation-item__open").await;
    session
        .js(
            "[...document.querySelectorAll('.conversation-item__open')]
               .find((b) => b.textContent.includes('A long flick')).click()",
            vec![],
        )
        .await;
    // Opened at its end, whole (nothing made while the list sticks to its end is light).
    session
        .wait_until("!!document.querySelector('[data-row=m2999] .message__actions')")
        .await;
    let opened = rested(&session).await;
    assert!(
        opened.iter().all(|r| r["light"] == json!(false)),
        "{opened:?}"
    );

    // A flick up: light rows, their text only, no actions.
    let flicked = session
        .client
        .execute_async(FLICK, vec![json!(-25)])
        .await
        .expect("flick");
    assert!(flicked["light"].as_u64().unwrap_or(0) > 0, "{flicked}");
    assert_eq!(flicked["lightActions"], json!(0), "{flicked}");
    let text = flicked["lightText"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("Question ") || text.starts_with("Answer **"),
        "a light row shows the message's own text: {text}"
    );
    let top = flicked["top"].clone();
    let top_index = index_of(&top);
    assert!(top_index < 2900, "the flick went up: {flicked}");

    // At rest: every row whole, consecutive, and the row the flick ended on still shown.
    let rested_rows = rested(&session).await;
    assert_consecutive(&rested_rows);
    let visible: Vec<u64> = rested_rows
        .iter()
        .filter(|r| r["visible"] == json!(true))
        .map(|r| index_of(&r["id"]))
        .collect();
    assert!(
        visible.iter().any(|i| i.abs_diff(top_index) <= 1),
        "the list stayed where the flick ended ({top_index}): {visible:?}"
    );

    // Flicking back down to the end: the last message whole once the list rests.
    session
        .client
        .execute_async(FLICK, vec![json!(40)])
        .await
        .expect("flick down");
    let end = rested(&session).await;
    assert_consecutive(&end);
    assert_eq!(end.last().map(|r| r["id"].clone()), Some(json!("m2999")));
    let shot = session.screenshot("long-conversation-rested").await;
    assert!(shot.exists());
    session.finish().await;
}
