import { LogController, type FastifyReply, type FastifyRequest } from "fastify";
import { errorFields } from "@verq/store";

/** The URL without its query string, which could carry data. */
const pathOf = (url: string): string => {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
};

/**
 * Fastify's request logging as verq's servers do it: one line per request once it is answered,
 * at info (at error when the answer could not be sent), with `reqId`, method, path (the URL
 * without its query string), status and durationMs; nothing when the request arrives, and no
 * headers, no body, no client address. Fastify's other lines (errors, not found) stay as they are.
 *
 * @example
 * const app = Fastify({ loggerInstance: createLogger({ name: "orders" }), logController: new RequestLogController() });
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {
    // One line per request: the one written when it is answered.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = {
      method: request.method,
      path: pathOf(request.url),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...fields, ...errorFields(error) }, "request failed");
    else reply.log.info(fields, "request");
  }
}
