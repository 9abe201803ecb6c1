//! The Redis backend (`redis://` or `rediss://`, which Upstash also speaks): shared by
//! every instance of a hosted deployment. Operations that must happen together run as
//! one MULTI/EXEC, every operation times out after [`TIMEOUT`], and every key carries
//! [`PREFIX`] (the Upstash backend names its keys the same way).

use std::time::Duration;

use super::error::KvError;

/// How long one Redis operation may take.
pub const TIMEOUT: Duration = Duration::from_secs(2);
/// Prefix of every Redis key.
pub const PREFIX: &str = "hearth:";

/// `key` as stored in Redis.
pub fn key(key: &str) -> String {
    format!("{PREFIX}{key}")
}

/// A time to live in milliseconds, at least one.
pub fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// A remaining lifetime as Redis reports it (`PTTL`; negative for none).
pub fn remaining(left: i64) -> Duration {
    Duration::from_millis(u64::try_from(left).unwrap_or(0))
}

/// A connection to one Redis.
#[derive(Clone)]
pub struct RedisStore(redis::aio::ConnectionManager);

impl RedisStore {
    /// Connects to Redis at `url`, failing if it does not connect in time.
    pub async fn connect(url: &str) -> Result<Self, KvError> {
        let client = redis::Client::open(url).map_err(|e| KvError(e.to_string()))?;
        let manager = tokio::time::timeout(TIMEOUT, redis::aio::ConnectionManager::new(client))
            .await
            .map_err(|_| KvError("connecting timed out".into()))?
            .map_err(|e| KvError(e.to_string()))?;
        Ok(Self(manager))
    }

    /// Checks Redis answers a PING.
    pub async fn ping(&self) -> Result<(), KvError> {
        let mut manager = self.0.clone();
        let pong: String = run(redis::cmd("PING").query_async(&mut manager)).await?;
        if pong == "PONG" {
            Ok(())
        } else {
            Err(KvError(format!("unexpected PING answer {pong}")))
        }
    }

    /// `INCR`, `PEXPIRE … NX` and `PTTL` in one transaction.
    pub async fn incr(&self, key: &str, ttl: Duration) -> Result<(i64, Duration), KvError> {
        let mut manager = self.0.clone();
        let key = self::key(key);
        let (value, _, left): (i64, i64, i64) = run(redis::pipe()
            .atomic()
            .cmd("INCR")
            .arg(&key)
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(millis(ttl))
            .arg("NX")
            .cmd("PTTL")
            .arg(&key)
            .query_async(&mut manager))
        .await?;
        Ok((value, remaining(left)))
    }

    /// `SET … PX`.
    pub async fn set(&self, key: &str, value: i64, ttl: Duration) -> Result<(), KvError> {
        let mut manager = self.0.clone();
        run(redis::cmd("SET")
            .arg(self::key(key))
            .arg(value)
            .arg("PX")
            .arg(millis(ttl))
            .query_async::<()>(&mut manager))
        .await
    }

    /// `GET` and `PTTL` in one transaction.
    pub async fn get(&self, key: &str) -> Result<Option<(i64, Duration)>, KvError> {
        let mut manager = self.0.clone();
        let key = self::key(key);
        let (value, left): (Option<i64>, i64) = run(redis::pipe()
            .atomic()
            .cmd("GET")
            .arg(&key)
            .cmd("PTTL")
            .arg(&key)
            .query_async(&mut manager))
        .await?;
        Ok(value.map(|v| (v, remaining(left))))
    }

    /// `DEL`.
    pub async fn delete(&self, key: &str) -> Result<(), KvError> {
        let mut manager = self.0.clone();
        run(redis::cmd("DEL")
            .arg(self::key(key))
            .query_async::<()>(&mut manager))
        .await
    }

    /// The text document at `key`, if any.
    pub async fn get_text(&self, key: &str) -> Result<Option<String>, KvError> {
        let mut manager = self.0.clone();
        run(redis::cmd("GET")
            .arg(self::key(key))
            .query_async(&mut manager))
        .await
    }

