import type { DeclaredCommand } from "@verq/core";
import type { DeclareOptions } from "@verq/store";
import type { AnyState } from "./model-rules.ts";

/** The Standard Schema of each command type, as `declareStream` takes them. */
export type CommandSchemas = NonNullable<DeclareOptions<AnyState>["schemas"]>;

/**
 * `commands` as a stream declared with `schemas` decides them: each the output of its type's
 * schema (as given when its type has none), or null when a schema refuses one, and the store
 * must then refuse the whole call as `VERQ_INVALID_PAYLOAD`.
 */
export async function throughSchemas(
  schemas: CommandSchemas | undefined,
  commands: readonly DeclaredCommand[],
): Promise<readonly DeclaredCommand[] | null> {
  if (schemas === undefined) return commands;
  const outputs: DeclaredCommand[] = [];
  for (const command of commands) {
    const schema = schemas[command.type];
    if (schema === undefined) {
      outputs.push(command);
      continue;
    }
    const result = await schema["~standard"].validate(command);
    if (result.issues !== undefined) return null;
    outputs.push(result.value as DeclaredCommand);
  }
  return outputs;
}
