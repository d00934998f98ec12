import type { OrderEventView, OrderView } from "../../src/order-view.ts";

/** A status and a parsed JSON body. */
export interface Answer<T = unknown> {
  readonly status: number;
  readonly body: T;
}

/** What `POST /orders/:id/commands` answers when the machine decided. */
export type Decided =
  | { readonly accepted: true; readonly order: OrderView; readonly events: readonly string[] }
  | { readonly accepted: false; readonly refusal: string; readonly command: string; readonly order: OrderView };

/** What every other refusal answers. */
export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

/** A client of one running service: raw requests, and the order API's calls typed. */
export interface OrderApi {
  /** Sends `body` (JSON-encoded unless a string, sent as it is) to `path` and reads the JSON answer. */
  request<T = unknown>(method: "GET" | "POST", path: string, body?: unknown, contentType?: string): Promise<Answer<T>>;
  send(id: string, command: unknown): Promise<Answer<Decided>>;
  /** Sends a command that must be accepted, and returns the order after it. */
  accept(id: string, command: unknown): Promise<OrderView>;
  order(id: string): Promise<Answer<OrderView>>;
  events(id: string): Promise<Answer<{ id: string; events: OrderEventView[] }>>;
  counts(): Promise<Record<string, number>>;
}

/** A client of the service at `url`. */
export function orderApi(url: string): OrderApi {
  const request = async <T>(method: "GET" | "POST", path: string, body?: unknown, contentType = "application/json") => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.headers = { "content-type": contentType };
      init.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    const response = await fetch(`${url}${path}`, init);
    return { status: response.status, body: (await response.json()) as T };
  };
  const send = (id: string, command: unknown) => request<Decided>("POST", `/orders/${encodeURIComponent(id)}/commands`, command);
  return {
    request,
    send,
    async accept(id, command) {
      const answer = await send(id, command);
      if (answer.status !== 200 || !answer.body.accepted) throw new Error(`not accepted: ${JSON.stringify(answer)}`);
      return answer.body.order;
    },
    order: (id) => request("GET", `/orders/${encodeURIComponent(id)}`),
    events: (id) => request("GET", `/orders/${encodeURIComponent(id)}/events`),
    counts: async () => (await request<Record<string, number>>("GET", "/orders/counts")).body,
  };
}

/** The types of an order's events in version order (none before its first). */
export async function eventTypes(api: OrderApi, id: string): Promise<string[]> {
  const answer = await api.events(id);
  return answer.status === 404 ? [] : answer.body.events.map((event) => event.type);
}
