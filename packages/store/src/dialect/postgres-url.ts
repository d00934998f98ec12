/** True when `url` names a PostgreSQL database (`postgres://` or `postgresql://`). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** `host:port/database` of a connection string, for messages: never its user or password. */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "(default database)";
    return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}/${database}`;
  } catch {
    return "(an unparseable PostgreSQL URL)";
  }
}
