import { GUIDS, RESEND_WINDOW_MS, channelText, type SendVariant } from "./relay-scenario.ts";
import { RelayDied, type RelayWorld } from "./relay-world.ts";

/**
 * The channel sends (or resends) a transfer. It resends a GUID only within its resend window
 * after the first send (SPEC G7); a relay that dies leaves it without an answer.
 */
export async function sendAction(world: RelayWorld, action: { guid: number; variant: SendVariant }): Promise<void> {
  const guid = GUIDS[action.guid] ?? "g0";
  const now = world.clock.now();
  const first = world.firstSend.get(guid);
  if (first !== undefined && now - first > RESEND_WINDOW_MS) return;
  if (first === undefined) world.firstSend.set(guid, now);
  const text = channelText(guid, action.variant);
  try {
    world.answers.push({ guid, text, reply: await world.relay.transfer(text) });
  } catch (error) {
    if (!(error instanceof RelayDied)) throw error;
    world.answers.push({ guid, text, reply: null });
  }
}
