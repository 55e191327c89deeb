import { ScalarType, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";

/**
 * A protobuf binary codec compiled once per message type from its protobuf-es
 * descriptor: the per-field decisions (wire type, tag bytes, presence rule,
 * zero value) are made when the codec is built, not on every field visit as
 * protobuf-es's reflective toBinary/fromBinary do, and a message is written
 * into one growing buffer instead of one chunk list per nested message.
 * Encoding and decoding a page of 100 transactions is roughly ten times
 * cheaper (see bench/transactions/README.md).
 *
 * It reads and writes the same shapes protobuf-es does (proto3 implicit and
 * explicit presence, oneofs as {case, value}, int64 as bigint or string,
 * google.protobuf.Struct fields as plain JSON objects), and its bytes are the
 * canonical encoding (test/unit/wire-codec.test.ts checks both against
 * protobuf-es for every message of the contract). Unknown fields are skipped.
 * Not supported, and refused when a codec is built: proto2 groups and the
 * wrapper types' unwrapped form (the contract uses neither).
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

// ---------------------------------------------------------------- writing

class Writer {
  buf = Buffer.allocUnsafe(16 * 1024);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  raw(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    // Tags are one or two bytes: a loop beats a native set() call for those.
    if (n <= 16) for (let i = 0; i < n; i++) this.buf[this.pos++] = bytes[i];
    else {
      this.buf.set(bytes, this.pos);
      this.pos += n;
    }
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

  /** A 64-bit two's complement varint (int32 and enums are sign-extended to 64 bits on the wire). */
  varint64(n: bigint): void {
    let v = BigInt.asUintN(64, n);
    this.ensure(10);
    while (v > 0x7fn) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  int32(n: number): void {
    if (n >= 0) this.uvarint(n);
    else this.varint64(BigInt(n));
  }

  string(s: string): void {
    // Up to 42 UTF-16 units never take more than 127 UTF-8 bytes: one length byte, no measuring pass.
    if (s.length <= 42) {
      this.ensure(1 + s.length * 3);
      const n = this.buf.write(s, this.pos + 1, "utf8");
      this.buf[this.pos] = n;
      this.pos += 1 + n;
      return;
    }
    const n = Buffer.byteLength(s, "utf8");
    this.uvarint(n);
    this.ensure(n);
    this.pos += this.buf.write(s, this.pos, "utf8");
  }

  /** Writes a length-delimited body with `body`, then its length in front, moving the body if the length needs more than one byte. */
  delimited(body: () => void): void {
    this.ensure(1);
    const start = this.pos++;
    body();
    const len = this.pos - start - 1;
    const extra = varintSize(len) - 1;
    if (extra > 0) {
      this.ensure(extra);
      this.buf.copyWithin(start + 1 + extra, start + 1, this.pos);
      this.pos += extra;
    }
    const end = this.pos;
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

function varintSize(n: number): number {
  let size = 1;
  while (n > 0x7f) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function tagBytes(no: number, wire: Wire): Buffer {
  const w = new Writer();
  w.uvarint(no * 8 + wire);
  return Buffer.from(w.take());
}

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

type WriteValue = (w: Writer, v: unknown) => void;

/** How to write one scalar value of `scalar` (without its tag). */
function scalarWriter(scalar: ScalarType): WriteValue {
  switch (scalar) {
    case ScalarType.STRING:
      return (w, v) => w.string(v as string);
    case ScalarType.BYTES:
      return (w, v) => {
        w.uvarint((v as Uint8Array).length);
        w.raw(v as Uint8Array);
      };
    case ScalarType.BOOL:
      return (w, v) => w.uvarint(v ? 1 : 0);
    case ScalarType.INT32:
      return (w, v) => w.int32(v as number);
    case ScalarType.UINT32:
      return (w, v) => w.uvarint((v as number) >>> 0);
    case ScalarType.SINT32:
      return (w, v) => w.uvarint((((v as number) << 1) ^ ((v as number) >> 31)) >>> 0);
    case ScalarType.INT64:
    case ScalarType.UINT64:
      return (w, v) => w.varint64(BigInt(v as bigint | string));
    case ScalarType.SINT64:
      return (w, v) => {
        const n = BigInt(v as bigint | string);
        w.varint64((n << 1n) ^ (n >> 63n));
      };
    case ScalarType.DOUBLE:
      return (w, v) => {
        w.ensure(8);
        w.pos = w.buf.writeDoubleLE(v as number, w.pos);
      };
    case ScalarType.FLOAT:
      return (w, v) => {
        w.ensure(4);
        w.pos = w.buf.writeFloatLE(v as number, w.pos);
      };
    case ScalarType.FIXED32:
      return (w, v) => {
        w.ensure(4);
        w.pos = w.buf.writeUInt32LE((v as number) >>> 0, w.pos);
      };
    case ScalarType.SFIXED32:
      return (w, v) => {
        w.ensure(4);
        w.pos = w.buf.writeInt32LE(v as number, w.pos);
      };
    case ScalarType.FIXED64:
      return (w, v) => {
        w.ensure(8);
        w.pos = w.buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v as bigint | string)), w.pos);
      };
    case ScalarType.SFIXED64:
      return (w, v) => {
        w.ensure(8);
        w.pos = w.buf.writeBigInt64LE(BigInt.asIntN(64, BigInt(v as bigint | string)), w.pos);
      };
  }
}

/** proto3's implicit presence: a zero value is not written. */
function isZero(scalar: ScalarType, v: unknown): boolean {
  if (scalar === ScalarType.BYTES) return (v as Uint8Array).length === 0;
  if (scalar === ScalarType.STRING) return v === "";
  if (scalar === ScalarType.BOOL) return v === false;
  if (INT64.has(scalar)) return BigInt(v as bigint | string) === 0n;
  return v === 0;
}

interface FieldPlan {
  localName: string;
  /** The oneof this field is a case of, by local name. */
  oneof: string | undefined;
  write(w: Writer, v: unknown): void;
  /** Whether `v` is written at all (presence). */
  isSet(v: unknown): boolean;
}

const encoders = new WeakMap<DescMessage, (w: Writer, m: Obj) => void>();

/** Writes the body of a message of `desc` (no tag or length). */
function encoderFor(desc: DescMessage): (w: Writer, m: Obj) => void {
  let enc = encoders.get(desc);
  if (enc) return enc;
  let plans: FieldPlan[] | undefined;
  enc = (w, m) => {
    plans ??= [...desc.fields].sort((a, b) => a.number - b.number).map(fieldWriter);
    for (const p of plans) {
      let v: unknown;
      if (p.oneof === undefined) v = m[p.localName];
      else {
        const sel = m[p.oneof] as { case?: string; value?: unknown } | undefined;
        if (sel?.case !== p.localName) continue;
        v = sel.value;
      }
      if (v !== undefined && p.isSet(v)) p.write(w, v);
    }
  };
  encoders.set(desc, enc);
  return enc;
}

/** A message value in a field, in the form protobuf-es holds it there. */
function messageValueWriter(field: DescField, message: DescMessage): WriteValue {
  if (message.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value") {
    return (w, v) => w.delimited(() => writeStructJson(w, v as Obj));
  }
  if (message.typeName.startsWith("google.protobuf.") && message.typeName.endsWith("Value") && message.fields.length === 1 && message.fields[0].name === "value") {
    throw new Error(`wire-codec: ${field.parent.typeName}.${field.name} uses a wrapper type, which is not supported`);
  }
  const body = encoderFor(message);
  return (w, v) => w.delimited(() => body(w, v as Obj));
}

function fieldWriter(field: DescField): FieldPlan {
  const base = { localName: field.localName, oneof: field.oneof?.localName };
  if (field.fieldKind === "message" && field.delimitedEncoding) {
    throw new Error(`wire-codec: ${field.parent.typeName}.${field.name} uses group encoding, which is not supported`);
  }
  const explicit = field.presence !== 2; // FeatureSet.FieldPresence.IMPLICIT
  switch (field.fieldKind) {
    case "scalar":
    case "enum": {
      const scalar = field.fieldKind === "enum" ? ScalarType.INT32 : field.scalar;
      const tag = tagBytes(field.number, wireOf(scalar));
      const value = scalarWriter(scalar);
      return {
        ...base,
        isSet: explicit || field.oneof ? () => true : (v) => !isZero(scalar, v),
        write: (w, v) => {
          w.raw(tag);
          value(w, v);
        },
      };
    }
    case "message": {
      const tag = tagBytes(field.number, Wire.Len);
      const value = messageValueWriter(field, field.message);
      return {
        ...base,
        isSet: () => true,
        write: (w, v) => {
          w.raw(tag);
          value(w, v);
        },
      };
    }
    case "list": {
      if (field.listKind === "message") {
        if (field.delimitedEncoding) throw new Error(`wire-codec: ${field.parent.typeName}.${field.name} uses group encoding, which is not supported`);
        const tag = tagBytes(field.number, Wire.Len);
        const value = messageValueWriter(field, field.message);
        return {
          ...base,
          isSet: (v) => (v as unknown[]).length > 0,
          write: (w, v) => {
            for (const item of v as unknown[]) {
              w.raw(tag);
              value(w, item);
            }
          },
        };
      }
      const scalar = field.listKind === "enum" ? ScalarType.INT32 : field.scalar;
      const value = scalarWriter(scalar);
      if (field.packed) {
        const tag = tagBytes(field.number, Wire.Len);
        return {
          ...base,
          isSet: (v) => (v as unknown[]).length > 0,
          write: (w, v) => {
            w.raw(tag);
            w.delimited(() => {
              for (const item of v as unknown[]) value(w, item);
            });
          },
        };
      }
      const tag = tagBytes(field.number, wireOf(scalar));
      return {
        ...base,
        isSet: (v) => (v as unknown[]).length > 0,
        write: (w, v) => {
          for (const item of v as unknown[]) {
            w.raw(tag);
            value(w, item);
          }
        },
      };
    }
    case "map": {
      const tag = tagBytes(field.number, Wire.Len);
      const keyTag = tagBytes(1, wireOf(field.mapKey));
      const keyWriter = scalarWriter(field.mapKey);
      const keyOf = mapKeyFromProperty(field.mapKey);
      let valueTag: Buffer;
      let valueWriter: WriteValue;
      if (field.mapKind === "message") {
        valueTag = tagBytes(2, Wire.Len);
        valueWriter = messageValueWriter(field, field.message);
      } else {
        const scalar = field.mapKind === "enum" ? ScalarType.INT32 : field.scalar;
        valueTag = tagBytes(2, wireOf(scalar));
        valueWriter = scalarWriter(scalar);
      }
      return {
        ...base,
        isSet: (v) => Object.keys(v as Obj).length > 0,
        write: (w, v) => {
          for (const [k, item] of Object.entries(v as Obj)) {
            w.raw(tag);
            w.delimited(() => {
              w.raw(keyTag);
              keyWriter(w, keyOf(k));
              w.raw(valueTag);
              valueWriter(w, item);
            });
          }
        },
      };
    }
  }
}

/** Map keys are object property names (strings); the wire wants the key's own type. */
function mapKeyFromProperty(key: ScalarType): (k: string) => unknown {
  if (key === ScalarType.STRING) return (k) => k;
  if (key === ScalarType.BOOL) return (k) => k === "true";
  if (INT64.has(key)) return (k) => BigInt(k);
  return (k) => Number(k);
}

// google.protobuf.Struct { map<string, Value> fields = 1 }, Value { oneof kind: null_value = 1,
// number_value = 2, string_value = 3, bool_value = 4, struct_value = 5, list_value = 6 },
// ListValue { repeated Value values = 1 }: written straight from the JSON protobuf-es holds.
const STRUCT_ENTRY = tagBytes(1, Wire.Len);
const ENTRY_KEY = tagBytes(1, Wire.Len);
const ENTRY_VALUE = tagBytes(2, Wire.Len);
const VALUE_NULL = tagBytes(1, Wire.Varint);
const VALUE_NUMBER = tagBytes(2, Wire.Bit64);
const VALUE_STRING = tagBytes(3, Wire.Len);
const VALUE_BOOL = tagBytes(4, Wire.Varint);
const VALUE_STRUCT = tagBytes(5, Wire.Len);
const VALUE_LIST = tagBytes(6, Wire.Len);
const LIST_ITEM = tagBytes(1, Wire.Len);

function writeStructJson(w: Writer, json: Obj): void {
  for (const [k, v] of Object.entries(json)) {
    w.raw(STRUCT_ENTRY);
    w.delimited(() => {
      w.raw(ENTRY_KEY);
      w.string(k);
      w.raw(ENTRY_VALUE);
      w.delimited(() => writeValueJson(w, v));
    });
  }
}

function writeValueJson(w: Writer, v: unknown): void {
  switch (typeof v) {
    case "number":
      w.raw(VALUE_NUMBER);
      w.ensure(8);
      w.pos = w.buf.writeDoubleLE(v, w.pos);
      return;
    case "string":
      w.raw(VALUE_STRING);
      w.string(v);
      return;
    case "boolean":
      w.raw(VALUE_BOOL);
      w.uvarint(v ? 1 : 0);
      return;
    case "object":
      if (v === null) {
        w.raw(VALUE_NULL);
        w.uvarint(0);
      } else if (Array.isArray(v)) {
        w.raw(VALUE_LIST);
        w.delimited(() => {
          for (const item of v) {
            w.raw(LIST_ITEM);
            w.delimited(() => writeValueJson(w, item));
          }
        });
      } else {
        w.raw(VALUE_STRUCT);
        w.delimited(() => writeStructJson(w, v as Obj));
      }
      return;
    default:
      // undefined and the like: protobuf-es writes a Value with no kind set.
      return;
  }
}

// ---------------------------------------------------------------- reading

class Reader {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    public end: number,
  ) {}

  /** A varint's low 32 bits, unsigned (int32 and enums read it `| 0`; longer varints are consumed whole). */
  uvarint(): number {
    let b = this.byte();
    let v = b & 0x7f;
    if (b < 0x80) return v;
    b = this.byte();
    v |= (b & 0x7f) << 7;
    if (b < 0x80) return v;
    b = this.byte();
    v |= (b & 0x7f) << 14;
    if (b < 0x80) return v;
    b = this.byte();
    v |= (b & 0x7f) << 21;
    if (b < 0x80) return v >>> 0;
    b = this.byte();
    v |= (b & 0x0f) << 28;
    for (let i = 5; b >= 0x80; i++) {
      if (i === 10) throw new Error("wire-codec: varint longer than 10 bytes");
      b = this.byte();
    }
    return v >>> 0;
  }

  varint64(): bigint {
    let v = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, v);
      shift += 7n;
    }
    throw new Error("wire-codec: varint longer than 10 bytes");
  }

  byte(): number {
    if (this.pos >= this.end) throw new Error("wire-codec: premature end of data");
    return this.buf[this.pos++];
  }

  take(n: number): number {
    const start = this.pos;
    if (n < 0 || start + n > this.end) throw new Error("wire-codec: premature end of data");
    this.pos += n;
    return start;
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

  skip(wire: number): void {
    switch (wire) {
      case Wire.Varint:
        while (this.byte() >= 0x80);
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
        throw new Error(`wire-codec: unsupported wire type ${wire}`);
    }
  }

  /** Runs `fn` over the next length-delimited part only. */
  sub<T>(fn: () => T): T {
    const len = this.uvarint();
    const start = this.take(len);
    const outer = this.end;
    this.pos = start;
    this.end = start + len;
    const out = fn();
    if (this.pos !== this.end) throw new Error("wire-codec: malformed nested message");
    this.end = outer;
    return out;
  }
}

