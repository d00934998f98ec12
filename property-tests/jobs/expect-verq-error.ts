import { isVerqError, type VerqErrorCode } from "@verq/core";
import { modelFail } from "./model-assert.ts";

/** Awaits `action` and fails `property` unless it throws a verq error with exactly `code`. */
export async function expectVerqError(property: string, code: VerqErrorCode, action: () => Promise<unknown>): Promise<void> {
  let outcome: unknown;
  try {
    outcome = await action();
  } catch (error) {
    if (isVerqError(error, code)) return;
    const got = isVerqError(error) ? error.code : String(error);
    modelFail(property, `expected ${code}, got ${got}`);
  }
  modelFail(property, `expected ${code}, but it returned ${JSON.stringify(outcome)}`);
}
