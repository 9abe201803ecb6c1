//! Scripts the browser benchmarks run in the page.

/// Starts recording the gaps between the main thread's tasks into `window.__gaps`
/// (`max`, `over16`; `on = false` stops it): a message-channel ping answered as soon
/// as the thread is free, so a long gap is a long task.
pub const GAPS: &str = r#"
const gaps = { max: 0, over16: 0, last: performance.now(), on: true };
window.__gaps = gaps;
const channel = new MessageChannel();
channel.port1.onmessage = () => {
  const now = performance.now();
  const gap = now - gaps.last;
  if (gap > gaps.max) gaps.max = gap;
  if (gap > 16) gaps.over16 += 1;
  gaps.last = now;
  if (gaps.on) channel.port2.postMessage(0);
};
channel.port2.postMessage(0);
"#;
