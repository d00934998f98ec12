import type { RawAnswer } from "./raw-exchange.ts";

const CODE = /^VERQ_[A-Z0-9_]+$/;

/**
 * The `VERQ_*` code of an error answer, or a description of why it is not a well-formed one:
 * JSON `{"error":{"code","message"}}` for every edge; the dashboard's HTML problem pages carry
 * their code in the page (`<code>VERQ_…</code>`) and are sent as HTML.
 */
export function errorCodeOf(answer: RawAnswer): string {
  const type = answer.headers["content-type"] ?? "";
  if (type.startsWith("text/html")) {
    const code = /<code>(VERQ_[A-Z0-9_]+)<\/code>/.exec(answer.body)?.[1];
    return code ?? `no VERQ code in the HTML page: ${answer.body.slice(0, 120)}`;
  }
  if (!type.startsWith("application/json")) return `not JSON but ${JSON.stringify(type)}: ${answer.body.slice(0, 120)}`;
  try {
    const parsed = JSON.parse(answer.body) as { error?: { code?: unknown; message?: unknown } };
    const code = parsed.error?.code;
    if (typeof code !== "string" || !CODE.test(code)) return `no VERQ code in ${answer.body.slice(0, 200)}`;
    if (typeof parsed.error?.message !== "string") return `no message in ${answer.body.slice(0, 200)}`;
    return code;
  } catch {
    return `malformed JSON: ${answer.body.slice(0, 200)}`;
  }
}
