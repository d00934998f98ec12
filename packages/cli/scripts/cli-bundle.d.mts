/** Bundles src/bin.ts into `outdir` (`bin.js` and its chunks). */
export declare function bundleCli(options: { outdir: string; sourcemap?: boolean }): Promise<void>;
