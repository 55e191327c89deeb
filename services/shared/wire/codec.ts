import { ScalarType, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { Reader } from "./reader.js";
import { readStructJson, writeStructJson } from "./struct-json.js";
import { Wire, type Obj } from "./wire.js";
import { Writer } from "./writer.js";

/**
 * A protobuf binary codec compiled per message type from its protobuf-es
 * descriptor into plain JavaScript (one encode and one decode function per
 * type, built with `new Function` from the descriptor only, never from data).
 * protobuf-es's toBinary/fromBinary are reflective: every field visit asks the
 * descriptor what to do, and every nested message is written into its own
 * chunk list and copied. Here those decisions are made once, fields are read
 * and written by name, and a message is written into one growing buffer.
 * For a page of 100 transactions that is several times cheaper (figures in
 * bench/transactions/README.md).
 *
 * It reads and writes the shapes protobuf-es does (proto3 implicit and
 * explicit presence, oneofs as {case, value}, int64 as bigint or string,
 * google.protobuf.Struct fields as plain JSON objects), and writes the same
 * canonical bytes: test/unit/wire-codec.test.ts checks both against
 * protobuf-es for every message of the contract and a message with every
 * field kind. Unknown fields are skipped. Refused when a codec is built:
 * group encoding and the wrapper types' unwrapped form (the contract uses
 * neither).
 */

export interface WireCodec<Desc extends DescMessage> {
  encode(message: MessageShape<Desc> | Omit<MessageShape<Desc>, "$typeName">): Uint8Array;
  decode(bytes: Uint8Array): MessageShape<Desc>;
}

type Encode = (w: Writer, m: Obj) => void;
type Decode = (r: Reader) => Obj;

const INT64 = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);

function wireOf(scalar: ScalarType): Wire {
  switch (scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return Wire.Bit64;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return Wire.Bit32;
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return Wire.Len;
    default:
      return Wire.Varint;
  }
}

/** Writer and Reader method names per scalar type (enums are int32). */
const SCALAR: Record<ScalarType, { write: string; read: string }> = {
  [ScalarType.DOUBLE]: { write: "double", read: "r.double()" },
  [ScalarType.FLOAT]: { write: "float", read: "r.float()" },
  [ScalarType.INT64]: { write: "int64", read: "r.int64()" },
  [ScalarType.UINT64]: { write: "int64", read: "r.varint64()" },
  [ScalarType.INT32]: { write: "int32", read: "(r.uvarint() | 0)" },
  [ScalarType.FIXED64]: { write: "fixed64", read: "r.fixed64()" },
  [ScalarType.FIXED32]: { write: "fixed32", read: "r.fixed32()" },
  [ScalarType.BOOL]: { write: "bool", read: "(r.uvarint() !== 0)" },
  [ScalarType.STRING]: { write: "string", read: "r.string()" },
  [ScalarType.BYTES]: { write: "bytes", read: "r.bytes()" },
  [ScalarType.UINT32]: { write: "uint32", read: "r.uvarint()" },
  [ScalarType.SFIXED32]: { write: "sfixed32", read: "r.sfixed32()" },
  [ScalarType.SFIXED64]: { write: "sfixed64", read: "r.sfixed64()" },
  [ScalarType.SINT32]: { write: "sint32", read: "r.sint32()" },
  [ScalarType.SINT64]: { write: "sint64", read: "r.sint64()" },
};

function readScalar(scalar: ScalarType, longAsString: boolean): string {
  const read = SCALAR[scalar].read;
  return longAsString && INT64.has(scalar) ? `String(${read})` : read;
}

/** The zero value protobuf-es's create() gives an implicit-presence scalar, as JavaScript source. */
function zeroSource(scalar: ScalarType, longAsString: boolean): string {
  if (scalar === ScalarType.STRING) return `""`;
  if (scalar === ScalarType.BOOL) return "false";
  if (scalar === ScalarType.BYTES) return "new Uint8Array(0)";
  if (INT64.has(scalar)) return longAsString ? `"0"` : "0n";
  return "0";
}

