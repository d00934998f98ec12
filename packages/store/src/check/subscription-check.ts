import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import { selectCheckpointsAhead } from "../sql/check/selectCheckpointsAhead.ts";
import type { Report } from "./finding.ts";

/**
 * A subscriber's checkpoint past the newest event (`CHECKPOINT_AHEAD`): the log was restored from
 * an older backup, or the checkpoint written behind verq. Positions are never handed out twice,
 * so such a subscriber would pass over every event up to its checkpoint without a word.
 */
export async function checkSubscriptions(db: Kysely<VerqDatabase>, report: Report): Promise<void> {
  for (const ahead of await selectCheckpointsAhead(db))
    report(
      "CHECKPOINT_AHEAD",
      `subscription/${ahead.name}`,
      `checkpoint ${ahead.position} is past the newest event ${ahead.newest}`,
    );
}
