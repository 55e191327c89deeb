import fc from "fast-check";
import type { CoreCase } from "./core.js";
import type { McpCase } from "./mcp.js";
import type { KeyKind, RestCase } from "./rest.js";
import type { CoreSeed, McpSeed, RestSeed } from "./seeds.js";

/**
 * The one-leaf mode: a valid request (a seed, seeds.ts) with exactly one value
 * replaced by a hostile one — one leaf of the JSON body, one query parameter
 * or one path parameter — so that the value gets past every check that looks
 * at the request as a whole and reaches the code that handles that field.
 */

/** Where a leaf is: a path parameter, a query parameter (present or declared), or a place in the JSON body. */
export type LeafPlace =
  | { in: "path"; name: string }
  | { in: "query"; name: string; index: number }
  | { in: "body"; path: (string | number)[] };

/** How the leaf is bent. */
export type HostileKind =
  "nul" | "c0" | "lone-surrogate" | "10k-chars" | "rtl-override" | "huge-number" | "wrong-type" | "duplicate";

const KINDS: HostileKind[] = [
  "nul",
  "c0",
  "lone-surrogate",
  "10k-chars",
  "rtl-override",
  "huge-number",
  "wrong-type",
  "duplicate",
];

/** C0 controls other than tab, LF and CR (which text may hold), DEL, and a C1 control. */
const C0 = ["\u0001", "\u0007", "\u0008", "\u000b", "\u000c", "\u001b", "\u001f", "\u007f", "\u0085"];
const FORTY_DIGITS = "1234567890123456789012345678901234567890";
const HUGE = ["1e309", "-1e309", FORTY_DIGITS, `-${FORTY_DIGITS}`, "1e-400", "0.12345678901234567890123"];
/** Raw JSON of another type than the value's own. */
const WRONG_TYPES = ["null", "true", "false", "0", "-1", '""', '"x"', "[]", "{}", '{"a":1}', "[null]"];
/** The same as text in a URL. */
const WRONG_TEXT = ["null", "true", "", "[]", "{}", "[object Object]", "undefined", "-1", "0"];

/** A JSON value as raw JSON text, lone surrogates written as `\udXXX` escapes (JSON.stringify does so). */
const raw = (v: unknown) => JSON.stringify(v) ?? "null";

const textOf = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : raw(v));

/** A hostile replacement for the text `s`, or for the value itself; `pick` chooses among variants. */
function hostileText(kind: Exclude<HostileKind, "duplicate">, s: string, pick: number): string {
  switch (kind) {
    case "nul":
      return [`${s}\u0000`, "\u0000", `\u0000${s}`][pick % 3];
    case "c0":
      return `${s.slice(0, 1)}${C0[pick % C0.length]}${s.slice(1)}`;
    case "lone-surrogate":
      return [`x\ud800y`, `${s}\udfff`, "\ud800"][pick % 3];
    case "10k-chars":
      return pick % 2
        ? "a".repeat(10_000)
        : (s || "a").repeat(Math.ceil(10_000 / Math.max(s.length, 1))).slice(0, 10_000);
    case "rtl-override":
      return `\u202e${s}`;
    case "huge-number":
      return HUGE[pick % HUGE.length];
    case "wrong-type":
      return WRONG_TEXT[pick % WRONG_TEXT.length];
  }
}

/** Raw JSON replacing a body leaf whose value is `v`. */
function hostileJson(kind: Exclude<HostileKind, "duplicate">, v: unknown, pick: number): string {
  if (kind === "huge-number") return pick % 3 === 2 ? raw(HUGE[pick % HUGE.length]) : HUGE[pick % HUGE.length];
  if (kind === "wrong-type") return WRONG_TYPES[pick % WRONG_TYPES.length];
  return raw(hostileText(kind, textOf(v), pick));
}

