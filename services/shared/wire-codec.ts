import { ScalarType, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";

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

const enum Wire {
  Varint = 0,
  Bit64 = 1,
  Len = 2,
  Bit32 = 5,
}

type Obj = Record<string, unknown>;
type Encode = (w: Writer, m: Obj) => void;
type Decode = (r: Reader) => Obj;

const MAX_DEPTH = 100;

// ---------------------------------------------------------------- writing

class Writer {
  buf = Buffer.allocUnsafe(16 * 1024);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
      this.buf.copy(next, 0, 0, this.pos);
      this.buf = next;
    }
  }

  tag1(a: number): void {
    this.ensure(1);
    this.buf[this.pos++] = a;
  }

  tag2(a: number, b: number): void {
    this.ensure(2);
    this.buf[this.pos++] = a;
    this.buf[this.pos++] = b;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** An unsigned varint below 2^53. */
  uvarint(n: number): void {
    this.ensure(10);
    while (n > 0x7f) {
      this.buf[this.pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  /** A 64-bit two's complement varint. */
  varint64(n: bigint): void {
    let v = BigInt.asUintN(64, n);
    this.ensure(10);
    while (v > 0x7fn) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  bool(v: boolean): void {
    this.tag1(v ? 1 : 0);
  }

  /** int32 and enums: negative values are sign-extended to 64 bits on the wire. */
  int32(n: number): void {
    if (n >= 0) this.uvarint(n);
    else this.varint64(BigInt(n));
  }

  uint32(n: number): void {
    this.uvarint(n >>> 0);
  }

  sint32(n: number): void {
    this.uvarint(((n << 1) ^ (n >> 31)) >>> 0);
  }

  /** int64 and uint64, as bigint or decimal string; the common small non-negative case without BigInt arithmetic. */
  int64(v: bigint | string): void {
    const n = Number(v);
    if (n >= 0 && Number.isSafeInteger(n)) this.uvarint(n);
    else this.varint64(BigInt(v));
  }

  sint64(v: bigint | string): void {
    const n = BigInt(v);
    this.varint64((n << 1n) ^ (n >> 63n));
  }

  double(v: number): void {
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(v, this.pos);
  }

  float(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeFloatLE(v, this.pos);
  }

  fixed32(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeUInt32LE(v >>> 0, this.pos);
  }

  sfixed32(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeInt32LE(v, this.pos);
  }

  fixed64(v: bigint | string): void {
    this.ensure(8);
    this.pos = this.buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v)), this.pos);
  }

  sfixed64(v: bigint | string): void {
    this.ensure(8);
    this.pos = this.buf.writeBigInt64LE(BigInt.asIntN(64, BigInt(v)), this.pos);
  }

  string(s: string): void {
    // Up to 42 UTF-16 units never take more than 127 UTF-8 bytes: one length byte, no measuring pass.
    const len = s.length;
    if (len <= 42) {
      this.ensure(1 + len * 3);
      const buf = this.buf;
      const start = this.pos + 1;
      // ASCII (most of a transaction's strings) is copied here: cheaper than a native call per string.
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
      const n = i === len ? len : buf.write(s, start, "utf8");
      buf[this.pos] = n;
      this.pos = start + n;
      return;
    }
    const n = Buffer.byteLength(s, "utf8");
    this.uvarint(n);
    this.ensure(n);
    this.pos += this.buf.write(s, this.pos, "utf8");
  }

  bytes(b: Uint8Array): void {
    this.uvarint(b.length);
    this.raw(b);
  }

  /** Reserves one byte for the length of what follows; `end` writes it. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Writes the length of what was written since `begin`, moving it along if the length needs more than one byte. */
  end(start: number): void {
    const len = this.pos - start - 1;
    if (len < 0x80) {
      this.buf[start] = len;
      return;
    }
    let size = 1;
    for (let n = len; n > 0x7f; n = Math.floor(n / 128)) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    const end = this.pos + size - 1;
    this.pos = start;
    this.uvarint(len);
    this.pos = end;
  }

  take(): Uint8Array {
    const out = new Uint8Array(this.pos);
    out.set(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }
}

// ---------------------------------------------------------------- reading

class Reader {
  pos = 0;
  depth = 0;
  constructor(
    readonly buf: Buffer,
    public end: number,
  ) {}

  fail(what: string): never {
    throw new Error(`wire-codec: ${what}`);
  }

  /** A varint's low 32 bits, unsigned (int32 and enums read it `| 0`); longer varints are consumed whole. */
  uvarint(): number {
    const buf = this.buf;
    if (this.pos >= this.end) this.fail("premature end of data");
    let b = buf[this.pos++];
    if (b < 0x80) return b;
    let v = b & 0x7f;
    for (let shift = 7; shift < 28; shift += 7) {
      if (this.pos >= this.end) this.fail("premature end of data");
      b = buf[this.pos++];
      v |= (b & 0x7f) << shift;
      if (b < 0x80) return v >>> 0;
    }
    if (this.pos >= this.end) this.fail("premature end of data");
    b = buf[this.pos++];
    v |= (b & 0x0f) << 28;
    for (let i = 5; b >= 0x80; i++) {
      if (i === 10) this.fail("varint longer than 10 bytes");
      if (this.pos >= this.end) this.fail("premature end of data");
      b = buf[this.pos++];
    }
    return v >>> 0;
  }

  /** A varint as an unsigned 64-bit bigint. */
  varint64(): bigint {
    const start = this.pos;
    // Up to 7 bytes (49 bits) fit a double exactly: no BigInt arithmetic for the common case.
    let n = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      if (this.pos >= this.end) this.fail("premature end of data");
      const b = this.buf[this.pos++];
      n += (b & 0x7f) * mul;
      if (b < 0x80) return BigInt(n);
      mul *= 128;
    }
    this.pos = start;
    let v = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail("premature end of data");
      const b = this.buf[this.pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, v);
      shift += 7n;
    }
    return this.fail("varint longer than 10 bytes");
  }

  int64(): bigint {
    return BigInt.asIntN(64, this.varint64());
  }

  sint64(): bigint {
    const n = this.varint64();
    return (n >> 1n) ^ -(n & 1n);
  }

  sint32(): number {
    const n = this.uvarint();
    return (n >>> 1) ^ -(n & 1);
  }

  /** Start offset of the next `n` bytes, which are skipped. */
  take(n: number): number {
    const start = this.pos;
    if (start + n > this.end) this.fail("premature end of data");
    this.pos += n;
    return start;
  }

  double(): number {
    return this.buf.readDoubleLE(this.take(8));
  }

  float(): number {
    return this.buf.readFloatLE(this.take(4));
  }

  fixed32(): number {
    return this.buf.readUInt32LE(this.take(4));
  }

  sfixed32(): number {
    return this.buf.readInt32LE(this.take(4));
  }

  fixed64(): bigint {
    return this.buf.readBigUInt64LE(this.take(8));
  }

  sfixed64(): bigint {
    return this.buf.readBigInt64LE(this.take(8));
  }

  string(): string {
    const len = this.uvarint();
    const start = this.take(len);
    // Short ASCII strings (most of a transaction's) are cheaper to build here than through a native call.
    if (len <= 24) {
      let s = "";
      for (let i = start; i < start + len; i++) {
        const c = this.buf[i];
        if (c >= 0x80) return this.buf.toString("utf8", start, start + len);
        s += String.fromCharCode(c);
      }
      return s;
    }
    return this.buf.toString("utf8", start, start + len);
  }

  bytes(): Uint8Array {
    const len = this.uvarint();
    const start = this.take(len);
    return new Uint8Array(this.buf.subarray(start, start + len));
  }

  /** Enters the length-delimited part that follows; returns the end to restore with `leave`. */
  enter(): number {
    const len = this.uvarint();
    if (len > this.end - this.pos) this.fail("premature end of data");
    if (++this.depth > MAX_DEPTH) this.fail(`messages nested deeper than ${MAX_DEPTH}`);
    const outer = this.end;
    this.end = this.pos + len;
    return outer;
  }

  leave(outer: number): void {
    if (this.pos !== this.end) this.fail("malformed length-delimited field");
    this.depth--;
    this.end = outer;
  }

  message(decode: Decode): Obj {
    const outer = this.enter();
    const m = decode(this);
    this.leave(outer);
    return m;
  }

  skip(wire: number): void {
    switch (wire) {
      case Wire.Varint:
        this.uvarint();
        return;
      case Wire.Bit64:
        this.take(8);
        return;
      case Wire.Bit32:
        this.take(4);
        return;
      case Wire.Len:
        this.take(this.uvarint());
        return;
      default:
        this.fail(`unsupported wire type ${wire}`);
    }
  }
}

