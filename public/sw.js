// Hearth's service worker: the app works offline, and a new version waits until the user
// takes it. The build (scripts/write-service-worker.sh) fills in BUILD: this version, its
// content-hashed app directory and every file of dist/ (the shell, each lazy chunk, the
// workers, the stylesheets, the translation catalogs, the icons).
//
// What it answers, and nothing else:
// - GET requests for those files, from this version's cache (falling back to an older
//   version's, for a tab still running it, and then to the network);
// - page navigations, with this version's index.html (client routes too);
// - the share target's POST /share: what was shared is kept in the "hearth-share" cache
//   for the app to take, and the page is sent to /?share=<id>;
// - the sandbox pages (SANDBOX_PAGES: the artifact preview, the diagram renderer, the
//   reply picture maker, the MCP Apps proxy) from
//   the network, kept as they arrived (with their own policy, which the cache keeps
//   with the page) so that previews and diagrams work offline.
// It never answers or keeps anything else under /api/ (the edge: relays, streams, tools,
// parse jobs) or /sandbox/, nor any other origin (model providers): those go to the
// network untouched.
"use strict";

const BUILD = /* BUILD */ { "version": "dev", "appDir": "", "files": [] };

const SHELL_PREFIX = "hearth-shell-";
const SHELL = SHELL_PREFIX + BUILD.version;
const VERSIONS = "hearth-versions";
const SHARE = "hearth-share";
// The versions whose caches are kept: this one, and the one before it, whose lazy chunks a
// tab opened before the update still loads.
const KEEP_VERSIONS = 2;
// The most shared files kept: as many as a message holds (core::launch::MAX_SHARED_FILES,
// core::attachment::MAX_ATTACHMENTS); the record still lists every one, so the page can
// say how many were not kept.
const MAX_SHARED_FILES = 10;
// The edge's sandbox pages (server/src/sandbox): never the app's shell, always the page
// with the policy the edge sent (an opaque origin, no network).
const SANDBOX_PAGES = ["/sandbox/artifact", "/sandbox/diagram", "/sandbox/picture", "/sandbox/app"];
// A share that no page took within this time is removed with the next one.
const SHARE_TTL_MS = 60 * 60 * 1000;

