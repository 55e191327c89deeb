import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import sparticuz from "@sparticuz/chromium";
import { REPO_ROOT } from "../../helpers/processes.js";

/** The Chromium the browser tests drive: where it is, the flags it needs, and what to call it in the output. */
export interface ChosenChromium {
  executablePath: string;
  args: string[];
  env: Record<string, string>;
  source: string;
}

const DEBIAN_CHROMIUM = "/usr/bin/chromium";
const DEBIAN_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"];
/**
 * @sparticuz/chromium's flags are made for serverless hosts; three of them do not suit these tests.
 * `--single-process` runs every page inside the browser process, and closing a context then ends the
 * browser (each test closes its own). The other two switch off the same-origin policy and mixed-content
 * blocking, which the console's tests rely on (Origin checks, CSP, SameSite cookies): a test must see what
 * a person's browser does.
 */
const UNSUITED_FLAGS = new Set(["--single-process", "--disable-web-security", "--allow-running-insecure-content"]);

/**
 * `CHROMIUM_PATH=/path` drives that binary; `CHROMIUM_PATH=npm` the one from npm even when Debian's is
 * installed; unset, Debian's `/usr/bin/chromium` when present, else the one from npm (`@sparticuz/chromium`,
 * a devDependency, so `npm ci` is all a machine needs).
 */
export async function chooseChromium(env: NodeJS.ProcessEnv = process.env): Promise<ChosenChromium> {
  const wanted = env.CHROMIUM_PATH;
  if (wanted && wanted !== "npm")
    return { executablePath: wanted, args: DEBIAN_ARGS, env: {}, source: "CHROMIUM_PATH" };
  if (wanted !== "npm" && isExecutable(DEBIAN_CHROMIUM)) {
    return { executablePath: DEBIAN_CHROMIUM, args: DEBIAN_ARGS, env: {}, source: "Debian's chromium package" };
  }
  const { dir, version } = await unpackedNpmChromium();
  return {
    executablePath: join(dir, "chromium"),
    args: [...sparticuz.args.filter((a) => !UNSUITED_FLAGS.has(a)), "--disable-dev-shm-usage"],
    // The package's own fonts, so text renders the same on a machine without any fonts installed.
    env: { FONTCONFIG_PATH: join(dir, "fonts") },
    source: `@sparticuz/chromium ${version} from npm`,
  };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The package ships Chromium brotli-compressed and unpacks it into the OS temp directory, as `/tmp/chromium`,
 * shared by every user and version and written in place (a second run could start a half-written binary).
 * Here it is unpacked once per package version into node_modules/.cache, in a child process whose TMPDIR
 * is a directory of its own, which is then renamed into place: a run sees a whole browser or none.
 */
async function unpackedNpmChromium(): Promise<{ dir: string; version: string }> {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(dirname(require.resolve("@sparticuz/chromium")));
  const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string };
  const cache = join(REPO_ROOT, "node_modules", ".cache", "coffer-chromium");
  const dir = join(cache, version);
  if (existsSync(join(dir, "chromium"))) return { dir, version };

  const partial = join(cache, `${version}.partial-${process.pid}`);
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const unpack = "const { default: c } = await import('@sparticuz/chromium'); await c.executablePath();";
  await promisify(execFile)(process.execPath, ["--input-type=module", "-e", unpack], {
    cwd: REPO_ROOT,
    env: { ...process.env, TMPDIR: partial },
  });
  // The package's fonts.conf names /tmp/fonts; this one names where they will be once renamed into place.
  const fonts = join(dir, "fonts");
  writeFileSync(
    join(partial, "fonts", "fonts.conf"),
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
      `  <dir>${fonts}</dir>\n  <cachedir>${join(fonts, "cache")}</cachedir>\n</fontconfig>\n`,
  );
  try {
    renameSync(partial, dir);
  } catch {
    // Another run put its copy in place first; use that one.
    rmSync(partial, { recursive: true, force: true });
  }
  return { dir, version };
}
