import type { Message, MessageDecision } from "@verq/core";
import { filesFail, type FilesWorld } from "./files-world.ts";

const json = (value: unknown): string => JSON.stringify(value);

/**
 * The property: what a `FileLedger` method wrote for stream `id` is exactly what the real
 * message machine decides for the same command from the same message. `before` is the model's
 * message (checked against the store first, so both decide from the same one); `expected` is
 * `decideMessage(before, command)`. After the method ran, the log holds `expected.events` at the
 * versions after `before`'s and nothing else (none when refused), and the `messages` row is
 * `expected.after` (unchanged when refused). `tag` names the method (`settle`, `replay`).
 */
export async function checkDecided(
  world: FilesWorld,
  tag: string,
  id: string,
  before: Message,
  expected: MessageDecision,
  eventsBefore: number,
): Promise<void> {
  const written = (await world.ledger.history(id)).slice(before.version);
  const want = expected.accepted ? expected.events : [];
  const got = written.map((e) => ({ type: e.type, data: e.data }));
  if (json(got) !== json(want) || (await world.store.countEvents()) !== eventsBefore + want.length) {
    filesFail(
      `${tag} events`,
      `${tag} of stream ${id} (${before.state}, v${before.version}) wrote ${json(got)}; the machine decides ${expected.accepted ? json(want) : `nothing (${expected.refusal})`}`,
    );
  }
  const row = await world.ledger.get(id);
  const rowWant = expected.accepted ? expected.after : before.version === 0 ? null : before;
  if (json(row) !== json(rowWant))
    filesFail(`${tag} projection`, `messages row of ${id} is ${json(row)}, expected ${json(rowWant)}`);
  if (expected.accepted) world.messages.set(id, expected.after);
}

/** The model's message and the store's row agree before a command is decided from it. */
export async function checkSameMessage(world: FilesWorld, id: string, before: Message): Promise<void> {
  const row = await world.ledger.get(id);
  const want = before.version === 0 ? null : before;
  if (json(row) !== json(want)) filesFail("model", `stream ${id} is ${json(row)} in the store, ${json(want)} in the model`);
}
