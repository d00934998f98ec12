/**
 * HTML built from template literals in which every interpolated value is escaped unless it is
 * already {@link Html} (made by {@link html} itself, or by {@link rawHtml} for text the caller
 * vouches for). A page assembled only from these cannot carry markup that came from the store.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What may stand in a `${…}` of {@link html}: text and numbers are escaped, arrays are joined. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for an element's content or a quoted attribute value. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * The tag of escaped templates: `` html`<td>${job.id}</td>` `` escapes the id; `null`,
 * `undefined` and `false` render nothing, so `${cond && html`…`}` works.
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, i) => (out += render(value) + (strings[i + 1] ?? "")));
  return new Html(out);
}

/** Markup the caller made itself (an SVG drawn from numbers and escaped names): not escaped again. */
export const rawHtml = (text: string): Html => new Html(text);
