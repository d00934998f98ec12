import { sql } from "kysely";
import { afterEach, beforeEach, expect, it } from "vitest";
import { JobQueue, openStore, type VerqStore } from "../src/index.ts";

let store: VerqStore;
beforeEach(async () => {
  store = await openStore({ path: ":memory:" });
  const queue = new JobQueue(store);
  await queue.enqueue({ id: "a", payload: { quantity: 7 } });
  await queue.claim("w");
});
afterEach(async () => {
  await store.close();
});

const allEvents = () => store.db.selectFrom("events").selectAll().orderBy("position").execute();

it("an UPDATE of an event fails (trigger) and changes nothing", async () => {
  const before = await allEvents();
  await expect(sql`update events set data = '{}' where stream_id = 'a'`.execute(store.db)).rejects.toThrow(/VERQ_APPEND_ONLY/);
  expect(await allEvents()).toEqual(before);
});

it("a DELETE of a job's event fails (trigger) and changes nothing", async () => {
  const before = await allEvents();
  await expect(sql`delete from events where stream_type = 'job'`.execute(store.db)).rejects.toThrow(/VERQ_APPEND_ONLY/);
  expect(await allEvents()).toEqual(before);
});

it("a second event with the same (stream_type, stream_id, version) is refused by the UNIQUE constraint", async () => {
  const before = await allEvents();
  const error = await store.db
    .insertInto("events")
    .values({ stream_type: "job", stream_id: "a", version: 2, type: "job.claimed", data: "{}", at_ms: 0 })
    .execute()
    .catch((e: unknown) => e);
  expect(store.dialect.isUniqueViolation(error)).toBe(true);
  expect(await allEvents()).toEqual(before);
});
