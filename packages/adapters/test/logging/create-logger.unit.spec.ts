import { describe, expect, it } from "vitest";
import type { LogLevel } from "../../src/log-fields.ts";
import { createLogger, REDACTED_FIELDS } from "../../src/logging.ts";

const SECRET = "SECRET-d41c";

/** A logger writing into an array of parsed lines. */
function capture(level?: LogLevel) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    name: "test",
    ...(level === undefined ? {} : { level }),
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

describe("createLogger", () => {
  it("writes one JSON object per line with the level as its label, time, pid, name, the fields and msg", () => {
    const { logger, lines } = capture();
    logger.info({ id: "a-1", token: 3 }, "outcome recorded");
    expect(lines).toEqual([
      {
        level: "info",
        time: expect.any(Number) as unknown,
        pid: process.pid,
        hostname: expect.any(String) as unknown,
        name: "test",
        id: "a-1",
        token: 3,
        msg: "outcome recorded",
      },
    ]);
  });

  it("redacts payload-like fields at the top level and one level down, whatever their value", () => {
    const { logger, lines } = capture();
    const fields = Object.fromEntries(REDACTED_FIELDS.map((field) => [field, { text: SECRET }]));
    logger.warn(
      { id: "a-1", ...fields, job: { id: "a-1", payload: SECRET }, req: { body: SECRET, headers: { cookie: SECRET } } },
      "careless",
    );
    expect(JSON.stringify(lines)).not.toContain(SECRET);
    expect(lines[0]).toMatchObject({
      id: "a-1",
      payload: "[redacted]",
      body: "[redacted]",
      job: { id: "a-1", payload: "[redacted]" },
    });
  });

  it("writes from its level up: info by default, warn drops info and debug, silent writes nothing", () => {
    for (const [level, expected] of [
      [undefined, ["error", "warn", "info"]],
      ["warn", ["error", "warn"]],
      ["debug", ["error", "warn", "info", "debug"]],
      ["silent", []],
    ] as const) {
      const { logger, lines } = capture(level);
      logger.error({}, "e");
      logger.warn({}, "w");
      logger.info({}, "i");
      logger.debug({}, "d");
      expect([level, lines.map((l) => l.level)]).toEqual([level, expected]);
    }
  });
});
