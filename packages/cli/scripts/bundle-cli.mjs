// Builds the `verq` bin, dist/bin.js, as one ES module per command area (esbuild, after tsc
// has built the library). The library stays one compiled file per source file; the bin is
// bundled because a CLI pays for every module it loads on every start: kysely alone is 263
// modules, and Node 20 has no compile cache. Bundled: the CLI, @verq/adapters, @verq/core and
// @verq/store from their sources, kysely, xstate and dagre (their ES builds). Left to the
// installed packages, which is why they are this package's own dependencies: commander, the
// native better-sqlite3, pg (loaded only for a PostgreSQL store), and fastify, undici, zod,
// prom-client and cli-progress, which only the commands that serve or call HTTP, read messages,
// serve metrics or draw a progress bar load, and pino, which only the commands that log load (and
// whose transports, unused by verq, run in worker threads that load their own files). And
// @opentelemetry/api, an optional peer: verq resolves it at run time, once, and traces nothing
// when it is not installed (docs/tracing.md). See docs/adr/0010-cli-start.md.
import { bundleCli } from "./cli-bundle.mjs";

await bundleCli({ outdir: "dist" });
