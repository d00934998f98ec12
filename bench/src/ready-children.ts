import { spawn } from "node:child_process";

/** A child that printed "ready" and waits for "go" on stdin. */
export interface ReadyChild {
  /** Resolves with everything the child printed, once it exits with code 0 (rejects otherwise). */
  readonly exited: Promise<string>;
  go(): void;
  /** What the child printed so far (a child that runs until stopped reports its progress here). */
  output(): string;
  /** Asks a child that runs until stopped to stop (SIGTERM); it reports and exits with code 0. */
  stop(): void;
}

/**
 * Starts `script` in `count` child processes with the same loader as this process (so `.ts`
 * runs), waits until each has printed "ready", and returns them: a measurement starts every
 * child at once with `go()` after the start-up costs are paid.
 */
export async function startReadyChildren(
  script: string,
  argsFor: (index: number) => readonly string[],
  count: number,
): Promise<ReadyChild[]> {
  const children = Array.from({ length: count }, (_, i) => {
    const child = spawn(process.execPath, [...process.execArgv, script, ...argsFor(i)], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        if (out.includes("ready\n")) resolve();
      });
      child.once("error", reject);
      child.once("close", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    });
    const exited = new Promise<string>((resolve, reject) =>
      child.once("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited with ${code}`)))),
    );
    // Awaited after `go()`; until then a failure is reported by `ready`, not as an unhandled rejection.
    exited.catch(() => undefined);
    return { ready, exited, go: () => child.stdin.end("go\n"), output: () => out, stop: () => child.kill("SIGTERM") };
  });
  await Promise.all(children.map((c) => c.ready));
  return children.map(({ exited, go, output, stop }) => ({ exited, go, output, stop }));
}
