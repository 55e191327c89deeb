// Types of bin/build.js (plain JavaScript, so that bin/coffer.js can use it before anything is compiled).

export type BuildState = "no-sources" | "missing" | "stale" | "fresh";

export declare const ROOT: string;
export declare const WEB_DIR: string;

export declare function serverBuildPresent(root?: string): boolean;
export declare function serverBuildState(root?: string): BuildState;
export declare function buildState(webDir?: string): BuildState;
export declare function canBuild(root?: string): boolean;

export declare function ensureServerBuilt(opts?: {
  root?: string;
  say?: (m: string) => void;
  lockTimeoutMs?: number;
}): Promise<BuildState | "built">;

export declare function ensureConsoleBuilt(opts?: {
  webDir?: string;
  say?: (m: string) => void;
  lockTimeoutMs?: number;
}): Promise<BuildState | "built">;

export declare function ensureBuilt(opts?: {
  say?: (m: string) => void;
}): Promise<{ server: BuildState | "built"; console: BuildState | "built" }>;
