import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** One message file of a fixture: its name and its exact text. */
export interface FixtureFile {
  readonly name: string;
  readonly text: string;
}

const message = (msgId: string, orderNo: string, seq: number, amount: number, minute: number) =>
  JSON.stringify({
    msg_id: msgId,
    order_no: orderNo,
    seq,
    amount,
    currency: "JPY",
    sent_at: `2026-01-05T09:${String(minute).padStart(2, "0")}:00Z`,
  });

/**
 * The course's situation (SPEC F4), rebuilt: 20 files in the inbox. 15 distinct valid
 * messages over six orders, every order's `seq` running 1, 2, … without a gap; 3 of them sent
 * again by the channel under new file names (`M004`, `M009`, `M013`: the same `msg_id`, the
 * same content); one file cut off mid-JSON (`parse`); one without `amount` (`missing-field`).
 * A consumer must end with 18 in `done/`, 2 in `error/`, 15 rows in `processed`, the duplicates
 * `M004`, `M009`, `M013`, and an order check that says `OK`.
 */
export const COURSE_FIXTURE: readonly FixtureFile[] = [
  { name: "msg-001.json", text: message("M001", "O-1001", 1, 1200, 1) },
  { name: "msg-002.json", text: message("M002", "O-1002", 1, 3000, 2) },
  { name: "msg-003.json", text: message("M003", "O-1001", 2, 800, 3) },
  { name: "msg-004.json", text: message("M004", "O-1003", 1, 450, 4) },
  { name: "msg-005.json", text: message("M005", "O-1002", 2, 150, 5) },
  { name: "msg-006.json", text: message("M004", "O-1003", 1, 450, 4) }, // resent
  { name: "msg-007.json", text: message("M006", "O-1001", 3, 2400, 7) },
  { name: "msg-008.json", text: message("M007", "O-1003", 2, 980, 8) },
  { name: "msg-009.json", text: message("M008", "O-1004", 1, 5000, 9) },
  { name: "msg-010.json", text: '{"msg_id": "M017", "order_no": "O-1007", "seq": 1, "amount": 7' }, // cut off: parse
  { name: "msg-011.json", text: message("M009", "O-1003", 3, 330, 11) },
  { name: "msg-012.json", text: message("M010", "O-1004", 2, 620, 12) },
  { name: "msg-013.json", text: message("M009", "O-1003", 3, 330, 11) }, // resent
  { name: "msg-014.json", text: message("M011", "O-1005", 1, 1500, 14) },
  {
    name: "msg-015.json",
    text: JSON.stringify({ msg_id: "M018", order_no: "O-1008", seq: 1, currency: "JPY", sent_at: "2026-01-05T09:15:00Z" }),
  }, // no amount
  { name: "msg-016.json", text: message("M012", "O-1003", 4, 210, 16) },
  { name: "msg-017.json", text: message("M013", "O-1005", 2, 760, 17) },
  { name: "msg-018.json", text: message("M014", "O-1006", 1, 9900, 18) },
  { name: "msg-019.json", text: message("M013", "O-1005", 2, 760, 17) }, // resent
  { name: "msg-020.json", text: message("M015", "O-1005", 3, 440, 20) },
];

/** The figures the course fixture must give (SPEC F4, F5). */
export const COURSE_EXPECTED = {
  files: 20,
  done: 18,
  error: 2,
  processed: 15,
  duplicates: ["M004", "M009", "M013"],
  errors: [
    { file: "msg-010.json", reason: "parse" },
    { file: "msg-015.json", reason: "missing-field" },
  ],
} as const;

/** Writes `files` into the folder `inbox` (which must exist). */
export function writeFixture(inbox: string, files: readonly FixtureFile[] = COURSE_FIXTURE): void {
  for (const f of files) writeFileSync(join(inbox, f.name), f.text);
}