/** Source testing that an implicit-presence value `v` is not its zero (only then is it written). */
function nonZeroSource(scalar: ScalarType): string {
  if (scalar === ScalarType.STRING) return `v !== ""`;
  if (scalar === ScalarType.BOOL) return "v !== false";
  if (scalar === ScalarType.BYTES) return "v.length !== 0";
  if (INT64.has(scalar)) return "v != 0"; // bigint 0n and "0" both
  return "v !== 0";
}

function tagSource(no: number, wire: Wire): string {
  const bytes: number[] = [];
  for (let n = no * 8 + wire; ; n = Math.floor(n / 128)) {
    if (n <= 0x7f) {
      bytes.push(n);
      break;
    }
    bytes.push((n % 128) | 0x80);
  }
  if (bytes.length === 1) return `w.tag1(${bytes[0]});`;
  if (bytes.length === 2) return `w.tag2(${bytes[0]}, ${bytes[1]});`;
  return `w.raw(Uint8Array.of(${bytes.join(", ")}));`;
}

const key = (s: string) => JSON.stringify(s);

/** Whether protobuf-es holds this message-typed field as plain JSON (google.protobuf.Struct outside Value). */
function isStructJson(field: DescField, message: DescMessage): boolean {
  return message.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value";
}

function refuseUnsupported(field: DescField): void {
  const where = `${field.parent.typeName}.${field.name}`;
  if ((field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message")) && field.delimitedEncoding) {
    throw new Error(`wire-codec: ${where} uses group encoding, which is not supported`);
  }
  const message = field.fieldKind === "message" ? field.message : undefined;
  if (message && !field.oneof && message.typeName.startsWith("google.protobuf.") && message.typeName.endsWith("Value") && message.fields.length === 1 && message.fields[0].name === "value") {
    throw new Error(`wire-codec: ${where} uses a wrapper type, which is not supported`);
  }
}

/** Nested message types a compiled function refers to, as lazily resolved slots (types may be recursive). */
class Nested<F> {
  readonly fns: F[] = [];
  private readonly index = new Map<DescMessage, number>();
  constructor(private readonly compile: (desc: DescMessage) => F) {}

  slot(desc: DescMessage): string {
    let i = this.index.get(desc);
    if (i === undefined) {
      i = this.fns.length;
      this.index.set(desc, i);
      const fns = this.fns;
      const compile = this.compile;
      // Replaced by the compiled function on first use.
      fns.push(((...args: unknown[]) => {
        fns[i!] = compile(desc);
        return (fns[i!] as (...a: unknown[]) => unknown)(...args);
      }) as F);
    }
    return `N[${i}]`;
  }
}

const encoders = new WeakMap<DescMessage, Encode>();
const decoders = new WeakMap<DescMessage, Decode>();

function encoderFor(desc: DescMessage): Encode {
  let enc = encoders.get(desc);
  if (!enc) {
    enc = compileEncoder(desc);
    encoders.set(desc, enc);
  }
  return enc;
}

function decoderFor(desc: DescMessage): Decode {
  let dec = decoders.get(desc);
  if (!dec) {
    dec = compileDecoder(desc);
    decoders.set(desc, dec);
  }
  return dec;
}

function compileEncoder(desc: DescMessage): Encode {
  const nested = new Nested<Encode>(encoderFor);
  /** Source writing message value `x` of `message` (tag already written). */
  const messageValue = (field: DescField, message: DescMessage, x: string) =>
    `{ const s = w.begin(); ${isStructJson(field, message) ? "S" : nested.slot(message)}(w, ${x}); w.end(s); }`;
  const lines: string[] = ["let v;"];
  for (const f of [...desc.fields].sort((a, b) => a.number - b.number)) {
    refuseUnsupported(f);
    const read = f.oneof ? `v = m[${key(f.oneof.localName)}]; v = v !== undefined && v.case === ${key(f.localName)} ? v.value : undefined;` : `v = m[${key(f.localName)}];`;
    switch (f.fieldKind) {
      case "scalar":
      case "enum": {
        const scalar = f.fieldKind === "enum" ? ScalarType.INT32 : f.scalar;
        const implicit = f.presence === 2 && !f.oneof; // FeatureSet.FieldPresence.IMPLICIT
        lines.push(read, `if (v !== undefined${implicit ? ` && ${nonZeroSource(scalar)}` : ""}) { ${tagSource(f.number, wireOf(scalar))} w.${SCALAR[scalar].write}(v); }`);
        break;
      }
      case "message":
        lines.push(read, `if (v !== undefined) { ${tagSource(f.number, Wire.Len)} ${messageValue(f, f.message, "v")} }`);
        break;
      case "list": {
        if (f.listKind === "message") {
          lines.push(read, `if (v !== undefined) for (let i = 0; i < v.length; i++) { ${tagSource(f.number, Wire.Len)} ${messageValue(f, f.message, "v[i]")} }`);
          break;
        }
        const scalar = f.listKind === "enum" ? ScalarType.INT32 : f.scalar;
        const write = SCALAR[scalar].write;
        if (f.packed && wireOf(scalar) !== Wire.Len) {
          lines.push(read, `if (v !== undefined && v.length > 0) { ${tagSource(f.number, Wire.Len)} const s = w.begin(); for (let i = 0; i < v.length; i++) w.${write}(v[i]); w.end(s); }`);
        } else {
          lines.push(read, `if (v !== undefined) for (let i = 0; i < v.length; i++) { ${tagSource(f.number, wireOf(scalar))} w.${write}(v[i]); }`);
        }
        break;
      }
      case "map": {
        const keyOf =
          f.mapKey === ScalarType.STRING ? "k" : f.mapKey === ScalarType.BOOL ? `(k === "true")` : INT64.has(f.mapKey) ? "BigInt(k)" : "Number(k)";
        let value: string;
        if (f.mapKind === "message") value = `${tagSource(2, Wire.Len)} ${messageValue(f, f.message, "v[k]")}`;
        else {
          const scalar = f.mapKind === "enum" ? ScalarType.INT32 : f.scalar;
          value = `${tagSource(2, wireOf(scalar))} w.${SCALAR[scalar].write}(v[k]);`;
        }
        lines.push(
          read,
          `if (v !== undefined) for (const k of Object.keys(v)) { ${tagSource(f.number, Wire.Len)} const s = w.begin(); ${tagSource(1, wireOf(f.mapKey))} w.${SCALAR[f.mapKey].write}(${keyOf}); ${value} w.end(s); }`,
        );
        break;
      }
    }
  }
  const make = new Function("N", "S", `return function encode(w, m) {\n${lines.join("\n")}\n};`) as (n: Encode[], s: typeof writeStructJson) => Encode;
  return make(nested.fns, writeStructJson);
}

function compileDecoder(desc: DescMessage): Decode {
  const nested = new Nested<Decode>(decoderFor);
  const zero: string[] = [`$typeName: ${key(desc.typeName)}`];
  const cases: string[] = [];
  const messageRead = (field: DescField, message: DescMessage) => `r.message(${isStructJson(field, message) ? "SJ" : nested.slot(message)})`;
  const assign = (f: DescField, value: string) => (f.oneof ? `m[${key(f.oneof.localName)}] = { case: ${key(f.localName)}, value: ${value} };` : `m[${key(f.localName)}] = ${value};`);
  const tag = (no: number, wire: Wire) => no * 8 + wire;
  for (const o of desc.oneofs) zero.push(`${key(o.localName)}: { case: undefined }`);
  for (const f of desc.fields) {
    refuseUnsupported(f);
    const name = key(f.localName);
    switch (f.fieldKind) {
      case "scalar":
      case "enum": {
        const scalar = f.fieldKind === "enum" ? ScalarType.INT32 : f.scalar;
        const longAsString = f.fieldKind === "scalar" && f.longAsString;
        if (f.presence === 2 && !f.oneof) zero.push(`${name}: ${f.fieldKind === "enum" ? String(f.enum.values[0]?.number ?? 0) : zeroSource(scalar, longAsString)}`);
        cases.push(`case ${tag(f.number, wireOf(scalar))}: ${assign(f, readScalar(scalar, longAsString))} break;`);
        break;
      }
      case "message":
        cases.push(`case ${tag(f.number, Wire.Len)}: ${assign(f, messageRead(f, f.message))} break;`);
        break;
      case "list": {
        zero.push(`${name}: []`);
        if (f.listKind === "message") {
          cases.push(`case ${tag(f.number, Wire.Len)}: m[${name}].push(${messageRead(f, f.message)}); break;`);
          break;
        }
        const scalar = f.listKind === "enum" ? ScalarType.INT32 : f.scalar;
        const read = readScalar(scalar, f.listKind === "scalar" && f.longAsString);
        cases.push(`case ${tag(f.number, wireOf(scalar))}: m[${name}].push(${read}); break;`);
        // Numeric lists are read packed or not, whichever the writer chose.
        if (wireOf(scalar) !== Wire.Len) {
          cases.push(`case ${tag(f.number, Wire.Len)}: { const o = r.enter(); const l = m[${name}]; while (r.pos < r.end) l.push(${read}); r.leave(o); break; }`);
        }
        break;
      }
      case "map": {
        zero.push(`${name}: {}`);
        let value: string;
        let valueZero: string;
        if (f.mapKind === "message") {
          value = messageRead(f, f.message);
          valueZero = isStructJson(f, f.message) ? "{}" : `${nested.slot(f.message)}(new R(Buffer.alloc(0), 0))`;
        } else {
          const scalar = f.mapKind === "enum" ? ScalarType.INT32 : f.scalar;
          value = readScalar(scalar, false);
          valueZero = f.mapKind === "enum" ? String(f.enum.values[0]?.number ?? 0) : zeroSource(scalar, false);
        }
        const keyTag = tag(1, wireOf(f.mapKey));
        cases.push(
          `case ${tag(f.number, Wire.Len)}: { const o = r.enter(); let k, x; while (r.pos < r.end) { const t = r.uvarint(); if (t === ${keyTag}) k = ${readScalar(f.mapKey, false)}; else if (t === ${tag(2, f.mapKind === "message" ? Wire.Len : wireOf(f.mapKind === "enum" ? ScalarType.INT32 : f.scalar))}) x = ${value}; else r.skip(t & 7); } r.leave(o); m[${name}][k === undefined ? String(${zeroSource(f.mapKey, false)}) : String(k)] = x === undefined ? ${valueZero} : x; break; }`,
        );
        break;
      }
    }
  }
  const source = `return function decode(r) {
const m = { ${zero.join(", ")} };
while (r.pos < r.end) {
const t = r.uvarint();
switch (t) {
${cases.join("\n")}
default: r.skip(t & 7);
}
}
return m;
};`;
  const make = new Function("N", "SJ", "R", source) as (n: Decode[], sj: typeof readStructJson, r: typeof Reader) => Decode;
  return make(nested.fns, readStructJson, Reader);
}

const codecs = new WeakMap<DescMessage, WireCodec<DescMessage>>();
const writer = new Writer();

/** The compiled codec for messages of `schema` (compiled once, then cached). */
export function wireCodec<Desc extends DescMessage>(schema: Desc): WireCodec<Desc> {
  let codec = codecs.get(schema);
  if (!codec) {
    const encode = encoderFor(schema);
    const decode = decoderFor(schema);
    codec = {
      encode(message) {
        writer.pos = 0;
        encode(writer, message as Obj);
        return writer.take();
      },
      decode(bytes) {
        const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        return decode(new Reader(buf, buf.length)) as MessageShape<DescMessage>;
      },
    };
    codecs.set(schema, codec);
  }
  return codec as WireCodec<Desc>;
}
