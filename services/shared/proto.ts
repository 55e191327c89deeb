import { timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";

export const ts = (d: Date): Timestamp => timestampFromDate(d);
export const tsOrUndef = (d: Date | null | undefined): Timestamp | undefined => (d ? timestampFromDate(d) : undefined);
export const orUndef = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
