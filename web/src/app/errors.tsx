import { ApiError } from "./api";

/** A readable sentence for an error, naming the API's code when there is one. */
export function describeError(error: unknown): { title: string; message: string; code?: string } {
  if (error instanceof ApiError) {
    const title =
      error.status === 403
        ? "Not allowed"
        : error.status === 401
          ? "Signed out"
          : error.status === 404
            ? "Not found"
            : error.status === 409
              ? "Conflict"
              : error.status === 429
                ? "Too many attempts"
                : error.status >= 500 || error.status === 0
                  ? "The server could not do this"
                  : "Request refused";
    const wait = error.retryAfter ? ` Try again in ${error.retryAfter} s.` : "";
    return { title, message: error.message + wait, code: error.code };
  }
  if (error instanceof Error) return { title: "Something went wrong", message: error.message };
  return { title: "Something went wrong", message: String(error) };
}

/** Shows an API error in place: the title, the server's message and its code. Renders nothing without an error. */
export function ErrorMessage({ error, className }: { error: unknown; className?: string }) {
  if (error === null || error === undefined) return null;
  const { title, message, code } = describeError(error);
  return (
    <div role="alert" className={`error ${className ?? ""}`.trim()}>
      <strong>{title}</strong>
      {code ? <code className="error-code">{code}</code> : null}
      <p>{message}</p>
    </div>
  );
}

/** A loading line that screen readers announce. */
export function Loading({ what }: { what?: string }) {
  return (
    <p role="status" className="muted">
      Loading{what ? ` ${what}` : ""}…
    </p>
  );
}
