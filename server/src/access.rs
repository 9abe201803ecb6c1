//! The deployment password gate (`ACCESS_PASSWORD`, a comma-separated list).
//!
//! - A correct password earns a session cookie: `hearth_access=<expiry>.<HMAC-SHA256>`,
//!   HttpOnly, SameSite=Lax, with the expiry inside the signed payload (a stolen cookie
//!   dies with its expiry, and nobody can extend it without the secret).
//! - Passwords are compared in constant time, against every configured password.
//! - Three wrong passwords lock the client out for three hours. The count and the lock
//!   are kept per client address in the store, not in a cookie, so clearing cookies
//!   does not reset them.
//! - Cookies are signed by the edge's [`Signer`] (`HEARTH_SESSION_SECRET`, required when
//!   hosted so instances accept each other's sessions; else random per process).

use std::net::IpAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, header};
use subtle::ConstantTimeEq;

use crate::kv::{KvError, KvStore};
use crate::signing::Signer;

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
    signer: Signer,
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
    /// A gate for the comma-separated `passwords`, signing with `signer`. Returns `None`
    /// when no password is configured (the gate is open).
    pub fn new(passwords: Option<&str>, signer: Signer, store: KvStore) -> Option<Self> {
        let passwords: Vec<Vec<u8>> = passwords?
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| p.as_bytes().to_vec())
            .collect();
        if passwords.is_empty() {
            return None;
        }
        Some(Self {
            passwords,
            signer,
            store,
        })
    }

    fn sign(&self, expires_at: u64) -> String {
        self.signer.sign("access:v1", &expires_at.to_string())
    }

    /// Checks a password from `client`. Fails (closed) when the store is unavailable.
    pub async fn attempt(&self, client: IpAddr, password: &str) -> Result<Attempt, KvError> {
        let lock_key = format!("access-lock:{client}");
        let fail_key = format!("access-fail:{client}");
        if let Some((_, left)) = self.store.get(&lock_key).await? {
            return Ok(Attempt::Locked { retry_after: left });
        }
        // Compare against every password, without stopping at a match.
        let matched = self
            .passwords
            .iter()
            .fold(subtle::Choice::from(0), |found, candidate| {
                found | candidate.as_slice().ct_eq(password.as_bytes())
            });
        if bool::from(matched) {
            self.store.delete(&fail_key).await?;
            let expires_at = now_secs() + SESSION_LIFETIME.as_secs();
            return Ok(Attempt::Granted {
                token: format!("{expires_at}.{}", self.sign(expires_at)),
                expires_at,
            });
        }
        let (failures, _) = self.store.incr(&fail_key, LOCK_DURATION).await?;
        let failures = u32::try_from(failures).unwrap_or(u32::MAX);
        if failures >= MAX_ATTEMPTS {
            self.store.delete(&fail_key).await?;
            self.store.set(&lock_key, 1, LOCK_DURATION).await?;
            return Ok(Attempt::Locked {
                retry_after: LOCK_DURATION,
            });
        }
        Ok(Attempt::Denied {
            remaining: MAX_ATTEMPTS - failures,
        })
    }

    /// The expiry (seconds since the epoch) of a valid session token, if `token` is one.
    pub fn session(&self, token: &str) -> Option<u64> {
        let (expires, signature) = token.split_once('.')?;
        let expires_at: u64 = expires.parse().ok()?;
        let valid = self.signer.verify("access:v1", expires, signature);
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

/// The session expiry carried by `headers`' cookie, if it is valid for `gate`.
pub fn session_of(gate: &AccessGate, headers: &HeaderMap) -> Option<u64> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(AccessGate::token_from_cookies)
        .find_map(|token| gate.session(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate() -> AccessGate {
        AccessGate::new(
            Some("alpha, beta"),
            Signer::new(Some("secret")),
            KvStore::memory(),
        )
        .unwrap()
    }

    const CLIENT: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(203, 0, 113, 7));

    async fn attempt(gate: &AccessGate, client: IpAddr, password: &str) -> Attempt {
        gate.attempt(client, password).await.unwrap()
    }

    #[tokio::test]
    async fn every_configured_password_works_and_yields_a_valid_session() {
        let gate = gate();
        for password in ["alpha", "beta"] {
            let Attempt::Granted { token, expires_at } = attempt(&gate, CLIENT, password).await
            else {
                panic!("{password} should be accepted");
            };
            assert_eq!(gate.session(&token), Some(expires_at));
        }
    }

    #[tokio::test]
    async fn three_wrong_passwords_lock_the_client_even_for_the_right_one() {
        let gate = gate();
        assert_eq!(
            attempt(&gate, CLIENT, "nope").await,
            Attempt::Denied { remaining: 2 }
        );
        assert_eq!(
            attempt(&gate, CLIENT, "alph").await,
            Attempt::Denied { remaining: 1 }
        );
        assert!(matches!(
            attempt(&gate, CLIENT, "x").await,
            Attempt::Locked { .. }
        ));
        assert!(matches!(
            attempt(&gate, CLIENT, "alpha").await,
            Attempt::Locked { .. }
        ));
        let other: IpAddr = "203.0.113.8".parse().unwrap();
        assert!(matches!(
            attempt(&gate, other, "alpha").await,
            Attempt::Granted { .. }
        ));
    }

    #[tokio::test]
    async fn a_success_resets_the_count() {
        let gate = gate();
        attempt(&gate, CLIENT, "nope").await;
        attempt(&gate, CLIENT, "nope").await;
        assert!(matches!(
            attempt(&gate, CLIENT, "beta").await,
            Attempt::Granted { .. }
        ));
        assert_eq!(
            attempt(&gate, CLIENT, "nope").await,
            Attempt::Denied { remaining: 2 }
        );
    }

    #[tokio::test]
    async fn forged_altered_or_expired_tokens_are_rejected() {
        let gate = gate();
        let Attempt::Granted { token, expires_at } = attempt(&gate, CLIENT, "alpha").await else {
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
        let other = AccessGate::new(
            Some("alpha"),
            Signer::new(Some("another secret")),
            KvStore::memory(),
        )
        .unwrap();
        assert_eq!(
            other.session(&token),
            None,
            "another secret, another signature"
        );
    }

    #[test]
    fn no_password_means_no_gate_and_cookies_are_parsed() {
        assert!(AccessGate::new(None, Signer::new(None), KvStore::memory()).is_none());
        assert!(AccessGate::new(Some(" , "), Signer::new(None), KvStore::memory()).is_none());
        assert_eq!(
            AccessGate::token_from_cookies("a=1; hearth_access=tok.en; b=2"),
            Some("tok.en")
        );
        assert_eq!(AccessGate::token_from_cookies("hearth_accessx=1"), None);
    }
}
