// Module hooks of ./record-modules.mjs: appends each loaded module's URL to the log file.
import { appendFileSync } from "node:fs";

let log = "";

export function initialize(data) {
  log = data.log;
}

export async function load(url, context, nextLoad) {
  appendFileSync(log, `${url}\n`);
  return nextLoad(url, context);
}
