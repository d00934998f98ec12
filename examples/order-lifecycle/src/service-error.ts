/** The codes of the service's own refusals; verq's refusals keep their `VERQ_*` codes. */
export type ServiceErrorCode = "ORDERS_NOT_FOUND" | "ORDERS_INVALID_OPTION";

/** A refusal of the order-lifecycle service: a stable `code` and a message that never repeats a request's values. */
export class ServiceError extends Error {
  readonly code: ServiceErrorCode;

  constructor(code: ServiceErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = "ServiceError";
  }
}
