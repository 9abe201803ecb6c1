//! The deployment password gate (`ACCESS_PASSWORD`, a comma-separated list).
//!
//! - A correct password earns a session cookie: `hearth_access=<expiry>.<HMAC-SHA256>`,
//!   HttpOnly, SameSite=Lax, with the expiry inside the signed payload (a stolen cookie
//!   dies with its expiry, and nobody can extend it without the secret).
//! - Passwords are compared in constant time, against every configured password.
//! - Three wrong passwords lock the client out for three hours. The count and the lock
//!   are kept per client address in the store, not in a cookie, so clearing cookies
//!   does not reset them.
//! - The signing secret is `HEARTH_SESSION_SECRET` when set (required for several
//!   instances to accept each other's sessions), else random per process (sessions end
//!   when the process restarts).

use std::net::IpAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::kv::KvStore;

/// The cookie's name.
pub const COOKIE: &str = "hearth_access";
/// How long a session lasts.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);
/// Wrong attempts allowed before the lock.
pub const MAX_ATTEMPTS: u32 = 3;
/// How long a lock lasts.
pub const LOCK_DURATION: Duration = Duration::from_secs(3 * 60 * 60);

/// What a password attempt gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    /// Correct: the cookie value and when it expires (seconds since the epoch).
    Granted {
        /// The cookie value.
        token: String,
        /// Expiry, seconds since the epoch.
        expires_at: u64,
    },
    /// Wrong; this many attempts remain.
    Denied {
        /// Attempts left.
        remaining: u32,
    },
    /// Locked for this long.
    Locked {
        /// Time left.
        retry_after: Duration,
    },
}

/// The gate.
#[derive(Clone)]
pub struct AccessGate {
    passwords: Vec<Vec<u8>>,
    secret: [u8; 32],
    store: KvStore,
}

