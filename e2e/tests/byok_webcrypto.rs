//! The envelope format both ways: Chromium's WebCrypto seals a secret with the key the
//! real edge serves, and the edge's own code opens it — only for the right context.

use hearth_core::byok::{Envelope, EnvelopeError};
use hearth_e2e::AppSession;
use hearth_server::byok::ByokKeys;
use serde_json::json;

const SEAL: &str = r#"
const [secret, context, done] = arguments;
(async () => {
  const pk = await (await fetch('/api/byok/public-key')).json();
  const rsa = await crypto.subtle.importKey(
    'jwk', pk.publicKeyJwk, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
  const aes = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = new TextEncoder();
  const ciphertext = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: data.encode(context) }, aes, data.encode(secret));
  const wrapped = await crypto.subtle.encrypt(
    { name: 'RSA-OAEP' }, rsa, await crypto.subtle.exportKey('raw', aes));
  const b64u = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  done({ v: 1, kid: pk.kid, alg: pk.alg, iv: b64u(iv), wrappedKey: b64u(wrapped),
         ciphertext: b64u(ciphertext), context });
})().catch((error) => done({ error: String(error) }));
"#;

#[tokio::test]
async fn a_webcrypto_envelope_opens_on_the_edge_for_its_context_only() {
    let session = AppSession::open(1440, 900).await;
    let secret = "sk-proj-Ωmega-0123456789";
    let sealed = session
        .client
        .execute_async(SEAL, vec![json!(secret), json!("provider:openai")])
        .await
        .expect("script ran");
    assert!(sealed.get("error").is_none(), "{sealed}");
    let envelope: Envelope = serde_json::from_value(sealed).expect("an envelope");

    let keys = ByokKeys::load_or_create(session.stack.hearth.data_dir()).expect("the edge's key");
    assert_eq!(envelope.kid, keys.kid());
    assert_eq!(keys.open(&envelope, "provider:openai").unwrap(), secret);
    assert_eq!(
        keys.open(&envelope, "provider:anthropic"),
        Err(EnvelopeError::WrongContext)
    );
    session.finish().await;
}
