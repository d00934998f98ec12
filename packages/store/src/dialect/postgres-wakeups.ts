import { createHash, randomUUID } from "node:crypto";
import { sql } from "kysely";
import pg from "pg";
import type { WakeupTopic, Wakeups } from "./wakeups.ts";

/**
 * The channel of a topic for the stores that share one search path (and so one set of tables):
 * stores in other schemas of the same database never wake each other. A hash keeps the name a
 * plain identifier within PostgreSQL's 63 bytes.
 */
const channelName = (topic: WakeupTopic, scope: string): string =>
  `verq_${topic}_${createHash("sha256").update(scope).digest("hex").slice(0, 16)}`;

/** Pause before listening again after the listening connection was lost. */
const RELISTEN_MS = 500;

/**
 * How often the listening connection is asked whether its server still takes writes: a
 * connection kept open across a failover (a load balancer, a cloud database's writer and reader
 * swapped behind one name) may reach a replica, where no NOTIFY is ever sent, or hang half-open.
 */
const CHECK_MS = 5_000;

/**
 * Wake-ups over PostgreSQL's `LISTEN`/`NOTIFY`: `notify` runs `pg_notify` in the caller's
 * transaction (so it is sent on commit only), `subscribe` shares one dedicated connection per
 * store that LISTENs on the topic's channel, opened at the first subscriber, closed with the
 * last, and opened again after it is lost (a restart, `pg_terminate_backend`). While it is down
 * the listeners hear nothing, which polling covers. `wakeHere` calls the store's own listeners
 * at once; an announcement made for the others only carries this store's own id, which its own
 * listening connection passes over, so that they are not woken twice for one commit. `scope`
 * is the connections' search path: only stores with the same one hear each other.
 *
 * The listening connection must reach the primary: one that reaches a server in recovery (a
 * replica, as after a failover) is closed and opened again until it reaches one that is not, and
 * every `CHECK_MS` the open one is asked again. After it was lost, every listener is woken once,
 * for what was announced meanwhile. With `config` null (a store behind a pooler in transaction
 * mode, whose connections cannot LISTEN, and no direct URL to listen on) nothing listens: the
 * store's own listeners are woken by its own commits, other processes' by their polling.
 */
export function postgresWakeups(config: pg.ClientConfig | null, scope: string): Wakeups {
  // Named once per topic: every enqueue asks.
  const channels = new Map<WakeupTopic, string>();
  const channelOf = (topic: WakeupTopic) => {
    let channel = channels.get(topic);
    if (channel === undefined) channels.set(topic, (channel = channelName(topic, scope)));
    return channel;
  };
  const listeners = new Map<string, Set<() => void>>();
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let check: NodeJS.Timeout | null = null;
  // Whether a listening connection was ever open: one opened after it was lost wakes every listener.
  let listened = false;
  const self = randomUUID();
  const notification = (topic: WakeupTopic, othersOnly: boolean) => ({
    channel: channelOf(topic),
    payload: othersOnly ? self : "",
  });

  const wake = (channel: string) => {
    for (const listener of listeners.get(channel) ?? []) listener();
  };
  const deliver = (message: pg.Notification) => {
    if (message.payload !== self) wake(message.channel);
  };
  const total = () => [...listeners.values()].reduce((n, set) => n + set.size, 0);

  const disconnect = async () => {
    const current = client;
    client = null;
    if (check !== null) clearInterval(check);
    check = null;
    if (current !== null) await current.end().catch(() => {});
  };

  /** True when the server of `connection` is in recovery (a replica): no commit there sends a NOTIFY. */
  const inRecovery = async (connection: pg.Client) =>
    (await connection.query<{ recovery: boolean }>("select pg_is_in_recovery() as recovery")).rows[0]?.recovery !== false;

  /** Asks the open connection whether it still reaches a primary; if not (or no answer), listens again elsewhere. */
  const recheck = (connection: pg.Client) => {
    inRecovery(connection).then(
      (recovery) => {
        if (recovery && client === connection) void disconnect().then(schedule);
      },
      () => {
        if (client === connection) void disconnect().then(schedule);
      },
    );
  };

  const connect = (): Promise<void> => {
    if (config === null) return Promise.resolve();
    connecting ??= (async () => {
      const next = new pg.Client(config);
      next.on("notification", deliver);
      next.on("error", () => {
        if (client === next) client = null;
        void next.end().catch(() => {});
        schedule();
      });
      try {
        await next.connect();
        if (await inRecovery(next)) throw new Error("the server is in recovery: its commits send no NOTIFY");
        for (const channel of listeners.keys()) await next.query(`listen ${channel}`);
        if (closed || total() === 0) {
          await next.end();
          return;
        }
        client = next;
        check = setInterval(() => recheck(next), CHECK_MS);
        check.unref();
        // What was announced while nobody listened: every listener looks once.
        if (listened) for (const channel of listeners.keys()) wake(channel);
        listened = true;
      } catch {
        await next.end().catch(() => {});
        schedule();
      } finally {
        connecting = null;
      }
    })();
    return connecting;
  };

  const schedule = () => {
    if (closed || retry !== null || total() === 0) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, RELISTEN_MS);
    retry.unref();
  };

  return {
    reachesOwnSubscribers: config !== null,
    async notify(trx, topic, othersOnly = false) {
      const { channel, payload } = notification(topic, othersOnly);
      await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
    },
    notification,
    wakeHere: (topic) => wake(channelOf(topic)),
    subscribe(topic, listener) {
      const channel = channelOf(topic);
      let set = listeners.get(channel);
      const fresh = set === undefined;
      if (set === undefined) listeners.set(channel, (set = new Set()));
      set.add(listener);
      if (client === null) void connect();
      else if (fresh) void client.query(`listen ${channel}`).catch(() => {});
      return () => {
        set.delete(listener);
        if (total() === 0) void disconnect();
      };
    },
    async close() {
      closed = true;
      if (retry !== null) clearTimeout(retry);
      await connecting;
      await disconnect();
    },
  };
}
