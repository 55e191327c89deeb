import { create, createFileRegistry, fromBinary, ScalarType, toBinary, type DescField, type DescFile, type DescMessage, type Message } from "@bufbuild/protobuf";
import { FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type, FileDescriptorProtoSchema, file_google_protobuf_struct, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { file_coffer_v1_accounts } from "../../gen/coffer/v1/accounts_pb.js";
import { file_coffer_v1_auth } from "../../gen/coffer/v1/auth_pb.js";
import { file_coffer_v1_categories } from "../../gen/coffer/v1/categories_pb.js";
import { file_coffer_v1_counterparties } from "../../gen/coffer/v1/counterparties_pb.js";
import { file_coffer_v1_system } from "../../gen/coffer/v1/system_pb.js";
import { file_coffer_v1_tags } from "../../gen/coffer/v1/tags_pb.js";
import { file_coffer_v1_transactions, TransactionSchema } from "../../gen/coffer/v1/transactions_pb.js";
import { file_coffer_v1_users } from "../../gen/coffer/v1/users_pb.js";
import { file_grpc_health_v1_health } from "../../gen/grpc/health/v1/health_pb.js";
import "../../services/shared/protobuf-utf8.js";
import { wireCodec } from "../../services/shared/wire/codec.js";

/** A message with a field of every kind the codec handles, beyond what the contract uses today. */
const allTypesFile = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "wire_codec_test.proto",
    package: "test",
    syntax: "proto3",
    dependency: ["google/protobuf/struct.proto"],
    messageType: [
      {
        name: "AllTypes",
        field: [
          ...[Type.DOUBLE, Type.FLOAT, Type.INT64, Type.UINT64, Type.INT32, Type.FIXED64, Type.FIXED32, Type.BOOL, Type.STRING, Type.BYTES, Type.UINT32, Type.SFIXED32, Type.SFIXED64, Type.SINT32, Type.SINT64].map(
            (type, i) => ({ name: `s_${Type[type].toLowerCase()}`, number: i + 1, type, label: Label.OPTIONAL, jsonName: `s${i}` }),
          ),
          ...[Type.INT32, Type.INT64, Type.DOUBLE, Type.SINT32, Type.STRING, Type.BYTES, Type.BOOL, Type.FIXED32].map((type, i) => ({ name: `r_${Type[type].toLowerCase()}`, number: 20 + i, type, label: Label.REPEATED })),
          { name: "r_unpacked", number: 30, type: Type.INT32, label: Label.REPEATED, options: { packed: false } },
          { name: "o_string", number: 31, type: Type.STRING, label: Label.OPTIONAL, proto3Optional: true, oneofIndex: 1 },
          { name: "o_int64", number: 32, type: Type.INT64, label: Label.OPTIONAL, proto3Optional: true, oneofIndex: 2 },
          { name: "o_int64_str", number: 33, type: Type.INT64, label: Label.OPTIONAL, options: { jstype: 1 } },
          { name: "c_text", number: 40, type: Type.STRING, label: Label.OPTIONAL, oneofIndex: 0 },
          { name: "c_number", number: 41, type: Type.SINT32, label: Label.OPTIONAL, oneofIndex: 0 },
          { name: "c_child", number: 42, type: Type.MESSAGE, typeName: ".test.AllTypes", label: Label.OPTIONAL, oneofIndex: 0 },
          { name: "child", number: 43, type: Type.MESSAGE, typeName: ".test.AllTypes", label: Label.OPTIONAL },
          { name: "children", number: 44, type: Type.MESSAGE, typeName: ".test.AllTypes", label: Label.REPEATED },
          { name: "m_int_string", number: 45, type: Type.MESSAGE, typeName: ".test.AllTypes.MIntStringEntry", label: Label.REPEATED },
          { name: "m_string_child", number: 46, type: Type.MESSAGE, typeName: ".test.AllTypes.MStringChildEntry", label: Label.REPEATED },
          { name: "m_bool_int", number: 47, type: Type.MESSAGE, typeName: ".test.AllTypes.MBoolIntEntry", label: Label.REPEATED },
          { name: "doc", number: 48, type: Type.MESSAGE, typeName: ".google.protobuf.Struct", label: Label.OPTIONAL },
          { name: "docs", number: 49, type: Type.MESSAGE, typeName: ".google.protobuf.Struct", label: Label.REPEATED },
          { name: "value", number: 50, type: Type.MESSAGE, typeName: ".google.protobuf.Value", label: Label.OPTIONAL },
          { name: "level", number: 51, type: Type.ENUM, typeName: ".test.Level", label: Label.OPTIONAL },
          { name: "levels", number: 52, type: Type.ENUM, typeName: ".test.Level", label: Label.REPEATED },
          { name: "big_field", number: 5000, type: Type.STRING, label: Label.OPTIONAL },
        ],
        oneofDecl: [{ name: "choice" }, { name: "_o_string" }, { name: "_o_int64" }],
        nestedType: [
          { name: "MIntStringEntry", options: { mapEntry: true }, field: [{ name: "key", number: 1, type: Type.INT32, label: Label.OPTIONAL }, { name: "value", number: 2, type: Type.STRING, label: Label.OPTIONAL }] },
          { name: "MStringChildEntry", options: { mapEntry: true }, field: [{ name: "key", number: 1, type: Type.STRING, label: Label.OPTIONAL }, { name: "value", number: 2, type: Type.MESSAGE, typeName: ".test.AllTypes", label: Label.OPTIONAL }] },
          { name: "MBoolIntEntry", options: { mapEntry: true }, field: [{ name: "key", number: 1, type: Type.BOOL, label: Label.OPTIONAL }, { name: "value", number: 2, type: Type.SINT64, label: Label.OPTIONAL }] },
        ],
      },
    ],
    enumType: [{ name: "Level", value: [{ name: "LEVEL_UNSPECIFIED", number: 0 }, { name: "LEVEL_LOW", number: 1 }, { name: "LEVEL_NEGATIVE", number: -3 }] }],
  }),
  (name) => (name === "google/protobuf/struct.proto" ? file_google_protobuf_struct : undefined),
);
const AllTypes = allTypesFile.getMessage("test.AllTypes")!;

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
type Rand = ReturnType<typeof rng>;

