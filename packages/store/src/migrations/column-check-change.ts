/** One inline column CHECK to replace, keeping every row, column, index and trigger of the table. */
export interface ColumnCheckChange {
  readonly table: string;
  readonly column: string;
  /** The condition as the table was created with it, e.g. `reason in ('permanent', 'exhausted', 'deadline')`. */
  readonly from: string;
  readonly to: string;
}