type ReadValue = (r: Reader) => unknown;

function scalarReader(scalar: ScalarType, longAsString: boolean): ReadValue {
  const long = (n: bigint) => (longAsString ? n.toString() : n);
  switch (scalar) {
    case ScalarType.STRING:
      return (r) => r.string();
    case ScalarType.BYTES:
      return (r) => {
        const len = r.uvarint();
        const start = r.take(len);
        return new Uint8Array(r.buf.subarray(start, start + len));
      };
    case ScalarType.BOOL:
      return (r) => r.uvarint() !== 0;
    case ScalarType.INT32:
      return (r) => r.uvarint() | 0;
    case ScalarType.UINT32:
      return (r) => r.uvarint() >>> 0;
    case ScalarType.SINT32:
      return (r) => {
        const n = r.uvarint() >>> 0;
        return (n >>> 1) ^ -(n & 1);
      };
    case ScalarType.INT64:
      return (r) => long(BigInt.asIntN(64, r.varint64()));
    case ScalarType.UINT64:
      return (r) => long(r.varint64());
    case ScalarType.SINT64:
      return (r) => {
        const n = r.varint64();
        return long((n >> 1n) ^ -(n & 1n));
      };
    case ScalarType.DOUBLE:
      return (r) => r.buf.readDoubleLE(r.take(8));
    case ScalarType.FLOAT:
      return (r) => r.buf.readFloatLE(r.take(4));
    case ScalarType.FIXED32:
      return (r) => r.buf.readUInt32LE(r.take(4));
    case ScalarType.SFIXED32:
      return (r) => r.buf.readInt32LE(r.take(4));
    case ScalarType.FIXED64:
      return (r) => long(r.buf.readBigUInt64LE(r.take(8)));
    case ScalarType.SFIXED64:
      return (r) => long(r.buf.readBigInt64LE(r.take(8)));
  }
}

