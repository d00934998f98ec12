// Preloaded with `node --require`: `@opentelemetry/api` cannot be resolved, as in a service that
// never installed it, whatever this repository's node_modules hold.
const Module = require("node:module");

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === "@opentelemetry/api" || request.startsWith("@opentelemetry/api/")) {
    const error = new Error(`Cannot find module '${request}'`);
    error.code = "MODULE_NOT_FOUND";
    throw error;
  }
  return resolve.call(this, request, ...rest);
};