// ---------------------------------------------------------------- google.protobuf.Struct as JSON

// Struct { map<string, Value> fields = 1 }, Value { oneof kind: null_value = 1, number_value = 2,
// string_value = 3, bool_value = 4, struct_value = 5, list_value = 6 }, ListValue { repeated
// Value values = 1 }: written from and read into the plain JSON protobuf-es holds in a field.
function writeStructJson(w: Writer, json: Obj): void {
  for (const k of Object.keys(json)) {
    w.tag1(0x0a);
    const entry = w.begin();
    w.tag1(0x0a);
    w.string(k);
    w.tag1(0x12);
    const value = w.begin();
    writeValueJson(w, json[k]);
    w.end(value);
    w.end(entry);
  }
}

function writeValueJson(w: Writer, v: unknown): void {
  switch (typeof v) {
    case "number":
      w.tag1(0x11);
      w.double(v);
      return;
    case "string":
      w.tag1(0x1a);
      w.string(v);
      return;
    case "boolean":
      w.tag1(0x20);
      w.bool(v);
      return;
    case "object": {
      if (v === null) {
        w.tag2(0x08, 0);
        return;
      }
      const isList = Array.isArray(v);
      w.tag1(isList ? 0x32 : 0x2a);
      const start = w.begin();
      if (isList) {
        for (const item of v) {
          w.tag1(0x0a);
          const s = w.begin();
          writeValueJson(w, item);
          w.end(s);
        }
      } else writeStructJson(w, v as Obj);
      w.end(start);
      return;
    }
    default:
      // undefined and the like: protobuf-es writes a Value with no kind set.
      return;
  }
}