/** Every leaf of a JSON value: scalars, and empty arrays and objects. */
export function leavesOf(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.length ? v.flatMap((x, i) => leavesOf(x, [...at, i])) : at.length ? [at] : [];
  if (v && typeof v === "object") {
    const entries = Object.entries(v);
    return entries.length ? entries.flatMap(([k, x]) => leavesOf(x, [...at, k])) : at.length ? [at] : [];
  }
  return [at];
}

const same = (a: (string | number)[], b: (string | number)[]) => a.length === b.length && a.every((x, i) => x === b[i]);

const get = (v: unknown, path: (string | number)[]) =>
  path.reduce<unknown>((x, k) => (x as Record<string | number, unknown> | undefined)?.[k], v);

/**
 * The JSON text of `v` with the leaf at `path` written as `replacement`, or —
 * when `duplicate` — its key written twice: the original value, then the replacement.
 */
function renderWith(
  v: unknown,
  path: (string | number)[],
  replacement: string,
  duplicate: boolean,
  at: (string | number)[] = [],
): string {
  if (!duplicate && same(at, path)) return replacement;
  if (Array.isArray(v))
    return `[${v.map((x, i) => renderWith(x, path, replacement, duplicate, [...at, i])).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => {
        const here = [...at, k];
        const member = `${raw(k)}:${renderWith(x, path, replacement, duplicate, here)}`;
        return duplicate && same(here, path) ? `${member},${raw(k)}:${replacement}` : member;
      })
      .join(",")}}`;
  return raw(v);
}

/** One mutation of a JSON value: the text to send and a line saying what was bent. */
export function mutateJson(value: unknown, leafIndex: number, kind: HostileKind, pick: number) {
  const leaves = leavesOf(value);
  if (leaves.length === 0) {
    // No leaf (an empty body): the whole value is the one value there is.
    const k = kind === "duplicate" ? "wrong-type" : kind;
    return { text: hostileJson(k, value, pick), what: `the whole body ← ${k}` };
  }
  const path = leaves[leafIndex % leaves.length];
  const original = get(value, path);
  // Duplicate keys need a key; an array element gets a value of the wrong type instead.
  const k = kind === "duplicate" && typeof path.at(-1) !== "string" ? "wrong-type" : kind;
  if (k === "duplicate") {
    const second = pick % 2 ? raw(original) : hostileJson("nul", original, pick);
    return {
      text: renderWith(value, path, second, true),
      what: `${path.join(".")} ← duplicate key (then ${second.slice(0, 40)})`,
    };
  }
  const replacement = hostileJson(k, original, pick);
  return {
    text: renderWith(value, path, replacement, false),
    what: `${path.join(".")} ← ${k} ${replacement.slice(0, 40)}`,
  };
}

