import {
  ManualClock,
  VERQ_STREAM_DEFINITIONS,
  defineVerqStream,
  evolveJob,
  isVerqError,
  jobStreamDefinition,
  type JobEvent,
  type JobStreamState,
  type AnyStreamDefinition,
  type JsonObject,
} from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { checkStore, declareStream, readAllEvents, type VerqStore } from "../src/index.ts";
import { byStreamType, upcastEvents } from "../src/declared/upcast-events.ts";
import { freshStores } from "./helpers/fresh-store.ts";
import { buildEveryState, deterministicQueue } from "./helpers/workload.ts";

/**
 * The job stream after a deliberate change to one event: `job.enqueued` at version 2 names its
 * payload `body`, with the upcaster from version 1, and the fold reads the new shape only.
 */
const jobV2 = defineVerqStream({
  name: jobStreamDefinition.name,
  machine: jobStreamDefinition.machine,
  field: "job",
  initial: (id: string) => jobStreamDefinition.initial(id).value,
  unhandled: "not-claimable",
  events: {
    "job.enqueued": {
      version: 2,
      upcasters: {
        1: ({ payload, ...rest }: JsonObject) => ({ ...rest, body: payload ?? null }),
      },
    },
  },
  evolve: (job: JobStreamState, event: JobEvent): JobStreamState => {
    if (event.type !== "job.enqueued") return evolveJob(job, event);
    const { body, ...rest } = event.data as unknown as JsonObject;
    if (body === undefined || "payload" in rest) throw new Error("job.enqueued read at its old shape");
    return evolveJob(job, { type: event.type, data: { ...rest, payload: body } as unknown as typeof event.data });
  },
});

async function writeEveryState(store: VerqStore): Promise<string[]> {
  const clock = new ManualClock();
  return buildEveryState(deterministicQueue(store, clock), clock);
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq's own streams, declared as a service's are`, () => {
    const stores = freshStores();

    it("reads a store written with today's job events after a change to one event, through its upcaster, the log untouched", async () => {
      const { store } = await stores.open(engine);
      const ids = await writeEveryState(store);
      const stored = await readAllEvents(store.db, "job");
      expect(stored.filter((e) => e.type === "job.enqueued").length).toBe(ids.length);
      expect(new Set(stored.map((e) => e.schemaVersion))).toEqual(new Set([1]));

      const read = upcastEvents(stored, byStreamType([jobV2]));
      const enqueued = read.filter((e) => e.type === "job.enqueued");
      for (const event of enqueued) {
        expect(event.schemaVersion).toBe(2);
        expect(Object.keys(event.data as object)).toContain("body");
        expect(Object.keys(event.data as object)).not.toContain("payload");
      }
      // Every job folded through the changed definition is the job the store projected today.
      const { JobQueue } = await import("../src/index.ts");
      const queue = new JobQueue(store);
      for (const id of ids) {
        const folded = jobV2.fold(
          jobV2.initial(id),
          stored.filter((e) => e.streamId === id),
        );
        expect(folded.value, id).toEqual(await queue.get(id));
      }
      // The log is never rewritten: the rows are still at version 1 with their old shape.
      expect(await readAllEvents(store.db, "job")).toEqual(stored);
      expect((await checkStore(store)).findings).toEqual([]);
    });

    it("refuses to fold a job event written by newer code: the check reports it and the rebuild refuses it, changing nothing", async () => {
      const { store } = await stores.open(engine);
      const [id] = await writeEveryState(store);
      if (id === undefined) throw new Error("no job");
      const last = (await readAllEvents(store.db, "job")).filter((e) => e.streamId === id).at(-1);
      if (last === undefined) throw new Error("no event");
      expect((await checkStore(store)).ok).toBe(true);

      // A later verq writes this job's next event at schema version 2 of its type.
      await store.db
        .insertInto("events")
        .values({
          stream_type: "job",
          stream_id: id,
          version: last.version + 1,
          type: "job.leaseExtended",
          data: JSON.stringify({ token: 1, leaseUntil: last.at + 1, at: last.at }),
          at_ms: last.at,
          schema_version: 2,
        })
        .execute();

      const report = await checkStore(store);
      const invalid = report.findings.filter((f) => f.code === "EVENT_INVALID");
      expect(invalid).toHaveLength(1);
      expect(invalid[0]?.detail).toMatch(/job\.leaseExtended was written at version 2, newer than this code's 1/);
      const jobRows = () => store.db.selectFrom("jobs").selectAll().orderBy("id").execute();
      const rowsBefore = await jobRows();
      await expect(store.rebuildProjections()).rejects.toSatisfy((e) => isVerqError(e, "VERQ_EVENT_FROM_NEWER_SCHEMA"));
      expect(await jobRows()).toEqual(rowsBefore);
    });

    it("keeps verq's own stream types to verq: a definition of one cannot be declared on a store", async () => {
      const { store } = await stores.open(engine);
      for (const definition of Object.values(VERQ_STREAM_DEFINITIONS)) {
        let error: unknown = null;
        try {
          declareStream(store, definition as unknown as AnyStreamDefinition);
        } catch (e) {
          error = e;
        }
        expect(isVerqError(error, "VERQ_STREAM_TYPE_TAKEN"), definition.name).toBe(true);
      }
      expect(await store.db.selectFrom("stream_states").selectAll().execute()).toEqual([]);
    });
  });
}
