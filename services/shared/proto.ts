import { timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";

export const ts = (d: Date): Timestamp => timestampFromDate(d);
export const tsOrUndef = (d: Date | null | undefined): Timestamp | undefined => (d ? timestampFromDate(d) : undefined);
export const orUndef = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/**
 * A Timestamp from UTC ISO 8601 text as SQL renders it (millisecond precision), written as a
 * literal: it is called three times per row of a transaction page, where create() costs more.
 */
export function tsFromIso(iso: string): Timestamp {
  const ms = Date.parse(iso);
  const seconds = Math.floor(ms / 1000);
  return { $typeName: "google.protobuf.Timestamp", seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}
