import {
  accessSync,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";

/** The npm package whose tarball carries a brotli-compressed headless Chromium for Linux x64. */
const PACKAGE = "@sparticuz/chromium";

const WHAT_TO_DO = `run \`npx -y pnpm@10 install --frozen-lockfile\` (the devDependency ${PACKAGE} of @verq/adapters ships the browser), or set VERQ_CHROMIUM=/path/to/chromium`;

/**
 * The Chromium binary for the browser tests: `VERQ_CHROMIUM` when set (it must be an executable
 * file), else the one inside the `@sparticuz/chromium` package, inflated once into
 * `<os temp dir>/verq-chromium/<package version>/chromium` and reused by later runs. Nothing is
 * fetched from outside the package; a missing browser rejects with what to do, never a skip.
 */
export async function findChromium(): Promise<string> {
  const fromEnv = process.env.VERQ_CHROMIUM;
  if (fromEnv !== undefined && fromEnv !== "") {
    try {
      accessSync(fromEnv, constants.X_OK);
    } catch {
      throw new Error(`no Chromium found: VERQ_CHROMIUM=${fromEnv} is not an executable file`);
    }
    return fromEnv;
  }
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `no Chromium found: ${PACKAGE} ships Linux x64 only (this is ${process.platform} ${process.arch}); set VERQ_CHROMIUM=/path/to/chromium`,
    );
  }
  const { binDir, version } = locatePackage();
  const target = join(tmpdir(), "verq-chromium", version, "chromium");
  if (existsSync(target)) return target;
  mkdirSync(dirname(target), { recursive: true });
  // Written aside and renamed, so that a concurrent or interrupted run never leaves a half binary at `target`.
  const partial = `${target}.${process.pid}.partial`;
  try {
    await pipeline(
      createReadStream(join(binDir, "chromium.br")),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new Error(`no Chromium found: could not inflate ${PACKAGE}'s chromium.br into ${target}: ${String(error)}`);
  }
  return target;
}

/** The package's `bin` folder and version, resolved from this package's own dependencies. */
function locatePackage(): { binDir: string; version: string } {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(PACKAGE);
  } catch {
    throw new Error(`no Chromium found: ${PACKAGE} is not installed; ${WHAT_TO_DO}`);
  }
  // The entry lies under <root>/build (its layout changes between versions): walk up to the package's own package.json.
  for (let root = dirname(entry); dirname(root) !== root; root = dirname(root)) {
    const manifest = join(root, "package.json");
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version: string };
    if (name !== PACKAGE) continue;
    const binDir = join(root, "bin");
    if (!existsSync(join(binDir, "chromium.br"))) {
      throw new Error(`no Chromium found: ${PACKAGE}@${version} has no bin/chromium.br; ${WHAT_TO_DO}`);
    }
    return { binDir, version };
  }
  throw new Error(`no Chromium found: no package.json of ${PACKAGE} above ${entry}; ${WHAT_TO_DO}`);
}
