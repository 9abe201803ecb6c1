// Before the wasm: the stored theme and language on <html> (and the manifest in that
// language), and a non-English catalog requested for the app to take
// (app/src/i18n/mod.rs). A file, not inline, for the CSP.
(function () {
  var root = document.documentElement;
  var locale;
  try {
    var theme = localStorage.getItem("hearth.theme");
    if (theme === "light" || theme === "dark") root.setAttribute("data-theme", theme);
    locale = localStorage.getItem("hearth.locale");
  } catch (_) {}
  if (locale !== "en" && locale !== "zh-CN" && locale !== "ja") {
    // As Locale::negotiate (the app takes the request only if it agrees).
    locale = "en";
    var languages = navigator.languages || [];
    for (var i = 0; i < languages.length; i++) {
      var primary = String(languages[i]).split(/[-_]/)[0].toLowerCase();
      if (primary === "en" || primary === "zh" || primary === "ja") {
        locale = primary === "zh" ? "zh-CN" : primary;
        break;
      }
    }
  }
  root.setAttribute("lang", locale);
  // The installed app's name and shortcuts in the same language (the app relinks it when
  // the language changes: browser::link_manifest). Linked here, not in index.html: a
  // page that linked the English manifest and then changed the link was, now and then,
  // still reported with the English one by Chromium (Page.getAppManifest), for good.
  var manifest = document.createElement("link");
  manifest.rel = "manifest";
  manifest.href = locale === "en" ? "/manifest.webmanifest" : "/manifest." + locale + ".webmanifest";
  document.head.appendChild(manifest);
  if (locale !== "en") {
    var response = fetch("/locales/" + locale + ".json");
    response.catch(function () {});
    window.__hearthCatalog = { tag: locale, response: response };
  }
})();