/** Percent-encoding of a text's UTF-8 bytes; a lone surrogate is written as its 3 bytes (ED A0 80), invalid UTF-8. */
export function encodeUrl(s: string): string {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const bytes =
      cp >= 0xd800 && cp <= 0xdfff
        ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)]
        : [...Buffer.from(ch, "utf8")];
    for (const b of bytes)
      out += /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, "0").toUpperCase()}`;
  }
  return out;
}

interface Choice {
  leaf: number;
  kind: HostileKind;
  pick: number;
  key: KeyKind;
}

/** Mostly the full_access key (the value must reach the code that writes it), now and then the read_only one. */
const choice = fc.record({
  leaf: fc.nat(),
  kind: fc.constantFrom(...KINDS),
  pick: fc.nat({ max: 1000 }),
  key: fc.constantFrom<KeyKind>("full", "full", "full", "full", "full", "read"),
});

/** Where a REST seed may be bent: its path parameters, its query parameters (and declared ones), its body's leaves. */
function restPlaces(seed: RestSeed): LeafPlace[] {
  const places: LeafPlace[] = Object.keys(seed.params).map((name) => ({ in: "path" as const, name }));
  seed.query.forEach(([name], index) => places.push({ in: "query", name, index }));
  for (const name of seed.queryNames)
    if (!seed.query.some(([n]) => n === name)) places.push({ in: "query", name, index: -1 });
  if (seed.body !== undefined) for (const path of leavesOf(seed.body)) places.push({ in: "body", path });
  if (seed.body !== undefined && leavesOf(seed.body).length === 0) places.push({ in: "body", path: [] });
  return places;
}

function restOneLeaf(seed: RestSeed, c: Choice): RestCase {
  const places = restPlaces(seed);
  const place: LeafPlace = places.length ? places[c.leaf % places.length] : { in: "body", path: [] };
  const params = { ...seed.params };
  const query: [string, string][] = seed.query.map(([k, v]) => [encodeUrl(k), encodeUrl(v)]);
  let body = seed.body === undefined ? null : JSON.stringify(seed.body);
  let what: string;
  const textKind = (k: HostileKind) => (k === "duplicate" ? "wrong-type" : k);
  if (place.in === "path") {
    const v = hostileText(textKind(c.kind), params[place.name], c.pick);
    params[place.name] = encodeUrl(v);
    what = `path :${place.name} ← ${textKind(c.kind)} ${JSON.stringify(v.slice(0, 40))}`;
  } else if (place.in === "query") {
    const original = place.index >= 0 ? seed.query[place.index][1] : "";
    const v = hostileText(textKind(c.kind), original, c.pick);
    if (c.kind === "duplicate" && place.index >= 0) query.push([encodeUrl(place.name), encodeUrl(v)]);
    else if (place.index >= 0) query[place.index] = [encodeUrl(place.name), encodeUrl(v)];
    else query.push([encodeUrl(place.name), encodeUrl(v)]);
    const repeated = c.kind === "duplicate" && place.index >= 0 ? "repeated, then " : "";
    what = `query ${place.name} ← ${repeated}${textKind(c.kind)} ${JSON.stringify(v.slice(0, 40))}`;
  } else {
    const m = mutateJson(
      seed.body ?? {},
      leavesOf(seed.body).findIndex((p) => same(p, place.path)),
      c.kind,
      c.pick,
    );
    body = m.text;
    what = `body ${m.what}`;
  }
  const path = seed.route.url.replace(/:(\w+)/g, (_, p: string) =>
    p in seed.params && params[p] !== seed.params[p] ? params[p] : encodeUrl(seed.params[p] ?? ""),
  );
  const target = query.length ? `${path}?${query.map(([k, v]) => `${k}=${v}`).join("&")}` : path;
  return {
    surface: "rest",
    route: `${seed.route.method} ${seed.route.url}`,
    key: c.key,
    method: seed.route.method,
    target,
    headers: body === null ? [] : [["content-type", "application/json"]],
    body: body === null ? null : Buffer.from(body, "utf8").toString("latin1"),
    chunked: false,
    leaf: what,
  };
}

const rpc = (name: string, argsJson: string) =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${raw(name)},"arguments":${argsJson}}}`;

function mcpOneLeaf(seed: McpSeed, c: Choice): McpCase {
  const m = mutateJson(seed.args, c.leaf, c.kind, c.pick);
  return {
    surface: "mcp",
    tool: seed.tool.name,
    key: c.key,
    body: rpc(seed.tool.name, m.text),
    contentType: "application/json",
    headers: [["accept", "application/json, text/event-stream"]],
    leaf: `arguments ${m.what}`,
  };
}

function coreOneLeaf(seed: CoreSeed, c: Choice): CoreCase {
  const m = mutateJson(seed.json, c.leaf, c.kind, c.pick);
  return {
    surface: "core",
    method: `/${seed.method.parent.typeName}/${seed.method.name}`,
    protocol: "connect-json",
    key: c.key,
    getAllowed: false,
    hex: Buffer.from(m.text, "utf8").toString("hex"),
    leaf: `message ${m.what}`,
  };
}

export const restOneLeafCase = (seed: RestSeed) => choice.map((c) => restOneLeaf(seed, c));
export const mcpOneLeafCase = (seed: McpSeed) => choice.map((c) => mcpOneLeaf(seed, c));
export const coreOneLeafCase = (seed: CoreSeed) => choice.map((c) => coreOneLeaf(seed, c));
