import fc from "fast-check";
import { checkInvariants } from "./check-invariants.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { WORKERS, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";

/**
 * J5/J8: a worker dies without finishing: it forgets every claim it held. Nothing is written;
 * its leases stay until they expire and a later claim takes the jobs over.
 */
export class WorkerDiesCommand implements JobsCommand {
  constructor(readonly worker: string) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc.constantFrom(...WORKERS).map((w) => new WorkerDiesCommand(w));
  }

  check(m: Readonly<JobsModel>): boolean {
    return m.held.some((c) => c.worker === this.worker);
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    m.held = m.held.filter((c) => c.worker !== this.worker);
    await checkInvariants(m, r);
  }

  toString(): string {
    return `workerDies(${this.worker})`;
  }
}
