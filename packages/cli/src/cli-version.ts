import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package whose manifest holds the version `verq --version` prints. */
const PACKAGE_NAME = "@verq/cli";

/**
 * The version of `@verq/cli`, from its package.json: the nearest one named `@verq/cli` in the
 * folders above this module, wherever the module runs from (the sources' `src/`, the built
 * `dist/`, a bundle of the bin); `unknown` when there is none (a program that bundled the CLI into
 * its own files). Read when the program is built, one small file.
 */
export function cliVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const version = versionIn(join(dir, "package.json"));
    if (version !== undefined) return version;
    if (dirname(dir) === dir) return "unknown";
  }
}

/** The version of the manifest at `file` when it is @verq/cli's; undefined for any other file, or none. */
function versionIn(file: string): string | undefined {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  const { name, version } = (manifest ?? {}) as { name?: unknown; version?: unknown };
  return name === PACKAGE_NAME && typeof version === "string" ? version : undefined;
}
