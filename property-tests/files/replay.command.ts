import type fc from "fast-check";
import { decideMessage, messageCommands } from "@verq/core";
import { checkDecided, checkSameMessage } from "./check-decided.ts";
import type { FilesCommand } from "./files-command.ts";
import { fileNames, filesFail, openMessage, type FilesWorld } from "./files-world.ts";

/**
 * `FileLedger.replay` (`files replay`, SPEC F8) of a file name: for the latest message under
 * that name in the inbox or in error, the ledger must write exactly what `decideMessage` decides
 * for `message.replay` and answer the message after, or null when refused or when no message
 * has that name (and write nothing).
 */
export class ReplayCommand implements FilesCommand {
  constructor(readonly file: string) {}

  static arbitrary(): fc.Arbitrary<FilesCommand> {
    return fileNames().map((file) => new ReplayCommand(file));
  }

  check(): boolean {
    return true;
  }

  async run(m: FilesWorld): Promise<void> {
    m.clock.advance(1);
    const eventsBefore = await m.store.countEvents();
    const open = openMessage(m, this.file, false);
    if (open !== null) await checkSameMessage(m, open.id, open);
    const result = await m.ledger.replay(this.file);
    if (open === null) {
      if (result !== null || (await m.store.countEvents()) !== eventsBefore) {
        filesFail("replay events", `replay of ${this.file}, which no message has, answered ${JSON.stringify(result)}`);
      }
      return;
    }
    const expected = decideMessage(open, messageCommands.replay({ file: this.file, now: m.clock.now() }));
    await checkDecided(m, "replay", open.id, open, expected, eventsBefore);
    const want = expected.accepted ? expected.after : null;
    if (JSON.stringify(result) !== JSON.stringify(want)) {
      filesFail("replay result", `replay of ${this.file} answered ${JSON.stringify(result)}, expected ${JSON.stringify(want)}`);
    }
  }

  toString(): string {
    return `replay(${this.file})`;
  }
}
