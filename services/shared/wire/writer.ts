/**
 * Writes protobuf wire format into one growing buffer. Nested messages
 * reserve a length byte (`begin`) and fix it up when done (`end`), instead of
 * being written apart and copied in.
 */
export class Writer {
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
