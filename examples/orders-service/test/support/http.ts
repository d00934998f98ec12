/** A status and a parsed JSON body. */
export interface JsonAnswer<T = unknown> {
  readonly status: number;
  readonly body: T;
}

/** Sends one HTTP request with a JSON body (or the raw text given) and reads a JSON answer. */
export async function requestJson<T = unknown>(
  method: "GET" | "POST",
  url: string,
  body?: unknown,
  contentType = "application/json",
): Promise<JsonAnswer<T>> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.headers = { "content-type": contentType };
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as T };
}

/** Calls `read` every 25 ms until `done` holds for what it returns; throws after `timeoutMs`. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not there after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