function scalarZero(scalar: ScalarType, longAsString: boolean): () => unknown {
  if (scalar === ScalarType.STRING) return () => "";
  if (scalar === ScalarType.BOOL) return () => false;
  if (scalar === ScalarType.BYTES) return () => new Uint8Array(0);
  if (INT64.has(scalar)) return longAsString ? () => "0" : () => 0n;
  return () => 0;
}

interface ReadPlan {
  localName: string;
  oneof: string | undefined;
  wire: number;
  read(r: Reader, m: Obj): void;
}

interface Decoder {
  /** A message with every field at its default, as protobuf-es's create() makes it. */
  zero(): Obj;
  byNumber: (ReadPlan | undefined)[];
  fallback: Map<number, ReadPlan>;
}

const decoders = new WeakMap<DescMessage, Decoder>();
const MAX_DEPTH = 100;
let depth = 0;

function decoderFor(desc: DescMessage): Decoder {
  let dec = decoders.get(desc);
  if (dec) return dec;
  const byNumber: (ReadPlan | undefined)[] = [];
  const fallback = new Map<number, ReadPlan>();
  let zeroes: Map<string, () => unknown> | undefined;
  const built = {
    zero(): Obj {
      zeroes ??= new Map(desc.fields.flatMap((f) => zeroOf(f)));
      const m: Obj = { $typeName: desc.typeName };
      for (const [k, z] of zeroes) m[k] = z();
      return m;
    },
    byNumber,
    fallback,
  };
  decoders.set(desc, built);
  for (const f of desc.fields) {
    for (const plan of fieldReaders(f)) {
      if (f.number < 256 && plan.wire === wireOfField(f)) byNumber[f.number] = plan;
      else fallback.set(f.number * 8 + plan.wire, plan);
    }
  }
  return built;
}

