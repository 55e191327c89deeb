import { z } from "zod";
import type { CallOptions, CoreClients } from "../shared/core-client.js";

/** A tool's arguments as its handler gets them: parsed by zod (unknown arguments dropped, defaults applied). */
export type ToolArgs<I extends z.ZodRawShape> = z.output<z.ZodObject<I>>;

/** What a handler returns: a value its output shape accepts (the server checks it again before sending it). */
export type ToolResult<O extends z.ZodRawShape> = z.input<z.ZodObject<O>>;

/** One MCP tool as written: metadata, zod shapes, and a handler that calls the core. */
export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** Reads work with a read_only key; the core enforces it either way. */
  readOnly: boolean;
  /** The deadline of this tool's core calls, when COFFER_CORE_TIMEOUT_MS is not right for it (an import). */
  timeoutMs?: number;
  inputSchema: I;
  outputSchema: O;
  handler: (core: CoreClients, opts: CallOptions, args: ToolArgs<I>) => Promise<ToolResult<O>>;
}

/** The arguments did not parse; the issues say why. */
export interface InvalidArguments {
  invalid: z.ZodError;
}

/** One MCP tool as the server holds it (see defineTool): its shapes as zod objects, and a way to call it. */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  readOnly: boolean;
  timeoutMs?: number;
  inputSchema: z.ZodRawShape;
  outputSchema: z.ZodRawShape;
  /** The shapes as objects, built once (HTTP builds a server per request). */
  input: z.ZodObject;
  output: z.ZodObject;
  /** Parses the arguments against `input`, then runs the handler with them; a core failure is thrown. */
  call: (
    core: CoreClients,
    opts: CallOptions,
    args: unknown,
  ) => Promise<InvalidArguments | { result: Record<string, unknown> }>;
}

/** A missing argument says so, instead of "expected string, received undefined". */
const required: z.core.$ZodErrorMap = (issue) =>
  issue.code === "invalid_type" && issue.input === undefined ? "is required" : undefined;

/** A tool whose handler gets its arguments typed from `inputSchema` and returns what `outputSchema` describes. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(spec: ToolSpec<I, O>): ToolDef {
  const { handler, ...meta } = spec;
  const input = z.object(spec.inputSchema);
  return {
    ...meta,
    input,
    output: z.object(spec.outputSchema),
    async call(core, opts, args) {
      const parsed = input.safeParse(args, { error: required });
      if (!parsed.success) return { invalid: parsed.error };
      return { result: await handler(core, opts, parsed.data) };
    },
  };
}
