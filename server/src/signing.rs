//! The edge's signing key: HMAC-SHA256 over short tokens (access sessions, client
//! identities). From `HEARTH_SESSION_SECRET` when set — every instance of a deployment
//! must share it — else random per process.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// Signs and verifies tokens.
#[derive(Clone)]
pub struct Signer {
    secret: [u8; 32],
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer")
    }
}

impl Signer {
    /// A signer keyed by `secret`, or by random bytes when there is none.
    pub fn new(secret: Option<&str>) -> Self {
        let secret = match secret.filter(|s| !s.is_empty()) {
            Some(secret) => {
                let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(b"hearth-session-secret")
                    .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
                mac.update(secret.as_bytes());
                mac.finalize().into_bytes().into()
            }
            None => random_bytes(),
        };
        Self { secret }
    }

    /// The base64url HMAC of `purpose` and `payload`.
    pub fn sign(&self, purpose: &str, payload: &str) -> String {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(purpose.as_bytes());
        mac.update(b":");
        mac.update(payload.as_bytes());
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }

    /// Whether `signature` is `payload`'s, in constant time.
    pub fn verify(&self, purpose: &str, payload: &str, signature: &str) -> bool {
        self.sign(purpose, payload)
            .as_bytes()
            .ct_eq(signature.as_bytes())
            .into()
    }
}

/// 32 random bytes from the operating system.
pub fn random_bytes() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    // Without randomness there is no safe secret: fail loudly, not weakly.
    getrandom::fill(&mut bytes).unwrap_or_else(|e| panic!("no system randomness: {e}"));
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_bind_purpose_payload_and_secret() {
        let signer = Signer::new(Some("s"));
        let signature = signer.sign("access", "123");
        assert!(signer.verify("access", "123", &signature));
        assert!(!signer.verify("client", "123", &signature));
        assert!(!signer.verify("access", "124", &signature));
        assert!(!Signer::new(Some("t")).verify("access", "123", &signature));
        assert!(!Signer::new(None).verify("access", "123", &signature));
    }
}
