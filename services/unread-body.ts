import type { UniversalServerRequest } from "@connectrpc/connect/protocol";

/**
 * Reads the body of a call the core is about to refuse without looking at it
 * (a refused key or scope, a method or media type Connect refuses outright)
 * and throws it away; the refusal is sent once it is read.
 *
 * Left unread, the body gets no flow-control credit, and Node resets its
 * HTTP/2 stream as soon as the answer is sent. The caller's session then
 * keeps counting the bytes it could not send against its memory bound (a
 * Node client does, even after the reset), and past that bound (10 MB by
 * default) it refuses every later answer with ENHANCE_YOUR_CALM: a gateway's
 * one session to the core, and so the whole API, was wedged by a few
 * unauthenticated uploads. Reading must come before the answer: once a body
 * is being read, Node no longer resets its stream, and a stream whose body
 * is left half read stays open for good.
 *
 * There is no cap: a refused body costs the core what an accepted one does
 * (reading it), and the gateways never send more than their body limits.
 */
export async function discardUnreadBody(req: UniversalServerRequest): Promise<void> {
  const body = req.body;
  if (body === null || typeof body !== "object" || !(Symbol.asyncIterator in body)) return;
  try {
    for await (const _chunk of body);
  } catch {
    // The caller went away or reset the stream: nothing left to read.
  }
}
