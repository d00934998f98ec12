// The esbuild build of the `verq` bin: one ES module per command area. `bundle-cli.mjs` writes
// it to dist for the package; the test run writes it once from the current sources so that
// the CLI's child processes start as the installed bin does (see test/support/cli-bundle.setup.ts).
import { build } from "esbuild";

/** Left to the installed packages (bundle-cli.mjs says why); everything else is bundled. */
const CLI_EXTERNALS = [
  "better-sqlite3",
  "pg",
  "commander",
  "fastify",
  "undici",
  "zod",
  "prom-client",
  "cli-progress",
  "pino",
  "@opentelemetry/api",
];

/**
 * Bundles src/bin.ts (relative to the package) into `outdir`: `bin.js` and its chunks.
 * @param {{ outdir: string, sourcemap?: boolean }} options
 */
export async function bundleCli({ outdir, sourcemap = true }) {
  await build({
    entryPoints: [new URL("../src/bin.ts", import.meta.url).pathname],
    outdir,
    bundle: true,
    // Each `import()` of a command area becomes a chunk that loads when that command runs.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    format: "esm",
    platform: "node",
    target: "node20",
    // verq-source: the workspace packages from their sources; module: xstate's ES build.
    conditions: ["verq-source", "module"],
    external: CLI_EXTERNALS,
    sourcemap,
    sourcesContent: sourcemap,
    legalComments: "inline",
    logLevel: "warning",
  });
}
