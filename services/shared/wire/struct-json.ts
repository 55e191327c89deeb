import type { Reader } from "./reader.js";
import type { Writer } from "./writer.js";
import type { Obj } from "./wire.js";

// Struct { map<string, Value> fields = 1 }, Value { oneof kind: null_value = 1, number_value = 2,
// string_value = 3, bool_value = 4, struct_value = 5, list_value = 6 }, ListValue { repeated
// Value values = 1 }: written from and read into the plain JSON protobuf-es holds in a field.
export function writeStructJson(w: Writer, json: Obj): void {
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

export function readStructJson(r: Reader): Obj {
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
