import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseDuration } from "../../src/cli/durations.ts";
import { runCli } from "../../src/cli/main.ts";
import { tempDir } from "../support/verq-process.ts";

let dir: ReturnType<typeof tempDir>;
let db: string;
let server: Server;
let target: string;
let reply = '{"ok":true}';

beforeAll(async () => {
  dir = tempDir("verq-jobs-cli-");
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  dir.remove();
});
let n = 0;
beforeEach(() => {
  db = `${dir.path}/q${++n}.sqlite`;
  reply = '{"ok":true}';
});

async function verq(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, { out: (t) => (out += t.endsWith("\n") ? t : `${t}\n`), err: (t) => (err += t) });
  return { code, out, err };
}
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe("verq jobs", () => {
  it("enqueue, work --once, show --json and stats --json", async () => {
    expect((await verq("jobs", "enqueue", "--db", db, "--id", "a", "--payload", '{"quantity":7}', "--max-attempts", "3")).code).toBe(0);
    const again = await verq("jobs", "enqueue", "--db", db, "--id", "a", "--payload", '{"quantity":7}', "--json");
    expect(json(again.out)).toMatchObject({ created: false });
    const work = await verq("jobs", "work", "--db", db, "--target", target, "--once", "--owner", "w1", "--json");
    expect(work.code).toBe(0);
    expect(json(work.out)).toEqual({ status: "finished", id: "a", token: 1, outcome: "ok", accepted: true });
    const show = json((await verq("jobs", "show", "a", "--db", db, "--json")).out);
    for (const key of ["id", "state", "token", "attempts", "maxAttempts", "owner", "leaseUntil", "deadline", "reason", "payload", "events"]) {
      expect(show).toHaveProperty(key);
    }
    expect(show).toMatchObject({ id: "a", state: "done", token: 1, attempts: 1, maxAttempts: 3, owner: null, leaseUntil: null, reason: null, payload: { quantity: 7 } });
    expect((show.events as { type: string }[]).map((e) => e.type)).toEqual(["job.enqueued", "job.claimed", "job.completed"]);
    const stats = json((await verq("jobs", "stats", "--db", db, "--json")).out);
    expect(stats).toMatchObject({
      byState: { pending: 0, leased: 0, done: 1, dead: 0 },
      dead: { count: 0, oldest: null, byReason: { permanent: { count: 0, ratio: 0 } } },
      lastRedrive: null,
      leaseExpiries: 0,
      staleFinishesRefused: 0,
    });
    const human = await verq("jobs", "show", "a", "--db", db);
    expect(human.out).toContain("job.claimed token=1 owner=w1");
  });

  it("work --once exits 0 when nothing is due and non-zero on a BadAck, leaving the job leased", async () => {
    expect(json((await verq("jobs", "work", "--db", db, "--target", target, "--once", "--json")).out)).toEqual({ status: "idle" });
    await verq("jobs", "enqueue", "--db", db, "--id", "b", "--payload", "{}");
    reply = '{"ok":"yes"}';
    const bad = await verq("jobs", "work", "--db", db, "--target", target, "--once");
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain("VERQ_BAD_ACK");
    expect(json((await verq("jobs", "show", "b", "--db", db, "--json")).out)).toMatchObject({ state: "leased", token: 1 });
  });

  it("finish exits 0 when accepted and 3 when refused; dead, redrive and their refusals", async () => {
    await verq("jobs", "enqueue", "--db", db, "--id", "c", "--payload", "{}", "--max-attempts", "1");
    reply = "{}";
    await verq("jobs", "work", "--db", db, "--target", target, "--once");
    expect((await verq("jobs", "finish", "c", "--db", db, "--token", "2", "--outcome", "ok")).code).toBe(3);
    expect((await verq("jobs", "finish", "c", "--db", db, "--token", "1", "--outcome", "permanent")).code).toBe(0);
    const dead = json(`{"rows":${(await verq("jobs", "dead", "--db", db, "--json")).out}}`).rows as { id: string; reason: string }[];
    expect(dead).toEqual([expect.objectContaining({ id: "c", reason: "permanent" })]);
    expect((await verq("jobs", "redrive", "c", "--db", db, "--note", "fixed it")).code).toBe(2);
    const ok = await verq("jobs", "redrive", "c", "--db", db, "--note", "OPS-1", "--json");
    expect(json(ok.out)).toMatchObject({ jobId: "c", note: "OPS-1", previousToken: 1 });
    const notDead = await verq("jobs", "redrive", "c", "--db", db, "--note", "OPS-2");
    expect(notDead.code).toBe(3);
    expect(notDead.err).toContain("VERQ_NOT_DEAD");
    expect(json((await verq("jobs", "stats", "--db", db, "--json")).out)).toMatchObject({ lastRedrive: { jobId: "c", note: "OPS-1" } });
  });

  it("bad input gets a coded error and changes nothing", async () => {
    await verq("jobs", "enqueue", "--db", db, "--id", "d", "--payload", '{"quantity":1}');
    const before = (await verq("jobs", "show", "d", "--db", db, "--json")).out;
    const cases: [string[], number, string][] = [
      [["jobs", "enqueue", "--db", db, "--id", "e", "--payload", "{not json"], 2, "VERQ_INVALID_PAYLOAD"],
      [["jobs", "enqueue", "--db", db, "--id", "d", "--payload", '{"quantity":2}'], 3, "VERQ_ENQUEUE_CONFLICT"],
      [["jobs", "enqueue", "--db", db, "--id", "e", "--payload", "{}", "--deadline", "soon"], 2, "VERQ_INVALID_ARGUMENT"],
      [["jobs", "finish", "nope", "--db", db, "--token", "1", "--outcome", "ok"], 4, "VERQ_UNKNOWN_JOB"],
      [["jobs", "finish", "d", "--db", db, "--token", "x", "--outcome", "ok"], 2, "VERQ_INVALID_ARGUMENT"],
      [["jobs", "finish", "d", "--db", db, "--token", "1", "--outcome", "maybe"], 2, "VERQ_INVALID_ARGUMENT"],
      [["jobs", "show", "nope", "--db", db], 4, "VERQ_UNKNOWN_JOB"],
      [["jobs", "work", "--db", db, "--target", target, "--once", "--lease", "0ms"], 2, "VERQ_INVALID_LEASE"],
    ];
    for (const [args, code, text] of cases) {
      const result = await verq(...args);
      expect([args.join(" "), result.code, result.err]).toEqual([args.join(" "), code, expect.stringContaining(text)]);
    }
    expect((await verq("jobs", "show", "d", "--db", db, "--json")).out).toBe(before);
    expect(json((await verq("jobs", "stats", "--db", db, "--json")).out)).toMatchObject({ byState: { pending: 1 } });
    expect((await verq("jobs", "frobnicate")).code).toBe(2);
  });
});

describe("durations", () => {
  it.each([
    ["500ms", 500],
    ["30s", 30_000],
    ["10m", 600_000],
    ["2h", 7_200_000],
    ["7d", 604_800_000],
  ])("%s is %i ms", (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(["", "10", "1.5s", "-1s", "10 minutes", "1w"])("%j is refused", (text) => {
    expect(() => parseDuration(text)).toThrow(expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT" }));
  });
});
