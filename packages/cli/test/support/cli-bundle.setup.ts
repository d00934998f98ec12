import { existsSync, mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bundleCli } from "../../scripts/cli-bundle.mjs";

/**
 * The test run's global setup: bundles the `verq` bin once from the current sources, as the
 * package's build does, and hands it to every test through `VERQ_CLI_BUNDLE` (read by
 * @verq/testing's `verqCommand`). The CLI's child processes then start as the installed bin does,
 * without compiling the sources through tsx on every start (about 2.9 s of CPU for `jobs stats`,
 * against 0.45 s bundled). The bundle lives under the package's node_modules, where its
 * externals (commander, fastify, the drivers) resolve, and is removed at the end of the run.
 */
export default async function setup(): Promise<() => void> {
  // Each project of the run calls its global setup: the first one's bundle serves them all.
  const built = process.env.VERQ_CLI_BUNDLE;
  if (built !== undefined && built !== "" && existsSync(built)) return () => {};
  const cache = join(import.meta.dirname, "..", "..", "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const outdir = mkdtempSync(join(cache, "verq-cli-"));
  await bundleCli({ outdir, sourcemap: false });
  process.env.VERQ_CLI_BUNDLE = join(outdir, "bin.js");
  return () => rmSync(outdir, { recursive: true, force: true });
}
