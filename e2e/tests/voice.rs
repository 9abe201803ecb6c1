//! Reading a reply aloud in the real build, in Chromium: with one of the user's
//! OpenAI-compatible providers chosen in Settings › Voice, a reply's menu › Read aloud
//! sends its text (code blocks left out) through the edge to the provider's
//! `/v1/audio/speech` (the provider fixture answers with a WAV of silence) and plays it,
//! a Stop reading button showing until it ends; Stop reading ends a long one at once.
//! ElevenLabs without a key says so. Dictation with a provider records from the
//! microphone (Chromium's fake device) and adds the provider's transcription to the
//! message being written. (The browser's own voice and recognition are not driven
//! here: the headless shell has no speech engine.)

use hearth_e2e::AppSession;
use hearth_e2e::chat::{self, reply_menu};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::Value;

/// The speech requests the fixture received, as JSON bodies.
fn speech_bodies(fixture: &ProviderFixture) -> Vec<Value> {
    fixture
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/audio/speech")
        .map(|r| r.json())
        .collect()
}

/// In Settings › Voice: reads aloud with the first provider, `model` and `voice`.
async fn choose_provider(session: &AppSession, model: &str, voice: &str) {
    session.open_settings_tab("voice").await;
    session.wait_for("#voice-panel[data-loaded='true']").await;
    let value = session
        .js(
            "return [...document.querySelectorAll('#voice-speech option')]
               .map((o) => o.value).find((v) => v.startsWith('provider:'))",
            vec![],
        )
        .await;
    session
        .set_value(
            "#voice-speech",
            value.as_str().expect("a provider is offered"),
        )
        .await;
    session.wait_for("#voice-model").await;
    session.set_value("#voice-model", model).await;
    session.set_value("#voice-voice", voice).await;
    session.click("#voice-save").await;
    session.wait_for_toast("Voice settings saved.").await;
    session.close_settings().await;
}

#[tokio::test]
async fn a_reply_is_read_aloud_by_the_chosen_provider_and_stops_when_asked() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    choose_provider(&session, "tts-1", "nova").await;

    fixture.enqueue(Reply::text(
        "The tide is **high** at noon.\n\n```js\nconsole.log(1)\n```",
    ));
    chat::ask(&session, "When is high tide?").await;
    reply_menu(&session, "Read aloud").await;
    session.wait_for("[data-reading-aloud]").await;
    session.screenshot("voice-reading-aloud").await;
    // A third of a second later it has ended, and the button went with it.
    session
        .wait_until("!document.querySelector('[data-reading-aloud]')")
        .await;
    let asked = speech_bodies(&fixture);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["model"], "tts-1");
    assert_eq!(asked[0]["voice"], "nova");
    assert_eq!(asked[0]["response_format"], "mp3");
    // The words, not the Markdown: no code, no marks.
    assert_eq!(asked[0]["input"], "The tide is high at noon.");

    // Thirty seconds of reading, stopped at once (sooner than any wait here).
    fixture.enqueue(Reply::text("A long, long answer to read."));
    chat::ask(&session, "And a long one?").await;
    reply_menu(&session, "Read aloud").await;
    session.wait_for("[data-reading-aloud]").await;
    session.click_by_script("[data-reading-aloud]").await;
    session
        .wait_until("!document.querySelector('[data-reading-aloud]')")
        .await;
    assert_eq!(speech_bodies(&fixture).len(), 2);
    session.assert_no_console_errors().await;
    session.finish().await;
}

#[tokio::test]
async fn elevenlabs_without_a_key_says_so_and_asks_nothing() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    session.open_settings_tab("voice").await;
    session.wait_for("#voice-panel[data-loaded='true']").await;
    session.set_value("#voice-speech", "elevenlabs").await;
    // A voice is needed to speak.
    session.click("#voice-save").await;
    session
        .wait_until(
            "document.getElementById('voice-error')?.textContent === 'ElevenLabs needs a voice id to speak.'",
        )
        .await;
    session
        .set_value("#voice-eleven-voice", "21m00Tcm4TlvDq8ikWAM")
        .await;
    session.click("#voice-save").await;
    session.wait_for_toast("Voice settings saved.").await;
    session.close_settings().await;
    fixture.enqueue(Reply::text("Hello."));
    chat::ask(&session, "Hi").await;
    reply_menu(&session, "Read aloud").await;
    session
        .wait_for_toast("No ElevenLabs key is saved. Add it in Settings › Voice.")
        .await;
    session
        .wait_until("!document.querySelector('[data-reading-aloud]')")
        .await;
    assert!(speech_bodies(&fixture).is_empty());
    session.finish().await;
}

#[tokio::test]
async fn dictation_records_sends_the_recording_and_adds_what_was_heard() {
    let fixture = ProviderFixture::start().await;
    let session = chat::ready(&fixture).await;
    // Off until set up: no microphone.
    assert_eq!(
        session
            .js(
                "return !!document.getElementById('composer-dictation')",
                vec![]
            )
            .await,
        Value::Bool(false)
    );
    session.open_settings_tab("voice").await;
    session.wait_for("#voice-panel[data-loaded='true']").await;
    let value = session
        .js(
            "return [...document.querySelectorAll('#voice-dictation option')]
               .map((o) => o.value).find((v) => v.startsWith('provider:'))",
            vec![],
        )
        .await;
    session
        .set_value("#voice-dictation", value.as_str().unwrap())
        .await;
    session.click("#voice-save").await;
    session.wait_for_toast("Voice settings saved.").await;
    session.close_settings().await;

    chat::type_in_composer(&session, "Note:").await;
    session.click("#composer-dictation").await;
    session
        .wait_until("document.getElementById('composer-dictation').dataset.stage === 'listening'")
        .await;
    session.screenshot("dictation-listening").await;
    // A moment of the fake microphone's tone, then stop.
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    session.click("#composer-dictation").await;
    session
        .wait_until("document.getElementById('composer-dictation').dataset.stage === 'idle'")
        .await;
    assert_eq!(
        chat::composer_text(&session).await,
        format!("Note: {}", hearth_e2e::provider_fixture::audio::TRANSCRIBED)
    );
    let asked: Vec<_> = fixture
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/audio/transcriptions")
        .collect();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0]
            .body
            .contains("name=\"model\"\r\n\r\nwhisper-1\r\n"),
        "{}",
        asked[0].body.len()
    );
    assert!(
        asked[0].body.contains("Content-Type: audio/webm"),
        "the recording went as audio"
    );
    assert!(asked[0].body.contains("name=\"language\"\r\n\r\nen\r\n"));
    session.assert_no_console_errors().await;
    session.finish().await;
}
