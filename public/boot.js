// Runs before the app's WebAssembly loads: applies the stored theme and language to <html>
// so the first paint already has the right colours (no white flash for dark-theme users).
// Served as a file, not inline, so the CSP needs no 'unsafe-inline'.
(function () {
  try {
    var theme = localStorage.getItem("hearth.theme");
    if (theme === "light" || theme === "dark") {
      document.documentElement.setAttribute("data-theme", theme);
    }
    var locale = localStorage.getItem("hearth.locale");
    if (locale === "en" || locale === "zh-CN" || locale === "ja") {
      document.documentElement.setAttribute("lang", locale);
    }
  } catch (_) {
    // Storage blocked: the system theme and English apply until the app starts.
  }
})();