/** The wire type a field is normally written with (its fast path when reading). */
function wireOfField(f: DescField): number {
  if (f.fieldKind === "scalar") return wireOf(f.scalar);
  if (f.fieldKind === "enum") return Wire.Varint;
  if (f.fieldKind === "list" && f.listKind !== "message") return f.packed ? Wire.Len : wireOf(f.listKind === "enum" ? ScalarType.INT32 : f.scalar);
  return Wire.Len;
}

function zeroOf(f: DescField): [string, () => unknown][] {
  if (f.oneof) return [[f.oneof.localName, () => ({ case: undefined })]];
  switch (f.fieldKind) {
    case "scalar":
      return f.presence === 2 ? [[f.localName, scalarZero(f.scalar, f.longAsString)]] : [];
    case "enum":
      return f.presence === 2 ? [[f.localName, () => f.enum.values[0]?.number ?? 0]] : [];
    case "message":
      return [];
    case "list":
      return [[f.localName, () => []]];
    case "map":
      return [[f.localName, () => ({})]];
  }
}

function messageValueReader(field: DescField, message: DescMessage): ReadValue {
  if (message.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value") {
    return (r) => r.sub(() => readStructJson(r));
  }
  return (r) => r.sub(() => readBody(message, r));
}

function setter(f: DescField, read: ReadValue): (r: Reader, m: Obj) => void {
  if (f.oneof) {
    const oneof = f.oneof.localName;
    const name = f.localName;
    return (r, m) => {
      m[oneof] = { case: name, value: read(r) };
    };
  }
  const name = f.localName;
  return (r, m) => {
    m[name] = read(r);
  };
}

