import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Types flow from a kind's schema to `enqueue` and to the handler: the compiler itself is run on a
// small program (the repository's compiler options and paths, the store's sources, zod's types),
// once as written and once with one deliberate misuse, and must report exactly that misuse.
// job-kinds.types.ts holds the other misuses as `@ts-expect-error` lines that `pnpm typecheck` checks.

const ROOT = path.resolve(import.meta.dirname, "../../..");
/** Where the snippet pretends to live: beside the tests, so `../src/index.ts` and `zod` resolve as they do here. */
const SNIPPET = path.join(import.meta.dirname, "kind-misuse.snippet.ts");

const program = (misuse: string) => `
import { z } from "zod";
import { JobWorker, defineJobKind, type JobQueue } from "../src/index.ts";
const sendEmail = defineJobKind({ name: "send-email", schema: z.object({ to: z.string().email() }) });
export async function run(queue: JobQueue): Promise<void> {
  await queue.enqueue(sendEmail, { to: "ada@example.com" });
  new JobWorker(queue, { owner: "w1", handlers: [sendEmail.handler((job) => job.payload.to.length > 0)] });
  ${misuse}
}
`;

const PARSED = new Map<string, ts.SourceFile>();

/** The compiler's diagnostics of the snippet (not of the files it imports), as `line: message`. */
function diagnostics(source: string): string[] {
  const config = ts.readConfigFile(path.join(ROOT, "tsconfig.json"), (file) => ts.sys.readFile(file));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, ...rest) => {
    if (path.resolve(fileName) === SNIPPET) return ts.createSourceFile(fileName, source, version);
    // The imported files are parsed once for every program of this file.
    const parsed = PARSED.get(fileName) ?? getSourceFile(fileName, version, ...rest);
    if (parsed !== undefined) PARSED.set(fileName, parsed);
    return parsed;
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => path.resolve(fileName) === SNIPPET || fileExists(fileName);
  const compiled = ts.createProgram({ rootNames: [SNIPPET], options: { ...options, noEmit: true }, host });
  const file = compiled.getSourceFile(SNIPPET);
  // The snippet's own diagnostics only: the checker then reads no more of the imported files than it needs.
  return [...compiled.getSyntacticDiagnostics(file), ...compiled.getSemanticDiagnostics(file)].map((d) => {
    const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
    return `${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

describe("job kinds' types, by the compiler", () => {
  it("a kind's enqueue and handler compile; a payload field of the wrong type fails tsc, at that line, for that field", () => {
    expect(diagnostics(program(""))).toEqual([]);
    const [problem, ...others] = diagnostics(program(`await queue.enqueue(sendEmail, { to: 1 });`));
    expect(others).toEqual([]);
    expect(problem).toMatch(/^8: No overload matches this call/);
    expect(problem).toContain("Type 'number' is not assignable to type 'string'");
  });

  it("a handler that reads a field the schema does not have fails tsc", () => {
    const misuse = `sendEmail.handler((job) => job.payload.cc === "x");`;
    expect(diagnostics(program(misuse))).toEqual(["8: Property 'cc' does not exist on type '{ to: string; }'."]);
  });
});
