import { MAX_DEPTH, Wire, type Obj } from "./wire.js";

/** Reads protobuf wire format from a buffer, within `end` (the enclosing message's bounds). */
export class Reader {
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

  message(decode: (r: Reader) => Obj): Obj {
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
