import type { VerqStore } from "@verq/store";

/** Text of an attribute or element as the page escaped it, back to what it was. */
export const unescapeHtml = (text: string): string =>
  text
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");

/** The `next-page` link of a listing, unescaped, or null on its last page. */
export const nextLink = (body: string): string | null => {
  const href = /<a id="next-page" rel="next" href="([^"]+)"/.exec(body)?.[1];
  return href === undefined ? null : unescapeHtml(href);
};

/** The values of `attribute` on the rows of the table `tableId`, in order, unescaped. */
export function rowKeys(body: string, tableId: string, attribute: string): string[] {
  const table = new RegExp(`<table id="${tableId}">([\\s\\S]*?)</table>`).exec(body)?.[1] ?? "";
  return [...table.matchAll(new RegExp(`<tr ${attribute}="([^"]*)">`, "g"))].map((m) => unescapeHtml(m[1] ?? ""));
}

/** Every page of a listing from `first`, following its next-page links: each page's body. */
export async function walkPages(
  get: (path: string) => Promise<{ status: number; body: string }>,
  first: string,
): Promise<string[]> {
  const bodies: string[] = [];
  for (let path: string | null = first; path !== null;) {
    const page = await get(path);
    if (page.status !== 200) throw new Error(`${path} answered ${page.status}: ${page.body.slice(0, 400)}`);
    bodies.push(page.body);
    if (bodies.length > 50) throw new Error(`${first} has more than 50 pages`);
    path = nextLink(page.body);
  }
  return bodies;
}

/** A `jobs` row with the columns the listings filter and order by, as numbers where they are. */
export interface JobKeysRow {
  readonly id: string;
  readonly state: string;
  readonly queue: string;
  readonly kind: string | null;
  readonly reason: string | null;
  readonly priority: number;
  readonly availableAt: number;
  readonly leaseUntil: number;
  readonly updatedAt: number;
  readonly deadSince: number;
  readonly position: number;
}

/** Every job of the store with its keys, read from the projection: what a listing must show. */
export async function allJobKeys(store: VerqStore): Promise<JobKeysRow[]> {
  const rows = await store.db
    .selectFrom("jobs")
    .select([
      "id",
      "state",
      "queue",
      "kind",
      "reason",
      "priority",
      "available_at",
      "lease_until",
      "updated_at",
      "dead_since",
      "enqueue_position",
    ])
    .execute();
  return rows.map((r) => ({
    id: r.id,
    state: r.state,
    queue: r.queue,
    kind: r.kind,
    reason: r.reason,
    priority: Number(r.priority),
    availableAt: Number(r.available_at),
    leaseUntil: Number(r.lease_until),
    updatedAt: Number(r.updated_at),
    deadSince: Number(r.dead_since),
    position: Number(r.enqueue_position),
  }));
}

const cmp = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);

/** The documented order of `/jobs` for a state (or none), as a comparator of rows. */
export function documentedOrder(state: string | undefined): (a: JobKeysRow, b: JobKeysRow) => number {
  switch (state) {
    case "pending":
      return (a, b) =>
        cmp(a.queue, b.queue) || cmp(b.priority, a.priority) || cmp(a.availableAt, b.availableAt) || cmp(a.position, b.position);
    case "leased":
      return (a, b) => cmp(a.queue, b.queue) || cmp(a.leaseUntil, b.leaseUntil) || cmp(a.position, b.position);
    case "done":
      return (a, b) => cmp(b.updatedAt, a.updatedAt) || cmp(b.id, a.id);
    case "dead":
      return (a, b) => cmp(b.deadSince, a.deadSince) || cmp(b.id, a.id);
    default:
      return (a, b) => cmp(a.id, b.id);
  }
}
