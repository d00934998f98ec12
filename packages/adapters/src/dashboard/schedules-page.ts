import { dueSlot, scheduleDueSlot, type Schedule } from "@verq/core";
import { dataTable, num } from "./data-table.ts";
import { html } from "./html.ts";
import { page, time, type DashboardPaths } from "./page-shell.ts";

/** How far ahead `/schedules` looks for a schedule's next slot: five years, past any cron's leap day. */
const HORIZON_MS = 5 * 366 * 86_400_000;

/**
 * The first slot of `schedule` after `now`, or null when it has none within five years (or is
 * removed). Read through core's missed-slot policy (`dueSlot`): of the slots in a range, it names
 * the earliest one skipped and the latest, so the earliest of the range after `now` is the next.
 */
export function nextSlot(schedule: Schedule, now: number): number | null {
  if (schedule.state !== "active") return null;
  const due = dueSlot(schedule.cron, schedule.timezone, now + 1, now + HORIZON_MS);
  return due === null ? null : (due.firstMissed ?? due.slot);
}

/**
 * `/schedules`: every schedule, active and removed, in name order: its cron expression and
 * timezone, its queue, its next slot, the slot due now that no scheduler enqueued yet, the
 * last slot enqueued and how many were. The missed-slot policy is core's: of the slots missed
 * while no scheduler ran, only the latest is enqueued.
 */
export function schedulesPage(paths: DashboardPaths, at: number, schedules: readonly Schedule[]): string {
  const rows = schedules.map((s) => {
    const due = s.state === "active" ? scheduleDueSlot(s, at) : null;
    return html`<tr data-schedule="${s.name}">
      <td><code>${s.name}</code></td>
      <td><span class="badge ${s.state}">${s.state}</span></td>
      <td data-col="cron"><code>${s.cron}</code> <span class="muted">${s.timezone}</span></td>
      <td data-col="queue">
        <a href="${paths.list("jobs", { queue: s.queue })}"><code>${s.queue}</code></a>
      </td>
      <td data-col="next">${time(nextSlot(s, at))}</td>
      <td data-col="due">${due === null ? "—" : time(due.slot)}</td>
      <td data-col="last">${time(s.lastSlot)}</td>
      <td class="num" data-col="fired">${s.fired}</td>
    </tr>`;
  });
  return page(
    paths,
    "Schedules",
    at,
    html`<section id="schedules">
      <h2>Schedules</h2>
      <p class="note">
        Each slot of a schedule enqueues one job (its id made of the schedule's name and the slot). Policy for missed slots: of
        the slots that fell while no scheduler ran, only the latest is enqueued; "due now" is a slot no scheduler has enqueued
        yet.
      </p>
      ${dataTable(
        "schedules-table",
        ["name", "state", "cron", "queue", "next slot", "due now", "last fired", num("fired")],
        rows,
        { id: "schedules-empty", text: "No schedule." },
      )}
    </section>`,
  );
}
