/** The packages the `verq` bin leaves to the installed dependencies. */
export declare const CLI_EXTERNALS: readonly string[];
/** Bundles src/cli/bin.ts into `outdir` (`bin.js` and its chunks). */
export declare function bundleCli(options: { outdir: string; sourcemap?: boolean }): Promise<void>;