const STRINGS = ["", "a", "Starbucks", "STARBUCKS STORE #4821 SEATTLE WA", "café ☕", "emoji 🧾 ok", "x".repeat(42), "é".repeat(42), "y".repeat(200), "z".repeat(20_000)];
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

function scalarValue(r: Rand, scalar: ScalarType, longAsString: boolean): unknown {
  const long = (n: bigint) => (longAsString ? n.toString() : n);
  switch (scalar) {
    case ScalarType.STRING:
      return pick(r, STRINGS);
    case ScalarType.BYTES:
      return Uint8Array.from({ length: pick(r, [0, 1, 5, 300]) }, () => Math.floor(r() * 256));
    case ScalarType.BOOL:
      return r() < 0.5;
    case ScalarType.DOUBLE:
      return pick(r, [0, 1.5, -2.25, 1e300, Number.MIN_VALUE, 12.34, NaN, Infinity]);
    case ScalarType.FLOAT:
      return pick(r, [0, 1.5, -2.25, 1024]);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return pick(r, [0, 1, -1, 127, 128, 300, 2 ** 31 - 1, -(2 ** 31)]);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return pick(r, [0, 1, 127, 128, 2 ** 32 - 1]);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return long(pick(r, [0n, 1n, -1n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 1_764_000_000n]));
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return long(pick(r, [0n, 1n, 2n ** 64n - 1n, 2n ** 53n + 1n]));
  }
}

function jsonValue(r: Rand, depth: number): unknown {
  const kind = Math.floor(r() * (depth > 2 ? 4 : 6));
  if (kind === 0) return null;
  if (kind === 1) return pick(r, [0, 1, -3.5, 1e21]);
  if (kind === 2) return pick(r, STRINGS.slice(0, 6));
  if (kind === 3) return r() < 0.5;
  if (kind === 4) return Array.from({ length: Math.floor(r() * 3) }, () => jsonValue(r, depth + 1));
  return jsonObject(r, depth + 1);
}
const jsonObject = (r: Rand, depth: number) => Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, (_, i) => [`k${i}${pick(r, ["", "_é"])}`, jsonValue(r, depth)]));

function messageValue(r: Rand, field: DescField & { message: DescMessage }, depth: number): unknown {
  if (field.message.typeName === "google.protobuf.Struct") return jsonObject(r, 0);
  return randomInit(r, field.message, depth + 1);
}