    /// Stores `value` at `key` (no expiry); an empty value deletes the key.
    pub async fn set_text(&self, key: &str, value: &str) -> Result<(), KvError> {
        let mut manager = self.0.clone();
        let key = self::key(key);
        if value.is_empty() {
            run(redis::cmd("DEL").arg(key).query_async::<i64>(&mut manager)).await?;
        } else {
            run(redis::cmd("SET")
                .arg(key)
                .arg(value)
                .query_async::<String>(&mut manager))
            .await?;
        }
        Ok(())
    }
}

/// Extends a lease only for its holder.
pub(super) const RENEW: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
    return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
/// Deletes a lease only for its holder.
pub(super) const RELEASE: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
    return redis.call('DEL', KEYS[1]) else return 0 end";

/// Documents with an expiry and leases (the document-parse jobs).
impl RedisStore {
    /// `SET … PX`: `value` at `key` for `ttl`.
    pub async fn put_text(&self, key: &str, value: &str, ttl: Duration) -> Result<(), KvError> {
        let mut manager = self.0.clone();
        run(redis::cmd("SET")
            .arg(self::key(key))
            .arg(value)
            .arg("PX")
            .arg(millis(ttl))
            .query_async::<()>(&mut manager))
        .await
    }

    /// `SET … NX PX`: takes the lease at `key` for `owner` unless someone holds it.
    pub async fn claim(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, KvError> {
        let mut manager = self.0.clone();
        let answer: Option<String> = run(redis::cmd("SET")
            .arg(self::key(key))
            .arg(owner)
            .arg("NX")
            .arg("PX")
            .arg(millis(ttl))
            .query_async(&mut manager))
        .await?;
        Ok(answer.is_some())
    }

    /// Extends `owner`'s lease at `key` by `ttl`; false when it is no longer theirs.
    pub async fn renew(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, KvError> {
        let mut manager = self.0.clone();
        let renewed: i64 = run(redis::cmd("EVAL")
            .arg(RENEW)
            .arg(1)
            .arg(self::key(key))
            .arg(owner)
            .arg(millis(ttl))
            .query_async(&mut manager))
        .await?;
        Ok(renewed == 1)
    }

    /// Gives up `owner`'s lease at `key` (someone else's stays).
    pub async fn release(&self, key: &str, owner: &str) -> Result<(), KvError> {
        let mut manager = self.0.clone();
        run(redis::cmd("EVAL")
            .arg(RELEASE)
            .arg(1)
            .arg(self::key(key))
            .arg(owner)
            .query_async::<i64>(&mut manager))
        .await
        .map(drop)
    }
}

/// Lists with an expiry (the relayed replies' buffers).
impl RedisStore {
    /// `RPUSH` and `PEXPIRE` in one transaction: `values` appended to the list at `key`,
    /// which then lives `ttl`; the list's new length.
    pub async fn push_texts(
        &self,
        key: &str,
        values: &[String],
        ttl: Duration,
    ) -> Result<u64, KvError> {
        let mut manager = self.0.clone();
        let key = self::key(key);
        let (length, _): (u64, i64) = run(redis::pipe()
            .atomic()
            .cmd("RPUSH")
            .arg(&key)
            .arg(values)
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(millis(ttl))
            .query_async(&mut manager))
        .await?;
        Ok(length)
    }

    /// `LRANGE … -1`: the list at `key` from index `from` on (empty when there is none).
    pub async fn range_text(&self, key: &str, from: u64) -> Result<Vec<String>, KvError> {
        let mut manager = self.0.clone();
        run(redis::cmd("LRANGE")
            .arg(self::key(key))
            .arg(from)
            .arg(-1)
            .query_async(&mut manager))
        .await
    }
}

async fn run<T>(operation: impl Future<Output = redis::RedisResult<T>>) -> Result<T, KvError> {
    tokio::time::timeout(TIMEOUT, operation)
        .await
        .map_err(|_| KvError("timed out".into()))?
        .map_err(|e| KvError(e.to_string()))
}
