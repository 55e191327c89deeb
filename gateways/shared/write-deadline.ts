import type { Transport } from "@connectrpc/connect";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";

/**
 * A transport whose writes are awaited. The core does not stop a call when
 * the caller's deadline passes: a write it is committing commits anyway, so
 * answering 504 at COFFER_CORE_TIMEOUT_MS would tell the caller "failed" about
 * work that went through. A read (every method the protocol marks
 * NO_SIDE_EFFECTS) keeps the transport's deadline; any other method without a
 * deadline of its own waits up to `writeTimeoutMs` (COFFER_CORE_WRITE_TIMEOUT_MS),
 * a backstop against a core that hangs, never shorter than the read deadline.
 */
export function awaitWrites(inner: Transport, readTimeoutMs: number, writeTimeoutMs: number): Transport {
  const writeDeadline = Math.max(readTimeoutMs, writeTimeoutMs);
  const deadline = (idempotency: MethodOptions_IdempotencyLevel, timeoutMs: number | undefined) =>
    timeoutMs ?? (idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS ? undefined : writeDeadline);
  return {
    unary: (method, signal, timeoutMs, header, input, contextValues) =>
      inner.unary(method, signal, deadline(method.idempotency, timeoutMs), header, input, contextValues),
    stream: (method, signal, timeoutMs, header, input, contextValues) =>
      inner.stream(method, signal, deadline(method.idempotency, timeoutMs), header, input, contextValues),
  };
}
