import { checkStore, formatFinding } from "@verq/store";
import type { JobsReal } from "./jobs-real.ts";
import { modelFail } from "./model-assert.ts";

/**
 * `verq check` on the store under test: `checkStore` (the offline audit: versions, positions,
 * folds, tokens, projections, the redrive audit, prunes and the archive) must find nothing.
 * `property` tags the failure.
 */
export async function checkStoreClean(r: JobsReal, property: string): Promise<void> {
  const report = await checkStore(r.store);
  if (!report.ok) modelFail(property, `verq check found ${report.findings.map(formatFinding).join("; ")}`);
}
