/**
 * The answer codes of the relay (SPEC G3). The core answers `0000` (accepted), `B2xx`
 * (a business refusal, e.g. insufficient funds) or `E500` (the core's own error); all three are
 * definite. The relay itself answers `E901` (sent, outcome unknown), `E902` (certainly not
 * sent), `E903` (in progress) and `E422` (this GUID was used with another payload).
 */
export const GUID_CODES = {
  ok: "0000",
  coreError: "E500",
  unknown: "E901",
  notSent: "E902",
  inProgress: "E903",
  payloadMismatch: "E422",
} as const;

/**
 * One of the fixed codes of {@link GUID_CODES}. A core's business code (`B2xx`) is not in this
 * union: codes read from the core travel as `string`, checked by {@link isDefiniteCode}.
 */
export type GuidCode = (typeof GUID_CODES)[keyof typeof GUID_CODES];

// B2xx: "B2" and two digits, e.g. B201. Nothing else counts as a business answer.
const BUSINESS_CODE = /^B2[0-9]{2}$/;

/**
 * True for a definite answer of the core: `0000`, `B2` followed by two digits, or `E500`.
 * Anything else (the relay's own `E9xx`, an unknown code, a non-string) is not a core answer.
 */
export function isDefiniteCode(code: unknown): code is string {
  return typeof code === "string" && (code === GUID_CODES.ok || code === GUID_CODES.coreError || BUSINESS_CODE.test(code));
}
