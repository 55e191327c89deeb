import fc from "fast-check";
import type { JsonSchema, RestRoute } from "../../gateways/rest/route.js";
import { cursorFor } from "./cursors.js";
import type { Pools } from "./harness.js";
import { anyJson, badId, deepJson, fromSchema, hugeText, nastyText } from "./values.js";

export type KeyKind = "none" | "read" | "full" | "bogus" | "twice";

/** One REST request as the fuzzer sends it: everything needed to print and replay it. */
export interface RestCase {
  surface: "rest";
  route: string;
  key: KeyKind;
  method: string;
  /** The request target as sent (latin1: raw bytes may be in it). */
  target: string;
  headers: [string, string][];
  /** The body as latin1 text of its bytes, or a size to fill with "a" (oversized bodies stay small in the log). */
  body: string | { fill: number } | null;
  /** Send the body chunked; "broken" sends a malformed chunk. */
  chunked: false | "ok" | "broken";
  /** One-leaf mode: the one value that was made hostile (one-leaf.ts). */
  leaf?: string;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Percent-encodes the UTF-8 bytes of a text (lone surrogates become U+FFFD, as a browser would send them). */
const enc = (s: string) =>
  [...Buffer.from(s, "utf8")]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, "0").toUpperCase()}`,
    )
    .join("");

/** Bytes no valid UTF-8 text has, percent-encoded or raw. */
const INVALID_UTF8 = ["%FF", "%C3%28", "%C0%AF", "%ED%A0%80", "%F8%88%80%80%80", "%E2%82"];
const RAW_BAD = ["\u00ff", "\u00c3(", "\u0001", " ", "\u007f", "\t", "#", "\u0000"];

/** How a text reaches a URL: encoded (mostly), with invalid percent escapes, or as raw bytes. */
const urlText = (text: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 8, arbitrary: text.map(enc) },
    { weight: 1, arbitrary: fc.constantFrom(...INVALID_UTF8, "%", "%zz", "%0", "%00", "%2F", "%252F") },
    { weight: 1, arbitrary: fc.tuple(text.map(enc), fc.constantFrom(...RAW_BAD)).map(([a, b]) => a + b) },
  );

const pathParam = (segment: string, pools: Pools) => {
  const real = pools.idsBySegment.get(segment) ?? [];
  return fc.oneof(
    { weight: real.length ? 5 : 0, arbitrary: real.length ? fc.constantFrom(...real).map(enc) : fc.constant("x") },
    { weight: 3, arbitrary: urlText(fc.oneof(badId, nastyText)) },
  );
};

const propsOf = (s: JsonSchema | undefined) =>
  (s as { properties?: Record<string, JsonSchema> } | undefined)?.properties ?? {};

/** A query value as text: what the schema wants (mostly), any JSON rendered as text, or nasty text. */
const asText = (v: unknown): string[] =>
  Array.isArray(v) ? v.flatMap(asText) : typeof v === "string" ? [v] : v === undefined ? [] : [JSON.stringify(v)];

function queryPairs(route: RestRoute, pools: Pools): fc.Arbitrary<[string, string][]> {
  const props = propsOf(route.doc?.querystring);
  const names = Object.keys(props);
  const value = (name: string): fc.Arbitrary<string[]> =>
    name === "cursor"
      ? cursorFor(route.url, pools).map((c) => [enc(c)])
      : fc.oneof(
          { weight: 4, arbitrary: fromSchema(props[name]).map((v) => asText(v).map(enc)) },
          { weight: 3, arbitrary: urlText(nastyText).map((t) => [t]) },
          { weight: 1, arbitrary: fc.array(urlText(nastyText), { minLength: 2, maxLength: 3 }) },
        );
  const known = names.length
    ? fc
        .array(fc.constantFrom(...names), { maxLength: 4 })
        .chain((chosen) =>
          chosen.length
            ? fc
                .tuple(...chosen.map((n) => value(n).map((vs) => vs.map((v) => [n, v] as [string, string]))))
                .map((x) => x.flat())
            : fc.constant([] as [string, string][]),
        )
    : fc.constant([] as [string, string][]);
  const unknown = fc.array(
    fc.tuple(
      urlText(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("limit[]", "__proto__", "constructor", "a.b"))),
      urlText(nastyText),
    ),
    { maxLength: 2 },
  );
  // A cursor alone (with a limit) keeps the filters it was issued for, so forged fields get past the filter check.
  const cursorOnly =
    "cursor" in props
      ? cursorFor(route.url, pools).map((c) => [["cursor", enc(c)]] as [string, string][])
      : fc.constant([] as [string, string][]);
  return fc.oneof(
    { weight: 6, arbitrary: known },
    { weight: 2, arbitrary: fc.tuple(known, unknown).map(([a, b]) => [...a, ...b]) },
    { weight: "cursor" in props ? 3 : 0, arbitrary: cursorOnly },
  );
}

/** Invalid UTF-8 put inside a JSON string value, as raw bytes (latin1 here). */
const INVALID_UTF8_RAW = ["\u00ff", "\u00c3\u0028", "\u00c0\u00af", "\u00ed\u00a0\u0080", "\u00e2\u0082"];

function bodyText(route: RestRoute): fc.Arbitrary<string | { fill: number } | null> {
  const schema = route.doc?.body;
  const utf8 = (s: string) => Buffer.from(s, "utf8").toString("latin1");
  const json = fromSchema(schema).map((v) => utf8(JSON.stringify(v) ?? "null"));
  const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const malformed = fc.oneof(
    deepJson,
    anyJson.map((v) => utf8(JSON.stringify(v) ?? "null")),
    fc.constantFrom(
      "null",
      "[]",
      "0",
      '"x"',
      "true",
      "",
      " ",
      "{",
      '{"a":',
      "{'a':1}",
      '{"a":1,"a":2}',
      "\ufeff{}",
      "{}x",
      "[1,]",
      '{"a":1e999}',
      "NaN",
      '{"a":"\\ud800"}',
      '{"__proto__":{"x":1}}',
    ),
    fc.tuple(json, fc.constantFrom(...INVALID_UTF8_RAW), fc.nat()).map(([j, bad, at]) => {
      // Inside the first string value, if there is one; else anywhere.
      const q = j.indexOf('"', j.indexOf(":") + 1);
      const i = q >= 0 ? q + 1 : at % (j.length + 1);
      return j.slice(0, i) + bad + j.slice(i);
    }),
    hugeText.map((t) => utf8(JSON.stringify({ name: t, body: t, display_name: t }))),
    fc.constant({ fill: limit + 1 }),
    fc.string({ unit: "binary", maxLength: 50 }).map(utf8),
  );
  if (!schema && !route.rawBody) return fc.option(malformed, { freq: 5, nil: null });
  return fc.oneof(
    { weight: 6, arbitrary: json },
    { weight: 4, arbitrary: malformed },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}

const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "APPLICATION/JSON",
  "application/jsonx",
  "application/merge-patch+json",
  "application/octet-stream",
  "application/proto",
  "json",
  "",
  "*/*",
  "application/json\u0001",
];

const keyArb = fc.constantFrom<KeyKind>("none", "read", "read", "full", "full", "full", "bogus", "twice");

export function restCase(routes: RestRoute[], pools: Pools): fc.Arbitrary<RestCase> {
  return fc.integer({ min: 0, max: routes.length - 1 }).chain((n) => {
    const route = routes[n];
    const segments = route.url.split("/");
    const params = segments.map((s, i) => (s.startsWith(":") ? pathParam(segments[i - 1], pools) : fc.constant(s)));
    const path = fc.tuple(...params).map((parts) => parts.join("/"));
    const pathShape = fc.oneof(
      { weight: 20, arbitrary: path },
      { weight: 1, arbitrary: path.map((p) => `${p}/`) },
      { weight: 1, arbitrary: path.map((p) => p.replace("/api/", "//api/")) },
      { weight: 1, arbitrary: path.map((p) => p.toUpperCase()) },
      { weight: 1, arbitrary: path.map((p) => `${p}/../${p.split("/").pop()}`) },
      {
        weight: 1,
        arbitrary: fc.tuple(path, fc.constantFrom(3000, 20_000, 70_000)).map(([p, n]) => `${p}/${"a".repeat(n)}`),
      },
    );
    const target = fc
      .tuple(pathShape, queryPairs(route, pools), fc.constantFrom("", "", "", "#frag", "&", "?&&=&"))
      .map(([p, q, tail]) => (q.length ? `${p}?${q.map(([k, v]) => `${k}=${v}`).join("&")}` : p) + tail);
    const method = fc.oneof(
      { weight: 12, arbitrary: fc.constant(route.method as string) },
      { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS") },
      { weight: 1, arbitrary: fc.constantFrom("TRACE", "FOO", "get", "M-SEARCH", "PROPFIND", "G\u00c9T", "") },
    );
    const body = bodyText(route);
    const contentType = fc.oneof(
      { weight: 10, arbitrary: fc.constant(route.rawBody ? "application/json" : "application/json") },
      { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      { weight: 1, arbitrary: fc.constant(null) },
    );
    const extraHeaders = fc.array(
      fc.oneof(
        fc.constantFrom<[string, string]>(
          ["x-request-id", "fuzz-1"],
          ["x-request-id", "a b\u00ff"],
          ["x-request-id", "x".repeat(300)],
          ["accept", "text/html"],
          ["accept", "application/xml"],
          ["accept-encoding", "gzip, br"],
          ["content-encoding", "gzip"],
          ["transfer-encoding", "chunked"],
          ["x-forwarded-for", "1.2.3.4"],
          ["origin", "http://evil.example"],
          ["x-big", "b".repeat(20_000)],
          ["bad header", "x"],
          ["x-folded", "a\r\n folded"],
          ["x-nul", "a\u0000b"],
          ["host", "evil.example"],
        ),
        fc.tuple(
          fc.constantFrom("x-api-key", "x-request-id", "accept", "x-x"),
          // No line breaks: a header that ends early would make the rest of the request another request.
          nastyText.map((t) => t.slice(0, 200).replace(/[\r\n]/g, "")),
        ),
      ),
      { maxLength: 2 },
    );
    return fc
      .record({
        key: keyArb,
        method,
        target,
        body,
        contentType,
        extra: extraHeaders,
        chunked: fc.constantFrom<RestCase["chunked"]>(false, false, false, false, false, false, "ok", "broken"),
      })
      .map(({ key, method, target, body, contentType, extra, chunked }) => {
        const headers: [string, string][] = [];
        if (body !== null && contentType !== null) headers.push(["content-type", contentType]);
        headers.push(...extra);
        return {
          surface: "rest" as const,
          route: `${route.method} ${route.url}`,
          key,
          method,
          target,
          headers,
          body,
          chunked: body === null ? false : chunked,
        };
      });
  });
}

/** The bytes of a case: request line, Host and Connection: close first, then its headers, key and body. */
export function restBytes(c: RestCase, port: number, keys: { read: string; full: string }): Buffer {
  const lines = [`${c.method} ${c.target} HTTP/1.1`];
  if (!c.headers.some(([k]) => k === "host")) lines.push(`host: 127.0.0.1:${port}`);
  lines.push("connection: close");
  const apiKey = {
    none: [],
    read: [keys.read],
    full: [keys.full],
    bogus: ["cf_notakey000000"],
    twice: [keys.read, keys.full],
  }[c.key];
  for (const k of apiKey) lines.push(`x-api-key: ${k}`);
  for (const [k, v] of c.headers) if (!(k === "transfer-encoding" && c.chunked)) lines.push(`${k}: ${v}`);
  const body =
    c.body === null
      ? null
      : typeof c.body === "string"
        ? Buffer.from(c.body, "latin1")
        : Buffer.alloc(c.body.fill, "a");
  if (body !== null) {
    if (c.chunked) {
      lines.push("transfer-encoding: chunked");
      const chunk = c.chunked === "ok" ? `${body.length.toString(16)}\r\n` : "zz\r\n";
      return Buffer.concat([
        Buffer.from(`${lines.join("\r\n")}\r\n\r\n${chunk}`, "latin1"),
        body,
        Buffer.from("\r\n0\r\n\r\n"),
      ]);
    }
    // With a Transfer-Encoding header too, Content-Length makes the framing ambiguous: refused at once, never a stall.
    lines.push(`content-length: ${body.length}`);
  } else if (c.headers.some(([k]) => k === "transfer-encoding")) lines.push("content-length: 0");
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  return body === null ? head : Buffer.concat([head, body]);
}

export function describeRest(c: RestCase): string {
  const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n)}… (${t.length} chars)` : t);
  const body =
    c.body === null
      ? ""
      : typeof c.body === "string"
        ? `\n  body (latin1 of its bytes): ${JSON.stringify(cut(c.body, 400))}`
        : `\n  body: ${c.body.fill} × "a"`;
  const headers = c.headers.map(([k, v]) => [k, cut(v, 100)]);
  return (
    `REST ${c.method} ${JSON.stringify(cut(c.target, 300))} key=${c.key} route=${c.route}` +
    `${c.chunked ? ` chunked=${c.chunked}` : ""}\n  headers: ${JSON.stringify(headers)}${body}`
  );
}
