// The inbox's service worker: it keeps the shell (the page and its icons)
// so that the installed app opens without the network, and nothing else.
// Never cached: /api/* (questions, answers, history, the event stream),
// /pair (a pairing code rides in its fragment), and any request that
// carries a token (an Authorization header or a token in the query).
"use strict";
var CACHE = "ask_user-shell-v1";
var SHELL = ["/app", "/manifest.webmanifest", "/icon-192.png", "/icon-512.png"];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(SHELL); }));
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== CACHE; })
      .map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  var shell = request.method === "GET" && url.origin === self.location.origin &&
    SHELL.indexOf(url.pathname) !== -1 && url.search === "" &&
    !request.headers.has("Authorization");
  if (!shell) return; // the network, as without a worker
  // The network first (a fresh page, with a fresh nonce), the cache when offline.
  event.respondWith(fetch(request).catch(function () {
    return caches.match(url.pathname);
  }));
});
