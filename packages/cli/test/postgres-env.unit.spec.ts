import { isVerqError } from "@verq/core";
import { describe, expect, it } from "vitest";
import { postgresFromEnv } from "../src/common.ts";

const refusal = (env: NodeJS.ProcessEnv): unknown => {
  try {
    postgresFromEnv(env);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("a PostgreSQL store's options from the environment", () => {
  it("sets nothing when nothing is set, and each option from its variable", () => {
    expect(postgresFromEnv({})).toEqual({});
    expect(postgresFromEnv({ VERQ_RECONNECT_MS: "", VERQ_LISTEN_URL: "", VERQ_PREPARED_STATEMENTS: "" })).toEqual({});
    expect(
      postgresFromEnv({ VERQ_RECONNECT_MS: "1500", VERQ_LISTEN_URL: "postgres://db:5432/verq", VERQ_PREPARED_STATEMENTS: "off" }),
    ).toEqual({ reconnectMs: 1500, listenUrl: "postgres://db:5432/verq", preparedStatements: false });
    expect(postgresFromEnv({ VERQ_RECONNECT_MS: "0", VERQ_LISTEN_URL: "none", VERQ_PREPARED_STATEMENTS: "on" })).toEqual({
      reconnectMs: 0,
      listenUrl: null,
      preparedStatements: true,
    });
  });

  it("refuses a value that means nothing as bad input", () => {
    for (const env of [
      { VERQ_RECONNECT_MS: "soon" },
      { VERQ_RECONNECT_MS: "-1" },
      { VERQ_RECONNECT_MS: "1.5" },
      { VERQ_RECONNECT_MS: "9999999999" },
      { VERQ_PREPARED_STATEMENTS: "no" },
    ]) {
      expect(isVerqError(refusal(env), "VERQ_INVALID_ARGUMENT"), JSON.stringify(env)).toBe(true);
    }
  });
});
