import { readFileSync } from "node:fs";
import { join } from "node:path";
import { VERQ_ERROR_CODES, VerqError, type VerqErrorCode } from "@verq/core";
import { describe, expect, it } from "vitest";
import { exitCodeOf } from "../src/output.ts";

/*
 * docs/cli.md lists every code of VERQ_ERROR_CODES, in its order, with the exit code the CLI
 * gives it: a new code that is not in the docs' list, or whose exit code the docs do not say,
 * fails here.
 */

const DOCS = join(import.meta.dirname, "..", "..", "..", "docs", "cli.md");

/** The rows of the table between `<!-- verq:error-codes -->` and `<!-- /verq:error-codes -->`: code and exit code. */
function documentedCodes(): { code: string; exit: number }[] {
  const block = /<!-- verq:error-codes -->\n([\s\S]*?)<!-- \/verq:error-codes -->/.exec(readFileSync(DOCS, "utf8"))?.[1];
  if (block === undefined) throw new Error("docs/cli.md has no verq:error-codes block");
  return block
    .split("\n")
    .map((line) => /^\| `(VERQ_[A-Z0-9_]+)` \| (\d+) \| .+ \|$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ code: match[1] as string, exit: Number(match[2]) }));
}

describe("the error codes of docs/cli.md", () => {
  it("are VERQ_ERROR_CODES, in order, each with the exit code the CLI gives it", () => {
    expect(documentedCodes()).toEqual(VERQ_ERROR_CODES.map((code) => ({ code, exit: exitCodeOf(new VerqError(code, "m")) })));
  });

  it("give a store that is not there and an unknown queue exit 4; a table conflict, a port in use and the unexpected exit 1", () => {
    const exitOf = (code: VerqErrorCode) => exitCodeOf(new VerqError(code, "m"));
    const codes: VerqErrorCode[] = [
      "VERQ_STORE_NOT_INITIALIZED",
      "VERQ_UNKNOWN_QUEUE",
      "VERQ_TABLE_CONFLICT",
      "VERQ_PORT_IN_USE",
    ];
    expect(codes.map(exitOf)).toEqual([4, 4, 1, 1]);
    expect(exitOf("VERQ_UNEXPECTED")).toBe(exitCodeOf(new Error("not a verq error")));
  });
});
