import type { ZodRawShape } from "zod";
import type { CallOptions, CoreClients } from "../shared/core-client.js";

/** One MCP tool as data: metadata, zod shapes, and a handler that calls the core. */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** Reads work with a read_only key; the core enforces it either way. */
  readOnly: boolean;
  inputSchema: ZodRawShape;
  outputSchema: ZodRawShape;
  handler: (core: CoreClients, opts: CallOptions, args: any) => Promise<Record<string, unknown>>;
}

export const defineTool = (t: ToolDef) => t;
