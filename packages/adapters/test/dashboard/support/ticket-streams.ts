/*
 * A service's module of stream definitions, as `verq dashboard --streams` reads it: the help-desk
 * ticket of @verq/core's tests.
 */
export { ticketStream } from "../../../../core/test/ticket-stream.ts";
