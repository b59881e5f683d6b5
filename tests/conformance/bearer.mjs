// Preloaded into the conformance suite (`node --import ./bearer.mjs`) by
// tests/conformance.rs. The suite has no option for request headers, and
// some of its scenarios drop the URL's query, so this adds the inbox token
// (ASK_USER_CONFORMANCE_TOKEN) as `Authorization: Bearer` to every request
// it sends, through node's http module and fetch: what a host's `--header`
// does. The inbox under test is the product as shipped.
import http from "node:http";
import { Agent, setGlobalDispatcher } from "undici";

const bearer = `Bearer ${process.env.ASK_USER_CONFORMANCE_TOKEN}`;

const request = http.request;
http.request = function (url, options, callback) {
  // http.request(options[, callback]) or http.request(url[, options][, callback]).
  if (typeof url === "object" && !(url instanceof URL)) {
    url.headers = { ...(url.headers ?? {}), Authorization: bearer };
  } else if (typeof options === "object" && options !== null) {
    options.headers = { ...(options.headers ?? {}), Authorization: bearer };
  } else {
    return request.call(this, url, { headers: { Authorization: bearer } }, options);
  }
  return request.call(this, url, options, callback);
};

const fetch = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has("authorization")) headers.set("authorization", bearer);
  return fetch(input, { ...init, headers });
};

// undici's own `request` (some scenarios use it): through the global dispatcher.
setGlobalDispatcher(
  new Agent().compose((dispatch) => (options, handler) => {
    const headers = options.headers;
    if (Array.isArray(headers)) {
      options.headers = [...headers, "authorization", bearer];
    } else {
      options.headers = { ...(headers ?? {}), authorization: bearer };
    }
    return dispatch(options, handler);
  }),
);
