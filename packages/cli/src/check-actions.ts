import { checkStore, formatFinding } from "@verq/store";
import { READ_ONLY, counted, parseWholeNumber, runCommand, withStore } from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import type { DbOptions } from "./options.ts";
import type { CliContext } from "./output.ts";
import { loadStreams, type StreamsOptions } from "./streams-module.ts";

/*
 * The action of `verq check`, loaded by ./check-commands.ts when it runs: the store, nothing else.
 */

/** The options of `verq check`. */
export interface CheckCommandOptions extends DbOptions, StreamsOptions {
  readonly batchSize: string;
}

/**
 * `verq check`: reads every stream and projection of the store and prints one line per finding
 * (`CODE stream detail`) as it is found, then a summary; exit 0 when clean, 1 with findings. With
 * `--json`, one object: `{"ok","findings":[{code,stream,detail}],"checked":{…}}`. A SQLite file
 * that does not exist is exit 4 and is not created. With `--streams`, each stream of a declared
 * type is folded through its definition (upcast) and compared with its `stream_states` row.
 */
export const check = (context: CliContext, o: CheckCommandOptions): Promise<void> =>
  runCommand(context, o, async () => {
    const batchSize = parseWholeNumber(o.batchSize, "--batch-size", { min: 1, max: 10_000 });
    const definitions = await loadStreams(o.streams);
    const json = o.json === true;
    return withStore(
      o.db,
      async (store) => {
        const report = await checkStore(store, {
          batchSize,
          ...(definitions.length === 0 ? {} : { streams: definitions }),
          ...(json ? {} : { onFinding: (finding) => context.io.out(formatFinding(finding)) }),
        });
        const { streams, events } = report.checked;
        const checked = `${counted(streams, "stream")}, ${counted(events, "event")}`;
        if (json) context.io.out(JSON.stringify(report));
        else if (report.ok) context.io.out(`ok: ${checked} checked`);
        else context.io.err(`verq: check found ${counted(report.findings.length, "problem")} in ${checked}`);
        return report.ok ? EXIT.ok : EXIT.failed;
      },
      READ_ONLY,
    );
  });
