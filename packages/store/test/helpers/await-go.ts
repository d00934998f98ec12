import readline from "node:readline";

/**
 * The start handshake of a test's child process: prints `ready`, then waits for a `go` line on
 * stdin, so that the parent starts all its children at once, after each has opened its store.
 */
export async function awaitGo(): Promise<void> {
  process.stdout.write("ready\n");
  const input = readline.createInterface({ input: process.stdin });
  for await (const line of input) if (line.trim() === "go") break;
  input.close();
}
