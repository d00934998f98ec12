import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { ENGINES, engineAvailable, type Engine } from "@verq/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fcConfig } from "../../../../property-tests/fc-config.ts";
import { errorCodeOf } from "./support/answer-check.ts";
import { badRequest } from "./support/bad-request-arbitrary.ts";
import { EDGES, startEdge, type EdgeName, type EdgeTarget } from "./support/edge-targets.ts";
import { decodeUtf8 } from "../../src/http/json-body.ts";
import { partsToBytes, requestBytes, type RawCase, type RawRequest } from "./support/raw-case.ts";
import { rawExchange, type RawAnswer } from "./support/raw-exchange.ts";

// The bad-input corpus of every HTTP edge (docs/http-plugins.md, corpus/README.md): the kept
// cases replayed byte for byte, then a time-boxed fast-check run of generated ones, over real
// servers on 127.0.0.1 reached through raw sockets (fetch would tidy the requests up first).

const CORPUS = path.join(path.dirname(fileURLToPath(import.meta.url)), "corpus");

/** The kept cases of `edge`: its own folder and `any-edge/`, sorted by file name. */
function corpusOf(edge: EdgeName): { file: string; case: RawCase }[] {
  return [edge, "any-edge"].flatMap((folder) =>
    fs
      .readdirSync(path.join(CORPUS, folder))
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => ({
        file: `${folder}/${f}`,
        case: JSON.parse(fs.readFileSync(path.join(CORPUS, folder, f), "utf8")) as RawCase,
      })),
  );
}

/** How many generated requests each edge gets per run (FC_NUM_RUNS overrides). */
const GENERATED_RUNS = 30;

/**
 * The edges each engine runs: all on SQLite; on PostgreSQL those that write (the relay's ledger,
 * the receiver's receipts). The metrics and the dashboard only read, through the same services
 * on either engine, and their refusals come before any read.
 */
const EDGES_ON: Record<Engine, readonly EdgeName[]> = { sqlite: EDGES, postgres: ["relay", "receiver"] };

/**
 * Whether `request` is one the edge may accept (200): its own method and path, and for a JSON
 * endpoint one `application/json` content type and a whole UTF-8 body within the limit.
 */
function mayBeAccepted(target: EdgeTarget, request: RawRequest): boolean {
  const { defaults } = target;
  const pathOnly = (request.path ?? defaults.path).split("?")[0];
  if ((request.method ?? defaults.method) !== defaults.method || pathOnly !== defaults.path) return false;
  if (defaults.method === "GET") return true;
  const types = (request.headers ?? []).filter(([name]) => name.toLowerCase() === "content-type");
  const media = types.map(([, value]) => partsToBytes(value).toString("latin1").split(";")[0]?.trim().toLowerCase());
  const body = partsToBytes(request.body ?? []);
  return (
    media.length === 1 &&
    media[0] === "application/json" &&
    (request.send ?? "whole") === "whole" &&
    request.contentLength === undefined &&
    body.length <= target.bodyLimit &&
    decodeUtf8(body) !== null
  );
}

/** Sends `request`, and checks the rules every answer keeps; resolves to the answer. */
async function exchange(target: EdgeTarget, request: RawRequest): Promise<RawAnswer> {
  return rawExchange(target.port, requestBytes(request, target.defaults), request);
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    for (const edge of EDGES_ON[engine]) {
      describe(`the ${edge}'s bad-input corpus: a well-formed VERQ error, nothing recorded, the server still serving`, () => {
        let target: EdgeTarget;
        beforeAll(async () => {
          target = await startEdge(edge, engine);
        });
        afterAll(async () => {
          await target.close();
        });

        for (const { file, case: kept } of corpusOf(edge)) {
          it(`${file}: ${kept.name}`, async () => {
            const before = await target.snapshot();
            const answer = await exchange(target, kept.request);
            if ("noAnswer" in kept.expect) {
              expect(answer.status).toBeNull();
            } else {
              expect({ status: answer.status, code: errorCodeOf(answer) }).toEqual(kept.expect);
            }
            expect(await target.snapshot()).toEqual(before);
            await target.good();
          });
        }

        it("generated requests: every refusal is a 4xx with a VERQ code and changes nothing; only a well-formed one is accepted", async () => {
          await fc.assert(
            fc.asyncProperty(badRequest(target), async (request) => {
              const before = await target.snapshot();
              const answer = await exchange(target, request);
              if (answer.status === null) {
                // Only a client that went away gets no answer: the server never hangs up silently.
                expect(request.send).toBe("cut-and-close");
                expect(answer.closedByServer).toBe(false);
              } else if (answer.status === 200) {
                expect(mayBeAccepted(target, request)).toBe(true);
              } else {
                expect(answer.status).toBeGreaterThanOrEqual(400);
                expect(answer.status).toBeLessThan(500);
                expect(errorCodeOf(answer)).toMatch(/^VERQ_/);
              }
              if (answer.status !== 200) expect(await target.snapshot()).toEqual(before);
              await target.good();
            }),
            fcConfig(`http-corpus-${edge}-${engine}`, { numRuns: GENERATED_RUNS, timeLimitMs: 20_000 }),
          );
        });
      });
    }
  });
}