impl std::fmt::Debug for AccessGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessGate")
            .field("passwords", &self.passwords.len())
            .finish_non_exhaustive()
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl AccessGate {
    /// A gate for the comma-separated `passwords`, signing with `secret` or a random key.
    /// Returns `None` when no password is configured (the gate is open).
    pub fn new(passwords: Option<&str>, secret: Option<&str>, store: KvStore) -> Option<Self> {
        let passwords: Vec<Vec<u8>> = passwords?
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| p.as_bytes().to_vec())
            .collect();
        if passwords.is_empty() {
            return None;
        }
        let secret = match secret.filter(|s| !s.is_empty()) {
            Some(secret) => {
                let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(b"hearth-session-secret")
                    .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
                mac.update(secret.as_bytes());
                mac.finalize().into_bytes().into()
            }
            None => {
                let mut bytes = [0u8; 32];
                // Without randomness there is no safe secret: fail loudly, not weakly.
                getrandom::fill(&mut bytes).unwrap_or_else(|e| panic!("no system randomness: {e}"));
                bytes
            }
        };
        Some(Self {
            passwords,
            secret,
            store,
        })
    }

    fn sign(&self, expires_at: u64) -> String {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(format!("access:v1:{expires_at}").as_bytes());
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }

    /// Checks a password from `client`.
    pub fn attempt(&self, client: IpAddr, password: &str) -> Attempt {
        let lock_key = format!("access-lock:{client}");
        let fail_key = format!("access-fail:{client}");
        if let Some((_, left)) = self.store.get(&lock_key) {
            return Attempt::Locked { retry_after: left };
        }
        // Compare against every password, without stopping at a match.
        let matched = self
            .passwords
            .iter()
            .fold(subtle::Choice::from(0), |found, candidate| {
                found | candidate.as_slice().ct_eq(password.as_bytes())
            });
        if bool::from(matched) {
            self.store.delete(&fail_key);
            let expires_at = now_secs() + SESSION_LIFETIME.as_secs();
            return Attempt::Granted {
                token: format!("{expires_at}.{}", self.sign(expires_at)),
                expires_at,
            };
        }
        let failures = u32::try_from(self.store.incr(&fail_key, LOCK_DURATION)).unwrap_or(u32::MAX);
        if failures >= MAX_ATTEMPTS {
            self.store.delete(&fail_key);
            self.store.set(&lock_key, 1, LOCK_DURATION);
            return Attempt::Locked {
                retry_after: LOCK_DURATION,
            };
        }
        Attempt::Denied {
            remaining: MAX_ATTEMPTS - failures,
        }
    }

    /// The expiry (seconds since the epoch) of a valid session token, if `token` is one.
    pub fn session(&self, token: &str) -> Option<u64> {
        let (expires, signature) = token.split_once('.')?;
        let expires_at: u64 = expires.parse().ok()?;
        let expected = self.sign(expires_at);
        let valid: bool = expected.as_bytes().ct_eq(signature.as_bytes()).into();
        (valid && expires_at > now_secs()).then_some(expires_at)
    }

    /// The session token in a `Cookie` header, if any.
    pub fn token_from_cookies(header: &str) -> Option<&str> {
        header
            .split(';')
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == COOKIE)
            .map(|(_, value)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate() -> AccessGate {
        AccessGate::new(Some("alpha, beta"), Some("secret"), KvStore::memory()).unwrap()
    }

    const CLIENT: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(203, 0, 113, 7));

    #[test]
    fn every_configured_password_works_and_yields_a_valid_session() {
        let gate = gate();
        for password in ["alpha", "beta"] {
            let Attempt::Granted { token, expires_at } = gate.attempt(CLIENT, password) else {
                panic!("{password} should be accepted");
            };
            assert_eq!(gate.session(&token), Some(expires_at));
        }
    }

    #[test]
    fn three_wrong_passwords_lock_the_client_even_for_the_right_one() {
        let gate = gate();
        assert_eq!(
            gate.attempt(CLIENT, "nope"),
            Attempt::Denied { remaining: 2 }
        );
        assert_eq!(
            gate.attempt(CLIENT, "alph"),
            Attempt::Denied { remaining: 1 }
        );
        assert!(matches!(gate.attempt(CLIENT, "x"), Attempt::Locked { .. }));
        assert!(matches!(
            gate.attempt(CLIENT, "alpha"),
            Attempt::Locked { .. }
        ));
        let other: IpAddr = "203.0.113.8".parse().unwrap();
        assert!(matches!(
            gate.attempt(other, "alpha"),
            Attempt::Granted { .. }
        ));
    }

    #[test]
    fn a_success_resets_the_count() {
        let gate = gate();
        gate.attempt(CLIENT, "nope");
        gate.attempt(CLIENT, "nope");
        assert!(matches!(
            gate.attempt(CLIENT, "beta"),
            Attempt::Granted { .. }
        ));
        assert_eq!(
            gate.attempt(CLIENT, "nope"),
            Attempt::Denied { remaining: 2 }
        );
    }

    #[test]
    fn forged_altered_or_expired_tokens_are_rejected() {
        let gate = gate();
        let Attempt::Granted { token, expires_at } = gate.attempt(CLIENT, "alpha") else {
            panic!()
        };
        let (_, signature) = token.split_once('.').unwrap();
        assert_eq!(
            gate.session(&format!("{}.{signature}", expires_at + 3600)),
            None
        );
        assert_eq!(gate.session("123.abc"), None);
        assert_eq!(gate.session("garbage"), None);
        let past = now_secs() - 1;
        assert_eq!(gate.session(&format!("{past}.{}", gate.sign(past))), None);
        let other =
            AccessGate::new(Some("alpha"), Some("another secret"), KvStore::memory()).unwrap();
        assert_eq!(
            other.session(&token),
            None,
            "another secret, another signature"
        );
    }

    #[test]
    fn no_password_means_no_gate_and_cookies_are_parsed() {
        assert!(AccessGate::new(None, None, KvStore::memory()).is_none());
        assert!(AccessGate::new(Some(" , "), None, KvStore::memory()).is_none());
        assert_eq!(
            AccessGate::token_from_cookies("a=1; hearth_access=tok.en; b=2"),
            Some("tok.en")
        );
        assert_eq!(AccessGate::token_from_cookies("hearth_accessx=1"), None);
    }
}
