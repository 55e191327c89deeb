/**
 * The benchmark's own database: BENCH_DATABASE_URL, else the server of
 * DATABASE_URL (or the local PostgreSQL) with the database name coffer_bench.
 * Never the database named by DATABASE_URL itself, so a benchmark cannot
 * overwrite real data.
 */
export function benchDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BENCH_DATABASE_URL) return env.BENCH_DATABASE_URL;
  const u = new URL(env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
  u.pathname = "/coffer_bench";
  return u.toString();
}

/** The same server's maintenance database, for CREATE/DROP DATABASE. */
export function adminUrlOf(url: string): string {
  const u = new URL(url);
  u.pathname = "/postgres";
  return u.toString();
}

export const dbNameOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** `--name value` from argv, or the fallback. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
