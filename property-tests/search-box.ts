import fc from "fast-check";

type RunOutcome = fc.PreconditionFailure | fc.PropertyFailure | null;

/**
 * A fast-check plugin that stops a search `boxMs` after it starts: the first run always runs, a
 * run that would begin after the box does not, and the search ends as interrupted (a pass, when
 * nothing failed). Unlike `fc.interruptAfterTimeLimit`, it never abandons a run that has begun
 * (a model run holds a database: left running, it would race the next test for it), and once a
 * run has failed it stands aside, so that the failure is shrunk as fully as after any other
 * search (bounding the shrinking is `interruptAfterTimeLimit`'s job).
 */
export function searchBox<Ts>(boxMs: number): fc.Plugin<Ts> {
  return () => {
    const ends = Date.now() + boxMs;
    let failed = false;
    let isAsync: boolean | undefined;
    const seen = (out: RunOutcome): RunOutcome => {
      if (out !== null && !fc.PreconditionFailure.isFailure(out)) failed = true;
      return out;
    };
    return {
      decorateRun: (run) => (value) => {
        // A sync property's run must answer synchronously: which kind this is, the first run tells.
        if (isAsync !== undefined && !failed && Date.now() >= ends) {
          const stop = new fc.PreconditionFailure(true);
          return isAsync ? Promise.resolve(stop) : stop;
        }
        const out: RunOutcome | Promise<RunOutcome> = run(value);
        isAsync = out !== null && "then" in out;
        return out !== null && "then" in out ? out.then(seen) : seen(out);
      },
    };
  };
}
