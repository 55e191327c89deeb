import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import {
  fromJson,
  toBinary,
  ScalarType,
  type DescEnum,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
  type JsonValue,
} from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { frame } from "../helpers/h2.js";
import type { KeyKind } from "./rest.js";
import { leaksIn, type Problem } from "./oracle.js";
import { badDate, badId, badNumber, nastyText } from "./values.js";

export type Protocol = "connect-json" | "connect-proto" | "connect-get" | "grpc" | "grpc-web";

/** One request straight to the core's h2c listener. */
export interface CoreCase {
  surface: "core";
  method: string;
  protocol: Protocol;
  key: KeyKind;
  /** Connect serves GET only for methods declared without side effects; the others answer 405. */
  getAllowed: boolean;
  /** The body (or, for a Connect GET, the message parameter's bytes) as hex. */
  hex: string;
  /** One-leaf mode: the one value that was made hostile (one-leaf.ts). */
  leaf?: string;
}

/** Every service generated from proto/ (found in gen/coffer/v1, so a new service is fuzzed without listing it). */
export async function coreMethods(): Promise<DescMethod[]> {
  const dir = fileURLToPath(new URL("../../gen/coffer/v1/", import.meta.url));
  const methods: DescMethod[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith("_pb.ts"))
    .sort()) {
    const specifier = `../../gen/coffer/v1/${file.replace(/\.ts$/, ".js")}`;
    const mod = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
    for (const v of Object.values(mod))
      if (v && typeof v === "object" && (v as { kind?: string }).kind === "service")
        methods.push(...(v as DescService).methods);
  }
  return methods;
}

const INT_KINDS = new Set([
  ScalarType.INT32,
  ScalarType.INT64,
  ScalarType.UINT32,
  ScalarType.UINT64,
  ScalarType.SINT32,
  ScalarType.SINT64,
  ScalarType.FIXED32,
  ScalarType.FIXED64,
  ScalarType.SFIXED32,
  ScalarType.SFIXED64,
]);

/** A JSON value for one field: text fields get nasty text, dates and ids, numbers their edges. */
function fieldJson(f: DescField, depth: number): fc.Arbitrary<JsonValue> {
  const kind = f.fieldKind === "list" ? f.listKind : f.fieldKind === "map" ? f.mapKind : f.fieldKind;
  const { message, enum: enumType, scalar } = f as { message?: DescMessage; enum?: DescEnum; scalar?: ScalarType };
  const one = (): fc.Arbitrary<JsonValue> => {
    if (kind === "message") return depth > 2 ? fc.constant({}) : messageJson(message!, depth + 1);
    if (kind === "enum")
      return fc.oneof(fc.constantFrom(...enumType!.values.map((v) => v.name)), fc.integer({ min: -2, max: 100 }));
    if (scalar === ScalarType.BOOL) return fc.boolean();
    if (scalar === ScalarType.DOUBLE || scalar === ScalarType.FLOAT)
      return fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom("NaN", "Infinity", "-Infinity"),
      );
    if (scalar !== undefined && INT_KINDS.has(scalar))
      return fc.oneof(fc.integer({ min: -5, max: 1000 }), fc.constantFrom("9223372036854775807", "-1", 2147483647));
    if (scalar === ScalarType.BYTES)
      return fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b).toString("base64"));
    return fc.oneof(nastyText, badDate, badId, badNumber, fc.string({ maxLength: 10 }));
  };
  if (f.fieldKind === "list") return fc.array(one(), { maxLength: 3 });
  if (f.fieldKind === "map") return fc.dictionary(fc.string({ maxLength: 6 }), one(), { maxKeys: 2 });
  return one();
}

function messageJson(m: DescMessage, depth = 0): fc.Arbitrary<JsonValue> {
  if (m.fields.length === 0) return fc.constant({});
  return fc
    .tuple(...m.fields.map((f) => fc.option(fieldJson(f, depth), { freq: 2, nil: undefined })))
    .map((values) =>
      Object.fromEntries(m.fields.flatMap((f, i) => (values[i] === undefined ? [] : [[f.jsonName, values[i]]]))),
    );
}

