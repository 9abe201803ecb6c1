// The end of a sign-in to an MCP server: the authorization server sent the login window
// back here with `?code=…&state=…&iss=…` (or `?error=…`). The answer goes to the Hearth
// tab that started the sign-in, on this origin's "hearth-oauth" channel (the tab checks
// the state; a window opener is not used, since Hearth's opener policy severs it), the
// code leaves the address bar and the history, and the window closes. Nothing is kept.
(function () {
  const query = location.search.replace(/^\?/, "");
  history.replaceState(null, "", location.pathname);
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
