/** Counts of a bulk run so far, shown beside its bar. */
export type ProgressCounts = Readonly<Record<string, number>>;

/** A long run's progress: a bar on a terminal, nothing otherwise. */
export interface Progress {
  /** `done` of `total` so far, with the run's counts (e.g. redriven, held back, failed); the first call draws the bar. */
  update(done: number, total: number, counts: ProgressCounts): void;
  /** Removes nothing: leaves the last bar on the terminal and ends its line. */
  stop(): void;
}

const NO_PROGRESS: Progress = { update: () => {}, stop: () => {} };

/**
 * A progress bar for items of `label` on stderr, drawn by cli-progress, when stderr is
 * a terminal and the output is not `--json`; otherwise (a pipe, a file, a test) no bar at all,
 * and the command prints only its summary. cli-progress is loaded here, only for a bar.
 */
export async function startProgress(
  label: string,
  options: { readonly json: boolean; readonly stream?: NodeJS.WriteStream },
): Promise<Progress> {
  const stream = options.stream ?? process.stderr;
  if (options.json || stream.isTTY !== true) return NO_PROGRESS;
  const { default: cliProgress } = await import("cli-progress");
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} [{bar}] {value}/{total} {percentage}% | {counts} | ETA {eta_formatted}`,
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  const describe = (counts: ProgressCounts) =>
    Object.entries(counts)
      .map(([name, n]) => `${name} ${n}`)
      .join(", ");
  let started = false;
  return {
    update: (done, total, counts) => {
      if (!started) bar.start(total, 0, { counts: "" });
      else bar.setTotal(total);
      started = true;
      bar.update(Math.min(done, total), { counts: describe(counts) });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
