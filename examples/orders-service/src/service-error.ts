/** The stable codes of the orders service's own refusals; verq's refusals keep their `VERQ_*` codes. */
export type ServiceErrorCode =
  "ORDERS_INVALID_BODY" | "ORDERS_INVALID_ID" | "ORDERS_ID_CONFLICT" | "ORDERS_NOT_FOUND" | "ORDERS_INVALID_OPTION";

/**
 * A refusal of the orders service: a stable `code` a client may switch on and a message that
 * says what to change. Messages never repeat the request's values.
 */
export class ServiceError extends Error {
  readonly code: ServiceErrorCode;

  constructor(code: ServiceErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = "ServiceError";
  }
}
