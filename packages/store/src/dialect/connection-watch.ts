import { VerqError } from "@verq/core";

/** `VERQ_NESTED_TRANSACTION`: a call waited `stallMs` for the store's one connection while its holder ran no statement. */
export function nestedTransaction(stallMs: number): VerqError {
  return new VerqError(
    "VERQ_NESTED_TRANSACTION",
    `this call waited ${stallMs} ms for the SQLite store's one connection, and the transaction that holds it ran no statement meanwhile: a call made inside store.transaction(work) without the trx work receives waits for ever. Pass it, { trx } (e.g. queue.enqueue(input, { trx })), or make the call before or after the transaction; and do no slow work outside the database inside a transaction. Nothing of this call was done.`,
  );
}

/**
 * The store's one SQLite connection, watched for a holder that cannot go on. A call made inside
 * `store.transaction(work)` without the `trx` it was handed asks for the connection that `work`
 * itself holds: it would wait for ever, and `work` with it. A call that finds the connection held
 * waits as before, but when its holder runs no statement for `stallMs` (the store's
 * `busyTimeoutMs`, as long as a call waits for another process's write lock) it fails with
 * `VERQ_NESTED_TRANSACTION`, which says to pass `{ trx }`. A holder that runs statements is making
 * progress: its waiters wait on. Nothing is paid while the connection is free: a counter per
 * statement, a flag per acquisition.
 */
export class ConnectionWatch {
  readonly #stallMs: number;
  /** Statements run on the connection so far: what tells a holder that goes on from one that waits. */
  #statements = 0;
  #held = false;

  constructor(stallMs: number) {
    this.#stallMs = stallMs;
  }

  /** Counts one statement run on the connection. */
  ran(): void {
    this.#statements++;
  }

  /** The connection from `acquire` (the driver's own); while it is held, watched as the class says. */
  async acquire<C>(acquire: () => Promise<C>, release: (connection: C) => Promise<void>): Promise<C> {
    const connection = this.#held ? await this.#waitFor(acquire, release) : await acquire();
    this.#held = true;
    return connection;
  }

  /** The connection went back to the driver. */
  released(): void {
    this.#held = false;
  }

  #waitFor<C>(acquire: () => Promise<C>, release: (connection: C) => Promise<void>): Promise<C> {
    return new Promise<C>((resolve, reject) => {
      let seen = this.#statements;
      let abandoned = false;
      const watch = setInterval(() => {
        if (this.#statements !== seen) {
          seen = this.#statements;
          return;
        }
        abandoned = true;
        clearInterval(watch);
        reject(nestedTransaction(this.#stallMs));
      }, this.#stallMs);
      acquire().then(
        (connection) => {
          clearInterval(watch);
          // Given up on: the connection goes straight back, to the next waiter.
          if (abandoned) void release(connection);
          else resolve(connection);
        },
        (error: unknown) => {
          clearInterval(watch);
          // The driver's own failure, passed on as it is.
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          if (!abandoned) reject(error);
        },
      );
    });
  }
}