/** Protobuf a message parser cannot read: bad tags, truncated varints and lengths, wrong wire types. */
const garbage = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 64 }),
  fc.constantFrom(
    Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x0f]),
    Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
    Uint8Array.from([0x0a, 0x05, 0x61]),
    Uint8Array.from([0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
    Uint8Array.from([0x0b]),
    Uint8Array.from([0x0f]),
    Uint8Array.from([0x00]),
    Uint8Array.from([0x0a, 0x02, 0xc3, 0x28]),
    Uint8Array.from([0x12, 0x01, 0x00]),
  ),
);

export function coreCase(methods: DescMethod[]): fc.Arbitrary<CoreCase> {
  return fc.integer({ min: 0, max: methods.length - 1 }).chain((n) => {
    const m = methods[n];
    const json = messageJson(m.input);
    /** A message that decodes (its text fields nasty), or undefined when the random JSON is not one. */
    const binaryOf = (j: JsonValue) => {
      try {
        return toBinary(m.input, fromJson(m.input, j, { ignoreUnknownFields: true }));
      } catch {
        return new Uint8Array([0xff, 0x01]);
      }
    };
    const proto = fc.oneof({ weight: 2, arbitrary: json.map(binaryOf) }, { weight: 2, arbitrary: garbage });
    const jsonBytes = fc.oneof(
      { weight: 3, arbitrary: json.map((j) => Buffer.from(JSON.stringify(j), "utf8")) },
      { weight: 1, arbitrary: garbage.map((g) => Buffer.from(g)) },
      {
        weight: 1,
        arbitrary: fc.constantFrom("", "null", "[]", "{", '{"x":1}', '{"a":"\u0000"}').map((t) => Buffer.from(t)),
      },
    );
    const framed = fc.oneof(
      { weight: 3, arbitrary: proto.map((p) => frame(p)) },
      { weight: 1, arbitrary: proto.map((p) => frame(p, 1)) },
      { weight: 1, arbitrary: proto.map((p) => frame(p).subarray(0, Math.max(1, p.length))) },
      { weight: 1, arbitrary: proto.map((p) => Buffer.concat([frame(p), frame(p)])) },
      { weight: 1, arbitrary: garbage.map((g) => Buffer.from(g)) },
    );
    return fc
      .tuple(
        fc.constantFrom<Protocol>("connect-json", "connect-proto", "connect-get", "grpc", "grpc-web"),
        fc.constantFrom<KeyKind>("none", "read", "full", "full", "bogus"),
      )
      .chain(([protocol, key]) => {
        const bytes =
          protocol === "connect-json"
            ? jsonBytes
            : protocol === "connect-proto"
              ? proto.map((p) => Buffer.from(p))
              : protocol === "connect-get"
                ? fc.oneof(
                    jsonBytes,
                    proto.map((p) => Buffer.from(p)),
                  )
                : framed;
        return bytes.map((b) => ({
          surface: "core" as const,
          method: `/${m.parent.typeName}/${m.name}`,
          protocol,
          key,
          getAllowed: m.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS,
          hex: Buffer.from(b).toString("hex"),
        }));
      });
  });
}

export function coreRequest(c: CoreCase, keys: { read: string; full: string }) {
  const key = { none: null, read: keys.read, full: keys.full, bogus: "cf_notakey000000", twice: keys.read }[c.key];
  const headers: Record<string, string> = key ? { "x-api-key": key } : {};
  const body = Buffer.from(c.hex, "hex");
  switch (c.protocol) {
    case "connect-json":
      return { path: c.method, headers: { ...headers, "content-type": "application/json" }, body };
    case "connect-proto":
      return { path: c.method, headers: { ...headers, "content-type": "application/proto" }, body };
    case "connect-get": {
      const isJson = body.length > 0 && (body[0] === 0x7b || body[0] === 0x5b || body[0] === 0x6e);
      // Past about 64 KiB of headers HTTP/2 itself ends the connection (the header block cannot be kept);
      // the message parameter is cut short of that so that the core, not the framing, answers.
      const message = (isJson ? encodeURIComponent(body.toString("latin1")) : body.toString("base64url")).slice(
        0,
        60_000,
      );
      return {
        method: "GET",
        path: `${c.method}?connect=v1&encoding=${isJson ? "json&" : "proto&base64=1&"}message=${message}`,
        headers,
      };
    }
    case "grpc":
      return { path: c.method, headers: { ...headers, "content-type": "application/grpc", te: "trailers" }, body };
    case "grpc-web":
      return { path: c.method, headers: { ...headers, "content-type": "application/grpc-web+proto" }, body };
  }
}

