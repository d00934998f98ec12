// The orders service as a process: `node --import tsx src/main.ts --db orders.sqlite --port 3000`.
// It prints one JSON line when it listens and one when it has stopped (SIGTERM or SIGINT).
import { parseServiceOptions } from "./service-options.ts";
import { startOrdersService } from "./orders-service.ts";
import { ServiceError } from "./service-error.ts";

function fail(error: unknown): void {
  const code = error instanceof ServiceError ? error.code : "ORDERS_UNEXPECTED";
  const message = error instanceof Error ? error.message : String(error);
  console.error(JSON.stringify({ event: "failed", code, message }));
  process.exitCode = error instanceof ServiceError ? 2 : 1;
}

async function main(): Promise<void> {
  const options = parseServiceOptions(process.argv.slice(2), process.env);
  const service = await startOrdersService(options);
  console.log(JSON.stringify({ event: "listening", url: service.url, db: options.db, pid: process.pid }));
  const stop = (signal: NodeJS.Signals): void => {
    service.close().then((worker) => console.log(JSON.stringify({ event: "stopped", signal, worker })), fail);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch(fail);
