//! Making the app's catalogue requests fail on purpose, to see what the user is told
//! (seed 000: a failed request is never an empty catalogue).

/// A script Chromium runs before every document (`Page.addScriptToEvaluateOnNewDocument`):
/// requests whose path starts with the prefix `localStorage['fail-skills']` names fail
/// with 503 (`/data/skills/`, `/data/assistants/`, one locale's file, …).
pub const FAILING_CATALOGUES: &str = "(() => {
  const fetch = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    const failing = localStorage.getItem('fail-skills');
    if (failing && url.pathname.startsWith(failing)) {
      return new Response('unavailable', { status: 503 });
    }
    return fetch(input, init);
  };
})();";