function fieldReaders(f: DescField): ReadPlan[] {
  const base = { localName: f.localName, oneof: f.oneof?.localName };
  switch (f.fieldKind) {
    case "scalar":
    case "enum": {
      const scalar = f.fieldKind === "enum" ? ScalarType.INT32 : f.scalar;
      return [{ ...base, wire: wireOf(scalar), read: setter(f, scalarReader(scalar, f.fieldKind === "scalar" && f.longAsString)) }];
    }
    case "message":
      return [{ ...base, wire: Wire.Len, read: setter(f, messageValueReader(f, f.message)) }];
    case "list": {
      const name = f.localName;
      if (f.listKind === "message") {
        const item = messageValueReader(f, f.message);
        return [{ ...base, wire: Wire.Len, read: (r, m) => void (m[name] as unknown[]).push(item(r)) }];
      }
      const scalar = f.listKind === "enum" ? ScalarType.INT32 : f.scalar;
      const item = scalarReader(scalar, f.listKind === "scalar" && f.longAsString);
      const one: ReadPlan = { ...base, wire: wireOf(scalar), read: (r, m) => void (m[name] as unknown[]).push(item(r)) };
      if (wireOf(scalar) === Wire.Len) return [one];
      // Numeric lists are accepted packed or not, whichever the writer chose.
      const packed: ReadPlan = {
        ...base,
        wire: Wire.Len,
        read: (r, m) =>
          r.sub(() => {
            const list = m[name] as unknown[];
            while (r.pos < r.end) list.push(item(r));
          }),
      };
      return [one, packed];
    }
    case "map": {
      const name = f.localName;
      const key = scalarReader(f.mapKey, false);
      const keyZero = scalarZero(f.mapKey, false);
      let value: ReadValue;
      let valueZero: () => unknown;
      if (f.mapKind === "message") {
        value = messageValueReader(f, f.message);
        const message = f.message;
        valueZero = () => decoderFor(message).zero();
      } else {
        const scalar = f.mapKind === "enum" ? ScalarType.INT32 : f.scalar;
        value = scalarReader(scalar, false);
        valueZero = f.mapKind === "enum" ? () => f.enum.values[0]?.number ?? 0 : scalarZero(scalar, false);
      }
      return [
        {
          ...base,
          wire: Wire.Len,
          read: (r, m) =>
            r.sub(() => {
              let k: unknown;
              let v: unknown;
              while (r.pos < r.end) {
                const tag = r.uvarint();
                if (tag === 1 * 8 + wireOf(f.mapKey)) k = key(r);
                else if (tag >>> 3 === 2) v = value(r);
                else r.skip(tag & 7);
              }
              (m[name] as Obj)[String(k ?? keyZero())] = v ?? valueZero();
            }),
        },
      ];
    }
  }
}

