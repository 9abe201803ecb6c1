//! The Upstash backend: Upstash's REST API as a shared store. Each Redis command is a JSON array POSTed to
//! the database's REST URL with its bearer token (`["INCR","k"]` → `{"result": 1}`), and
//! commands that must happen together go to `/multi-exec` as one transaction. A small
//! reqwest client: no redirects, a two-second deadline, and HTTPS unless the URL is on
//! this machine (an Upstash-compatible proxy in front of a local Redis). The crate
//! `upstash-redis-rs` does not compile on stable Rust.

use std::time::Duration;

use serde_json::{Value, json};

use super::error::KvError;
use super::redis::{key, millis, remaining};

/// One database.
#[derive(Debug)]
pub struct Upstash {
    client: reqwest::Client,
    url: String,
    token: String,
}

fn loopback(url: &reqwest::Url) -> bool {
    match url.host_str() {
        Some("localhost") => true,
        Some(host) => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()),
        None => false,
    }
}

impl Upstash {
    /// A client for the database at `url` with `token`.
    pub fn new(url: &str, token: &str, timeout: Duration) -> Result<Self, KvError> {
        let parsed = reqwest::Url::parse(url.trim())
            .map_err(|_| KvError("UPSTASH_REDIS_REST_URL is not a URL".into()))?;
        if parsed.scheme() != "https" && !(parsed.scheme() == "http" && loopback(&parsed)) {
            return Err(KvError(
                "UPSTASH_REDIS_REST_URL must be https (plain http only on this machine)".into(),
            ));
        }
        if token.trim().is_empty() {
            return Err(KvError("UPSTASH_REDIS_REST_TOKEN is empty".into()));
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .build()
            .map_err(|e| KvError(e.to_string()))?;
        Ok(Self {
            client,
            url: parsed.as_str().trim_end_matches('/').to_string(),
            token: token.trim().to_string(),
        })
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, KvError> {
        let response = self
            .client
            .post(format!("{}{path}", self.url))
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await
            .map_err(|e| KvError(format!("Upstash did not answer: {}", e.without_url())))?;
        let status = response.status();
        let value: Value = response
            .json()
            .await
            .map_err(|_| KvError(format!("Upstash answered HTTP {status} without JSON")))?;
        if !status.is_success() {
            let error = value["error"].as_str().unwrap_or("no message");
            return Err(KvError(format!("Upstash answered HTTP {status}: {error}")));
        }
        Ok(value)
    }

    fn result(item: &Value) -> Result<Value, KvError> {
        match item.get("error").and_then(Value::as_str) {
            Some(error) => Err(KvError(format!("Upstash: {error}"))),
            None => Ok(item.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    /// Runs one command.
    pub async fn command(&self, command: &[Value]) -> Result<Value, KvError> {
        let answer = self.post("", json!(command)).await?;
        Self::result(&answer)
    }

    /// Runs `commands` as one transaction; their results in order.
    pub async fn transaction(&self, commands: &[Vec<Value>]) -> Result<Vec<Value>, KvError> {
        let answer = self.post("/multi-exec", json!(commands)).await?;
        let items = answer
            .as_array()
            .ok_or_else(|| KvError("Upstash answered a transaction with no array".into()))?;
        if items.len() != commands.len() {
            return Err(KvError("Upstash answered a transaction partly".into()));
        }
        items.iter().map(Self::result).collect()
    }

    /// Checks Upstash answers a PING.
    pub async fn ping(&self) -> Result<(), KvError> {
        match self.command(&[json!("PING")]).await? {
            Value::String(pong) if pong == "PONG" => Ok(()),
            other => Err(KvError(format!("unexpected PING answer {other}"))),
        }
    }

    /// `INCR`, `PEXPIRE … NX` and `PTTL` in one transaction.
    pub async fn incr(&self, key: &str, ttl: Duration) -> Result<(i64, Duration), KvError> {
        let key = self::key(key);
        let results = self
            .transaction(&[
                vec![json!("INCR"), json!(key)],
                vec![
                    json!("PEXPIRE"),
                    json!(key),
                    json!(millis(ttl)),
                    json!("NX"),
                ],
                vec![json!("PTTL"), json!(key)],
            ])
            .await?;
        let value = integer(&results[0]).ok_or_else(|| KvError("INCR gave no number".into()))?;
        let left = integer(&results[2]).unwrap_or(0);
        Ok((value, remaining(left)))
    }

    /// `SET … PX`.
    pub async fn set(&self, key: &str, value: i64, ttl: Duration) -> Result<(), KvError> {
        self.command(&[
            json!("SET"),
            json!(self::key(key)),
            json!(value),
            json!("PX"),
            json!(millis(ttl)),
        ])
        .await
        .map(drop)
    }

    /// `GET` and `PTTL` in one transaction.
    pub async fn get(&self, key: &str) -> Result<Option<(i64, Duration)>, KvError> {
        let key = self::key(key);
        let results = self
            .transaction(&[
                vec![json!("GET"), json!(key)],
                vec![json!("PTTL"), json!(key)],
            ])
            .await?;
        let left = integer(&results[1]).unwrap_or(0);
        Ok(integer(&results[0]).map(|v| (v, remaining(left))))
    }

    /// `DEL`.
    pub async fn delete(&self, key: &str) -> Result<(), KvError> {
        self.command(&[json!("DEL"), json!(self::key(key))])
            .await
            .map(drop)
    }

    /// The text document at `key`, if any.
    pub async fn get_text(&self, key: &str) -> Result<Option<String>, KvError> {
        match self.command(&[json!("GET"), json!(self::key(key))]).await? {
            Value::String(text) => Ok(Some(text)),
            Value::Null => Ok(None),
            other => Err(KvError(format!("GET gave {other}"))),
        }
    }

    /// Stores `value` at `key` (no expiry); an empty value deletes the key.
    pub async fn set_text(&self, key: &str, value: &str) -> Result<(), KvError> {
        let key = json!(self::key(key));
        let command = if value.is_empty() {
            vec![json!("DEL"), key]
        } else {
            vec![json!("SET"), key, json!(value)]
        };
        self.command(&command).await.map(drop)
    }
}

/// Documents with an expiry and leases (the document-parse jobs), as in
/// [`super::redis`].
impl Upstash {
    /// `SET … PX`.
    pub async fn put_text(&self, key: &str, value: &str, ttl: Duration) -> Result<(), KvError> {
        self.command(&[
            json!("SET"),
            json!(self::key(key)),
            json!(value),
            json!("PX"),
            json!(millis(ttl)),
        ])
        .await
        .map(drop)
    }

    /// `SET … NX PX`.
    pub async fn claim(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, KvError> {
        let answer = self
            .command(&[
                json!("SET"),
                json!(self::key(key)),
                json!(owner),
                json!("NX"),
                json!("PX"),
                json!(millis(ttl)),
            ])
            .await?;
        Ok(!answer.is_null())
    }

    /// Extends `owner`'s lease by `ttl`.
    pub async fn renew(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, KvError> {
        let answer = self
            .command(&[
                json!("EVAL"),
                json!(super::redis::RENEW),
                json!(1),
                json!(self::key(key)),
                json!(owner),
                json!(millis(ttl)),
            ])
            .await?;
        Ok(integer(&answer) == Some(1))
    }

    /// Gives up `owner`'s lease.
    pub async fn release(&self, key: &str, owner: &str) -> Result<(), KvError> {
        self.command(&[
            json!("EVAL"),
            json!(super::redis::RELEASE),
            json!(1),
            json!(self::key(key)),
            json!(owner),
        ])
        .await
        .map(drop)
    }
}

/// Lists with an expiry (the relayed replies' buffers), as in [`super::redis`].
impl Upstash {
    /// `RPUSH` and `PEXPIRE` in one transaction; the list's new length.
    pub async fn push_texts(
        &self,
        key: &str,
        values: &[String],
        ttl: Duration,
    ) -> Result<u64, KvError> {
        let key = self::key(key);
        let mut push = vec![json!("RPUSH"), json!(key)];
        push.extend(values.iter().map(|value| json!(value)));
        let results = self
            .transaction(&[push, vec![json!("PEXPIRE"), json!(key), json!(millis(ttl))]])
            .await?;
        integer(&results[0])
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| KvError("RPUSH gave no length".into()))
    }

    /// `LRANGE … -1`.
    pub async fn range_text(&self, key: &str, from: u64) -> Result<Vec<String>, KvError> {
        match self
            .command(&[
                json!("LRANGE"),
                json!(self::key(key)),
                json!(from),
                json!(-1),
            ])
            .await?
        {
            Value::Array(items) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text),
                    other => Err(KvError(format!("LRANGE gave {other}"))),
                })
                .collect(),
            Value::Null => Ok(Vec::new()),
            other => Err(KvError(format!("LRANGE gave {other}"))),
        }
    }
}

/// An integer result (Upstash returns numbers, or strings for `GET`).
pub fn integer(value: &Value) -> Option<i64> {
    value
        .as_i64()
        .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
}
