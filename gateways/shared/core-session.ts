import http2 from "node:http2";
import { Http2SessionManager } from "@connectrpc/connect-node";

/**
 * How much a gateway's HTTP/2 session to the core may hold, in MB (Node's
 * maxSessionMemory; its default is 10). A request body waits in the session
 * until the core takes it, and while the session is over this bound Node
 * refuses every answer arriving on it (ENHANCE_YOUR_CALM): so it must hold a
 * few of the largest bodies at once (a CSV import, up to 32 MiB) with room
 * to spare.
 */
export const CORE_SESSION_MEMORY_MB = 160;

/** Why a session was replaced (for logs and tests). */
export type RetireReason = "refused_answer" | "unsent_body";

/**
 * The gateways' HTTP/2 sessions to the core (one at a time; connect-node's
 * manager opens it, pings it and replaces it after a GOAWAY or an error),
 * sized for the largest bodies and replaced as soon as one goes bad:
 *
 * - a stream that ends with ENHANCE_YOUR_CALM means this session refused an
 *   answer of the core, and will refuse every other one: it is destroyed at
 *   once (its other calls are failing anyway) and the next call opens a new
 *   one, instead of the API answering 503 until the session went idle;
 * - a stream that closes before its request body was sent whole (the call
 *   was cancelled or hit its deadline during an upload, or the core reset
 *   it) leaves the unsent bytes counted against the session's memory for as
 *   long as the session lives (Node does not give them back): the session is
 *   closed gracefully, its calls in flight finish, and new calls go to a
 *   fresh session, before such leftovers can add up.
 */
export class CoreSessionManager extends Http2SessionManager {
  /** Sessions replaced so far, by reason. */
  readonly retired: Record<RetireReason, number> = { refused_answer: 0, unsent_body: 0 };

  /**
   * No keep-alive PINGs (connect-node's default): a core busy for a few seconds must not lose its calls
   * in flight, and a core that hangs is the calls' deadlines' business.
   */
  constructor(
    baseUrl: string,
    private readonly onRetire?: (reason: RetireReason) => void,
    sessionOptions: http2.ClientSessionOptions = {},
  ) {
    super(baseUrl, undefined, { maxSessionMemory: CORE_SESSION_MEMORY_MB, ...sessionOptions });
  }

  override async request(
    method: string,
    path: string,
    headers: http2.OutgoingHttpHeaders,
    options: Omit<http2.ClientSessionRequestOptions, "signal">,
  ): Promise<http2.ClientHttp2Stream> {
    const stream = await super.request(method, path, headers, options);
    // Node forgets the stream's session when the stream closes.
    const session = stream.session;
    stream.once("close", () => {
      if (!session || session.destroyed) return;
      if (stream.rstCode === http2.constants.NGHTTP2_ENHANCE_YOUR_CALM) {
        this.retire("refused_answer");
        session.destroy();
      } else if (!stream.writableFinished && !session.closed) {
        this.retire("unsent_body");
        session.close();
      }
    });
    return stream;
  }

  private retire(reason: RetireReason) {
    this.retired[reason]++;
    this.onRetire?.(reason);
  }
}
