/**
 * The account behind the test core (SPEC G9): deliberately **not** idempotent. Every processed
 * transfer debits again, even with a GUID it has seen; the calls per GUID are counted so a test
 * can judge the relay by "no GUID debited twice". It remembers the first answer per GUID for
 * the inquiry API. In memory, synchronous, no I/O: the HTTP test core and the in-process cores
 * of the property tests share it.
 */
export class TestBank {
  #balance: number;
  #seq = 0;
  readonly #calls = new Map<string, number>();
  readonly #answers = new Map<string, string>();
  readonly #requests = new Map<string, string[]>();

  constructor(openingBalance = 1_000_000) {
    this.#balance = openingBalance;
  }

  /**
   * Processes one transfer request (its exact text) and returns the answer text, or `null` when
   * the text is not a JSON object with a string `guid` (nothing processed). `amount` (a
   * positive whole number) is debited and answered `0000`; more than the balance is `B201`
   * (insufficient funds, no debit); a missing or malformed amount is `E500`. Each answer
   * carries a sequence number, so two processings of one GUID never answer alike.
   */
  process(request: string): string | null {
    let body: unknown;
    try {
      body = JSON.parse(request) as unknown;
    } catch {
      return null;
    }
    if (typeof body !== "object" || body === null || typeof (body as { guid?: unknown }).guid !== "string") return null;
    const { guid, amount } = body as { guid: string; amount?: unknown };
    this.#calls.set(guid, (this.#calls.get(guid) ?? 0) + 1);
    this.#requests.set(guid, [...(this.#requests.get(guid) ?? []), request]);
    const seq = ++this.#seq;
    let code: string;
    if (typeof amount !== "number" || !Number.isSafeInteger(amount) || amount <= 0) code = "E500";
    else if (amount > this.#balance) code = "B201";
    else {
      this.#balance -= amount;
      code = "0000";
    }
    const answer = JSON.stringify({ guid, code, balance: this.#balance, seq });
    if (!this.#answers.has(guid)) this.#answers.set(guid, answer);
    return answer;
  }

  /** The first answer given for `guid`, byte for byte, or `null` when it was never processed. */
  inquire(guid: string): string | null {
    return this.#answers.get(guid) ?? null;
  }

  /** How many times `guid` was processed (debited or answered). */
  calls(guid: string): number {
    return this.#calls.get(guid) ?? 0;
  }

  /** The exact texts processed for `guid`, in order. */
  requests(guid: string): readonly string[] {
    return this.#requests.get(guid) ?? [];
  }

  /** Every GUID processed, with its count. */
  callsByGuid(): ReadonlyMap<string, number> {
    return new Map(this.#calls);
  }

  /** Processings in all. */
  get totalCalls(): number {
    return this.#seq;
  }

  get balance(): number {
    return this.#balance;
  }
}
