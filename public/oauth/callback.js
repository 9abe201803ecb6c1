// The end of a sign-in to an MCP server: the authorization server sent the login window
// back here with `?code=…&state=…&iss=…` (or `?error=…`). The answer goes to the Hearth
// tab that started the sign-in, on this origin's "hearth-oauth" channel (the tab checks
// the state; a window opener is not used, since Hearth's opener policy severs it), the
// code leaves the address bar and the history, and the window closes, keeping nothing.
//
// A sign-in that took the whole tab here (the browser blocked the login window) is
// recognised by its `state`, which the tab kept in its session storage before it left:
// the answer is left there for the tab, which goes back to Settings › Tools to finish it.
(function () {
  const query = location.search.replace(/^\?/, "");
  history.replaceState(null, "", location.pathname);
  try {
    const away = sessionStorage.getItem("hearth-oauth-away");
    if (away && new URLSearchParams(query).get("state") === away) {
      sessionStorage.removeItem("hearth-oauth-away");
      sessionStorage.setItem("hearth-oauth-return", query);
      location.replace("/#settings/tools");
      return;
    }
  } catch (_) {
    // No session storage: this was a login window's answer.
  }
  try {
    const channel = new BroadcastChannel("hearth-oauth");
    channel.postMessage({ query: query });
    channel.close();
  } catch (_) {
    // Without BroadcastChannel the tab times out and says so.
  }
  const words = {
    en: "You can close this window and go back to Hearth.",
    zh: "可以关闭此窗口，返回 Hearth。",
    ja: "このウィンドウを閉じて Hearth に戻ってください。",
  };
  const language = (navigator.language || "en").slice(0, 2);
  document.getElementById("message").textContent = words[language] || words.en;
  setTimeout(function () {
    window.close();
  }, 50);
})();
