// Plain Node, plain ESM, in a project that installed @verq/core, @verq/store and @verq/adapters
// only (no prom-client, no dagre, no @verq/cli): the receiver from `@verq/adapters/http`, mounted
// in a Fastify app of its own, answers a keyed request once and a repeat from its receipt.
import { openStore } from "@verq/store";
import { createReceiverServer } from "@verq/adapters/http";

const store = await openStore(process.argv[2] ?? "receiver.sqlite");
let effects = 0;
const app = createReceiverServer({
  store,
  effect: async () => {
    effects++;
    return { stocked: effects };
  },
});
const url = await app.listen({ host: "127.0.0.1", port: 0 });
const send = () =>
  fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": "order-1" },
    body: JSON.stringify({ item: "socks" }),
  });
const first = await send();
const repeat = await send();
const bodies = [await first.text(), await repeat.text()];
await app.close();
await store.close();
console.log(
  JSON.stringify({
    statuses: [first.status, repeat.status],
    bodies,
    replayed: repeat.headers.get("idempotent-replayed"),
    effects,
  }),
);