self.addEventListener("install", (event) => {
  event.waitUntil(precache());
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      await forgetOldVersions();
      // The first version takes the page that installed it, so it works offline at once;
      // an update is activated only when a page asks (see "message").
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("message", (event) => {
  if (event.data === "hearth:apply-update") self.skipWaiting();
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  if (request.method === "GET" && SANDBOX_PAGES.includes(url.pathname)) {
    event.respondWith(sandboxPage(request, url));
    return;
  }
  if (url.pathname.startsWith("/sandbox/")) return;
  if (request.method === "POST" && url.pathname === "/share") {
    event.respondWith(receiveShare(request));
    return;
  }
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {
    event.respondWith(navigate(request, url));
    return;
  }
  event.respondWith(fromCache(request, url));
});

// Every file of the build into this version's cache: content-hashed files as the HTTP
// cache holds them (the page fetched some already), the others revalidated. An
// index.html of another build (the server was updated meanwhile) fails the install, which
// the browser tries again later: a shell must never point at chunks it does not hold.
async function precache() {
  const cache = await caches.open(SHELL);
  await Promise.all(
    BUILD.files.map(async (path) => {
      const hashed = path.startsWith(BUILD.appDir) || /-[0-9a-f]{16}(_bg)?\.[a-z]+$/.test(path);
      const mode = hashed ? "default" : "no-cache";
      const response = await fetch(path, { cache: mode, credentials: "same-origin" });
      if (!response.ok) throw new Error(`precache: ${path} answered ${response.status}`);
      if (path === "/index.html") {
        const html = await response.clone().text();
        if (!html.includes(BUILD.appDir)) throw new Error("precache: index.html of another build");
      }
      await cache.put(path, response);
    }),
  );
  await precacheSandboxPages(cache);
}

// The sandbox pages too, as the edge sends them (an edge without one leaves it out:
// previews and diagrams then need the network, nothing else does).
async function precacheSandboxPages(cache) {
  await Promise.all(
    SANDBOX_PAGES.map(async (path) => {
      try {
        const response = await fetch(path, { cache: "no-cache", credentials: "same-origin" });
        if (response.ok) await cache.put(path, response);
      } catch (_) {}
    }),
  );
}

// A sandbox page from the network, kept for later; offline, the kept one.
async function sandboxPage(request, url) {
  try {
    const response = await fetch(request);
    if (response.ok) await (await caches.open(SHELL)).put(url.pathname, response.clone());
    return response;
  } catch (error) {
    for (const name of await shellCaches()) {
      const hit = await (await caches.open(name)).match(url.pathname, { ignoreVary: true });
      if (hit) return hit;
    }
    throw error;
  }
}

async function forgetOldVersions() {
  const meta = await caches.open(VERSIONS);
  const stored = await meta.match("/versions");
  let versions = stored ? await stored.json().catch(() => []) : [];
  if (!Array.isArray(versions)) versions = [];
  versions = versions.filter((v) => v !== BUILD.version).concat(BUILD.version).slice(-KEEP_VERSIONS);
  await meta.put(
    "/versions",
    new Response(JSON.stringify(versions), { headers: { "content-type": "application/json" } }),
  );
  const keep = new Set(versions.map((v) => SHELL_PREFIX + v));
  for (const name of await caches.keys()) {
    if (name.startsWith(SHELL_PREFIX) && !keep.has(name)) await caches.delete(name);
  }
}

async function shellCaches() {
  const names = (await caches.keys()).filter((n) => n.startsWith(SHELL_PREFIX) && n !== SHELL);
  return [SHELL, ...names.reverse()];
}

async function fromCache(request, url) {
  for (const name of await shellCaches()) {
    const cache = await caches.open(name);
    const hit = await cache.match(url.pathname, { ignoreVary: true });
    if (hit) return hit;
  }
  return fetch(request);
}

// A navigation opens the app: this version's index.html for "/" and client routes, a
// build file by itself (an icon opened in a tab), anything else from the network.
async function navigate(request, url) {
  const cache = await caches.open(SHELL);
  const last = url.pathname.split("/").pop();
  if (url.pathname === "/" || !last.includes(".")) {
    const shell = await cache.match("/index.html", { ignoreVary: true });
    if (shell) return shell;
  } else {
    const hit = await cache.match(url.pathname, { ignoreVary: true });
    if (hit) return hit;
  }
  return fetch(request);
}

// The share target (manifest "share_target"): the title, text, link and files another app
// shared, kept as cache entries under /__share/<id>/ until the page takes them.
async function receiveShare(request) {
  let form;
  try {
    form = await request.formData();
  } catch (_) {
    return Response.redirect("/?share=failed", 303);
  }
  const id = crypto.randomUUID();
  const cache = await caches.open(SHARE);
  await forgetOldShares(cache);
  const field = (name) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  const files = form.getAll("files").filter((f) => f instanceof File && f.size > 0);
  const meta = {
    at: Date.now(),
    title: field("title"),
    text: field("text"),
    url: field("url"),
    files: files.map((f) => ({ name: f.name, type: f.type })),
  };
  await Promise.all(
    files.slice(0, MAX_SHARED_FILES).map((file, index) =>
      cache.put(
        `/__share/${id}/${index}`,
        new Response(file, { headers: { "content-type": file.type || "application/octet-stream" } }),
      ),
    ),
  );
  await cache.put(
    `/__share/${id}/meta`,
    new Response(JSON.stringify(meta), { headers: { "content-type": "application/json" } }),
  );
  return Response.redirect(`/?share=${id}`, 303);
}

async function forgetOldShares(cache) {
  const now = Date.now();
  for (const request of await cache.keys()) {
    if (!request.url.endsWith("/meta")) continue;
    const meta = await (await cache.match(request)).json().catch(() => ({ at: 0 }));
    if (now - (meta.at || 0) < SHARE_TTL_MS) continue;
    const prefix = request.url.slice(0, -"meta".length);
    for (const entry of await cache.keys()) {
      if (entry.url.startsWith(prefix)) await cache.delete(entry);
    }
  }
}
