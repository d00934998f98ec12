import type { ChildProcess } from "node:child_process";
import type { SystemRun } from "./system.ts";

/** How long the supervisor waits before it starts a worker again that exited on its own. */
const RESTART_AFTER_MS = 1_000;

/**
 * The worker processes of one run, as a process supervisor (systemd, Kubernetes) would keep
 * them: a worker that exits is started again after a second, under a new id
 * (`<slot>.<generation>`), so a system whose worker gives up on a fault is not left without one.
 */
export class WorkerSet {
  readonly #run: SystemRun;
  readonly #children: ChildProcess[] = [];
  readonly #generations: number[] = [];
  #stopping = false;
  /** Workers that exited on their own and were started again. */
  restarts = 0;

  constructor(run: SystemRun, count: number) {
    this.#run = run;
    for (let slot = 0; slot < count; slot++) this.#start(slot);
  }

  /** The id the worker in `slot` reports now. */
  id(slot: number): string {
    return `${slot}.${this.#generations[slot] ?? 0}`;
  }

  /** SIGKILLs the worker in `slot`, waits for its end and starts it again at once. */
  async kill(slot: number): Promise<void> {
    const child = this.#children[slot];
    if (child === undefined) return;
    child.removeAllListeners("exit");
    child.kill("SIGKILL");
    await exited(child);
    this.#start(slot);
  }

  /** SIGSTOP (`frozen` true) or SIGCONT the worker in `slot`. */
  freeze(slot: number, frozen: boolean): void {
    this.#children[slot]?.kill(frozen ? "SIGSTOP" : "SIGCONT");
  }

  /** SIGTERM to every worker, SIGKILL to any still there after `graceMs`. */
  async stop(graceMs = 3_000): Promise<void> {
    this.#stopping = true;
    await Promise.all(
      this.#children.map(async (child) => {
        child.kill("SIGCONT");
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await exited(child);
        clearTimeout(timer);
      }),
    );
  }

  #start(slot: number): void {
    this.#generations[slot] = (this.#generations[slot] ?? -1) + 1;
    const child = this.#run.startWorker(this.id(slot));
    this.#children[slot] = child;
    child.once("exit", () => {
      if (this.#stopping) return;
      this.restarts++;
      setTimeout(() => {
        if (!this.#stopping && this.#children[slot] === child) this.#start(slot);
      }, RESTART_AFTER_MS);
    });
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}