/** Codes a request's own mistakes never deserve: the core's "something broke". */
const BROKEN_CONNECT = new Set(["internal", "unknown", "data_loss"]);
const BROKEN_GRPC = new Set(["2", "13", "15"]);

/** gRPC-Web carries its trailers in a last frame flagged 0x80. */
function grpcWebTrailers(body: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at + 5 <= body.length) {
    const flags = body[at];
    const len = body.readUInt32BE(at + 1);
    const data = body.subarray(at + 5, at + 5 + len);
    if (flags & 0x80)
      for (const line of data.toString("latin1").split("\r\n")) {
        const i = line.indexOf(":");
        if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
    at += 5 + len;
  }
  return out;
}

export interface CoreOutcome {
  label: string;
  problems: Problem[];
  ok: boolean;
}

export function judgeCore(
  c: CoreCase,
  res: { status: number; headers: Record<string, string>; body: Buffer; trailers: Record<string, string> },
): CoreOutcome {
  const problems: Problem[] = [];
  if (res.status >= 500)
    problems.push({ kind: "5xx", detail: `${res.status} ${res.body.toString("utf8").slice(0, 300)}` });
  const leak = (text: string | undefined) => {
    const l = text ? leaksIn(text) : null;
    if (l) problems.push({ kind: "leak", detail: l });
  };
  if (c.protocol === "grpc" || c.protocol === "grpc-web") {
    const t =
      c.protocol === "grpc" ? { ...res.headers, ...res.trailers } : { ...res.headers, ...grpcWebTrailers(res.body) };
    const status = t["grpc-status"];
    if (status === undefined && res.status === 200)
      problems.push({ kind: "non-envelope", detail: `${c.protocol} answer without grpc-status` });
    if (status && BROKEN_GRPC.has(status))
      problems.push({ kind: "internal-code", detail: `grpc-status ${status}: ${t["grpc-message"] ?? ""}` });
    leak(t["grpc-message"] && decodeURIComponent(t["grpc-message"]));
    return {
      label: `${c.protocol} ${res.status === 200 ? `status ${status}` : `http ${res.status}`}`,
      problems,
      ok: status === "0",
    };
  }
  if (res.status === 200) return { label: `connect 200`, problems, ok: true };
  // The Connect protocol's answer to a GET of a method with side effects: 405 and Allow, before any Coffer code runs.
  if (c.protocol === "connect-get" && !c.getAllowed && res.status === 405)
    return { label: "connect-get 405 (method has side effects)", problems, ok: false };
  let code = "?";
  try {
    const e = JSON.parse(res.body.toString("utf8")) as { code: string; message?: string };
    code = e.code;
    leak(e.message);
  } catch {
    problems.push({
      kind: "non-envelope",
      detail: `connect ${res.status} without a JSON error: ${res.body.toString("latin1").slice(0, 200)}`,
    });
  }
  if (BROKEN_CONNECT.has(code))
    problems.push({ kind: "internal-code", detail: `connect ${code}: ${res.body.toString("utf8").slice(0, 300)}` });
  return { label: `connect ${res.status} ${code}`, problems, ok: false };
}

export function describeCore(c: CoreCase): string {
  const hex = c.hex.length > 400 ? `${c.hex.slice(0, 400)}…` : c.hex;
  return `CORE ${c.protocol} ${c.method} key=${c.key}\n  body hex: ${hex}`;
}