function readBody(desc: DescMessage, r: Reader): Obj {
  if (++depth > MAX_DEPTH) {
    depth = 0;
    throw new Error(`wire-codec: ${desc.typeName} nested deeper than ${MAX_DEPTH}`);
  }
  const dec = decoderFor(desc);
  const m = dec.zero();
  while (r.pos < r.end) {
    const tag = r.uvarint();
    const no = tag >>> 3;
    const wire = tag & 7;
    const plan = dec.byNumber[no];
    if (plan !== undefined && plan.wire === wire) plan.read(r, m);
    else {
      const other = dec.fallback.get(tag);
      if (other) other.read(r, m);
      else r.skip(wire);
    }
  }
  depth--;
  return m;
}

function readStructJson(r: Reader): Obj {
  const json: Obj = {};
  while (r.pos < r.end) {
    const tag = r.uvarint();
    if (tag !== 1 * 8 + Wire.Len) {
      r.skip(tag & 7);
      continue;
    }
    r.sub(() => {
      let k = "";
      let v: unknown = null;
      while (r.pos < r.end) {
        const t = r.uvarint();
        if (t === 1 * 8 + Wire.Len) k = r.string();
        else if (t === 2 * 8 + Wire.Len) v = r.sub(() => readValueJson(r));
        else r.skip(t & 7);
      }
      json[k] = v;
    });
  }
  return json;
}