function readStructJson(r: Reader): Obj {
  const json: Obj = {};
  while (r.pos < r.end) {
    const tag = r.uvarint();
    if (tag !== 0x0a) {
      r.skip(tag & 7);
      continue;
    }
    const outer = r.enter();
    let k = "";
    let v: unknown = null;
    while (r.pos < r.end) {
      const t = r.uvarint();
      if (t === 0x0a) k = r.string();
      else if (t === 0x12) {
        const o = r.enter();
        v = readValueJson(r);
        r.leave(o);
      } else r.skip(t & 7);
    }
    r.leave(outer);
    json[k] = v;
  }
  return json;
}

function readValueJson(r: Reader): unknown {
  let v: unknown = null;
  while (r.pos < r.end) {
    const tag = r.uvarint();
    switch (tag) {
      case 0x08:
        r.uvarint();
        v = null;
        break;
      case 0x11:
        v = r.double();
        break;
      case 0x1a:
        v = r.string();
        break;
      case 0x20:
        v = r.uvarint() !== 0;
        break;
      case 0x2a:
        v = r.message(readStructJson);
        break;
      case 0x32: {
        const list: unknown[] = [];
        const outer = r.enter();
        while (r.pos < r.end) {
          const t = r.uvarint();
          if (t === 0x0a) {
            const o = r.enter();
            list.push(readValueJson(r));
            r.leave(o);
          } else r.skip(t & 7);
        }
        r.leave(outer);
        v = list;
        break;
      }
      default:
        r.skip(tag & 7);
    }
  }
  return v;
}

// ---------------------------------------------------------------- compiling

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

// ---------------------------------------------------------------- public

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
