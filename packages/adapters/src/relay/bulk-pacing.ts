/**
 * How an operator's run over many entries (`resolve`, `reprocess`) is paced and watched. `pace`
 * is awaited before each call to the core and resolves `false` to stop the run there (SIGINT):
 * the entries not reached are left as they were, and the report covers those done.
 * `onProgress` hears how many of the listed entries were handled so far.
 */
export interface BulkPacing {
  readonly pace?: (() => Promise<boolean>) | undefined;
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}
