import type { CoreCallResult, CoreInquiryResult } from "@verq/core";

/**
 * The relay's view of the core (docs/architecture.md, "Edges"): `POST {core}/transfer` with the channel's
 * request text, and the inquiry `GET {core}/transfer/{guid}`. An implementation never throws
 * for a network problem: it reports whether the request certainly did not leave
 * (`not-sent`), or may have reached the core without an answer in time (`no-answer`).
 */
export interface CoreClient {
  transfer(guid: string, request: string): Promise<CoreCallResult>;
  inquire(guid: string): Promise<CoreInquiryResult>;
}
