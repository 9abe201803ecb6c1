//! The edge's wall clock in the unit its records keep: milliseconds since the epoch.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in ms since the epoch (0 before it, which no real clock is).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
