// The order-lifecycle service as a process: `node --conditions=verq-source --import tsx src/main.ts
// --db order-lifecycle.sqlite --port 3001`. It prints one JSON line when it listens and one when
// SIGTERM or SIGINT has stopped it.
import { isVerqError } from "@verq/core";
import { openStore } from "@verq/store";
import { createOrderLifecycleService } from "./order-service.ts";
import { ServiceError } from "./service-error.ts";
import { parseServiceOptions } from "./service-options.ts";

function fail(error: unknown): void {
  const known = error instanceof ServiceError || isVerqError(error);
  const code = known ? error.code : "ORDERS_UNEXPECTED";
  const message = error instanceof Error ? error.message : typeof error;
  console.error(JSON.stringify({ event: "failed", code, message }));
  process.exitCode = known ? 2 : 1;
}

async function main(): Promise<void> {
  const options = parseServiceOptions(process.argv.slice(2), process.env);
  const store = await openStore(options.db);
  const service = await createOrderLifecycleService({ store, host: options.host, port: options.port }).catch(
    async (error: unknown) => {
      await store.close();
      throw error;
    },
  );
  // `store.path` names a PostgreSQL store by host, port and database, never with its password.
  console.log(JSON.stringify({ event: "listening", url: service.url, db: store.path, pid: process.pid }));
  const stop = (signal: NodeJS.Signals): void => {
    service
      .close()
      .finally(() => store.close())
      .then(() => console.log(JSON.stringify({ event: "stopped", signal })), fail);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch(fail);
