// Preloaded with `node --import` by the CLI laziness test: records the URL of every module the
// process loads into the file named by VERQ_MODULE_LOG, one a line. ES modules (and the CommonJS
// packages they import) are seen by the `load` hook of ./record-modules-hooks.mjs; CommonJS
// modules that other CommonJS modules require are read from the require cache at exit.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";

const log = process.env.VERQ_MODULE_LOG;
if (log === undefined || log === "") throw new Error("record-modules.mjs needs VERQ_MODULE_LOG");
register(new URL("./record-modules-hooks.mjs", import.meta.url), { data: { log } });
const cache = createRequire(import.meta.url).cache;
process.on("exit", () => {
  appendFileSync(
    log,
    Object.keys(cache)
      .map((path) => `${pathToFileURL(path).href}\n`)
      .join(""),
  );
});
