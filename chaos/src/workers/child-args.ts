/** The arguments every worker child takes: `<recorder url> <worker id> <system-specific…>`. */
export function childArgs(usage: string): { recorder: string; worker: string; rest: string[] } {
  const [recorder, worker, ...rest] = process.argv.slice(2);
  if (recorder === undefined || worker === undefined) throw new Error(`usage: ${usage}`);
  return { recorder, worker, rest };
}
