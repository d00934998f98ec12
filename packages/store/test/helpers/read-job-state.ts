/**
 * Child process that reads one job's committed state from PostgreSQL, as another process would
 * see it at that moment. Usage:
 *
 *   node --import tsx read-job-state.ts <postgres url> <job id>
 *
 * Prints the state as JSON (`"leased"`, or `null` when there is no such job) and exits 0.
 */
import pg from "pg";

const [url, id] = process.argv.slice(2);
if (url === undefined || id === undefined) throw new Error("usage: read-job-state.ts <postgres url> <job id>");
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  const { rows } = await client.query<{ state: string }>("select state from jobs where id = $1", [id]);
  process.stdout.write(`${JSON.stringify(rows[0]?.state ?? null)}\n`);
} finally {
  await client.end();
}