/** A random init object for `desc`, each field set about half the time. */
function randomInit(r: Rand, desc: DescMessage, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > 2) return out;
  for (const f of desc.fields) {
    if (r() < 0.4) continue;
    let v: unknown;
    switch (f.fieldKind) {
      case "scalar":
        v = scalarValue(r, f.scalar, f.longAsString);
        break;
      case "enum":
        v = pick(r, f.enum.values).number;
        break;
      case "message":
        if (f.message.typeName === "google.protobuf.Value") v = create(f.message, { kind: { case: "stringValue", value: "v" } });
        else v = messageValue(r, f, depth);
        break;
      case "list":
        v = Array.from({ length: Math.floor(r() * 4) }, () =>
          f.listKind === "message" ? messageValue(r, f, depth) : f.listKind === "enum" ? pick(r, f.enum.values).number : scalarValue(r, f.scalar, f.longAsString),
        );
        break;
      case "map":
        v = Object.fromEntries(
          Array.from({ length: Math.floor(r() * 3) }, () => [
            String(scalarValue(r, f.mapKey, false)),
            f.mapKind === "message" ? messageValue(r, f, depth) : f.mapKind === "enum" ? pick(r, f.enum.values).number : scalarValue(r, f.scalar, false),
          ]),
        );
        break;
    }
    if (f.oneof) {
      if (out[f.oneof.localName]) continue;
      out[f.oneof.localName] = { case: f.localName, value: v };
    } else out[f.localName] = v;
  }
  return out;
}

function messagesOf(files: DescFile[]): DescMessage[] {
  const all: DescMessage[] = [];
  const visit = (m: DescMessage) => {
    all.push(m);
    m.nestedMessages.forEach(visit);
  };
  for (const f of files) f.messages.forEach(visit);
  return all;
}

const contract = messagesOf([
  file_coffer_v1_accounts,
  file_coffer_v1_auth,
  file_coffer_v1_categories,
  file_coffer_v1_counterparties,
  file_coffer_v1_system,
  file_coffer_v1_tags,
  file_coffer_v1_transactions,
  file_coffer_v1_users,
  file_grpc_health_v1_health,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
]).filter((m) => !m.typeName.endsWith("Entry"));

describe("wireCodec agrees with protobuf-es", () => {
  it.each([...contract, AllTypes].map((m) => [m.typeName, m] as const))("%s: same bytes out, same message back", (_name, desc) => {
    const r = rng(desc.typeName.length * 7919);
    const codec = wireCodec(desc);
    for (let i = 0; i < 60; i++) {
      const msg = create(desc, randomInit(r, desc) as never) as Message;
      const bytes = toBinary(desc, msg);
      expect(Buffer.from(codec.encode(msg as never)).equals(Buffer.from(bytes))).toBe(true);
      expect(codec.decode(bytes)).toEqual(fromBinary(desc, bytes));
    }
  });

  it("covers the contract's messages", () => {
    expect(contract.map((m) => m.typeName)).toEqual(expect.arrayContaining(["coffer.v1.Transaction", "coffer.v1.ListTransactionsResponse", "google.protobuf.Struct"]));
  });

  it("encodes a plain init object (no $typeName, fields missing) like create() would", () => {
    const init = { id: "x", amount: "12.34", tags: ["a"], metadata: { note: "hi", n: 2, list: [true, null] } };
    expect(Buffer.from(wireCodec(TransactionSchema).encode(init as never)).equals(Buffer.from(toBinary(TransactionSchema, create(TransactionSchema, init))))).toBe(true);
  });

  it("reads numeric lists packed or not, and skips unknown fields", () => {
    const packed = create(AllTypes, { rInt32: [1, -2, 300], rUnpacked: [4, 5] } as never);
    const bytes = toBinary(AllTypes, packed);
    // Field 20 (packed int32) written unpacked, plus unknown fields of every wire type.
    const unpacked = Buffer.from([0xa0, 0x01, 0x07, 0xa0, 0x01, 0x08, 0xf8, 0x07, 0x01, 0xf9, 0x07, 1, 2, 3, 4, 5, 6, 7, 8, 0xfa, 0x07, 0x02, 0x61, 0x62, 0xfd, 0x07, 1, 2, 3, 4]);
    const decoded = wireCodec(AllTypes).decode(Buffer.concat([bytes, unpacked])) as unknown as { rInt32: number[]; rUnpacked: number[] };
    expect(decoded.rInt32).toEqual([1, -2, 300, 7, 8]);
    expect(decoded.rUnpacked).toEqual([4, 5]);
  });

  it("refuses truncated input", () => {
    const bytes = wireCodec(TransactionSchema).encode({ id: "0192f0a4-6b0e-7c3a-9d1e-000000000001", name: "Coffee" } as never);
    expect(() => wireCodec(TransactionSchema).decode(bytes.subarray(0, bytes.length - 3))).toThrow(/premature end/);
  });
});
