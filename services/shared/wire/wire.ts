/** Wire types of the protobuf binary format. */
export const enum Wire {
  Varint = 0,
  Bit64 = 1,
  Len = 2,
  Bit32 = 5,
}

export type Obj = Record<string, unknown>;

/** How deep messages may nest when read (as protobuf-es's default recursion limit). */
export const MAX_DEPTH = 100;