function readValueJson(r: Reader): unknown {
  let v: unknown = null;
  while (r.pos < r.end) {
    const tag = r.uvarint();
    switch (tag) {
      case 1 * 8 + Wire.Varint:
        r.uvarint();
        v = null;
        break;
      case 2 * 8 + Wire.Bit64:
        v = r.buf.readDoubleLE(r.take(8));
        break;
      case 3 * 8 + Wire.Len:
        v = r.string();
        break;
      case 4 * 8 + Wire.Varint:
        v = r.uvarint() !== 0;
        break;
      case 5 * 8 + Wire.Len:
        v = r.sub(() => readStructJson(r));
        break;
      case 6 * 8 + Wire.Len:
        v = r.sub(() => {
          const list: unknown[] = [];
          while (r.pos < r.end) {
            const t = r.uvarint();
            if (t === 1 * 8 + Wire.Len) list.push(r.sub(() => readValueJson(r)));
            else r.skip(t & 7);
          }
          return list;
        });
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return v;
}

// ---------------------------------------------------------------- public

const codecs = new WeakMap<DescMessage, WireCodec<DescMessage>>();
const writer = new Writer();

/** The compiled codec for messages of `schema` (built once, then cached). */
export function wireCodec<Desc extends DescMessage>(schema: Desc): WireCodec<Desc> {
  let codec = codecs.get(schema);
  if (!codec) {
    const body = encoderFor(schema);
    // Build every plan now, so an unsupported field fails here rather than on first use.
    body(new Writer(), {});
    decoderFor(schema).zero();
    codec = {
      encode(message) {
        writer.pos = 0;
        body(writer, message as Obj);
        return writer.take();
      },
      decode(bytes) {
        const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        depth = 0;
        return readBody(schema, new Reader(buf, buf.length)) as MessageShape<DescMessage>;
      },
    };
    codecs.set(schema, codec);
  }
  return codec as WireCodec<Desc>;
}
