/** One parsed exposition: each metric's TYPE, and each sample as `name{label="value",…}` → value. */
export interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly samples: ReadonlyMap<string, number>;
  /** Every label value of every sample. */
  readonly labelValues: readonly string[];
}

const SAMPLE = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;

/** The key a sample is stored under: its name and its labels sorted by name. */
export const sampleKey = (name: string, labels: Readonly<Record<string, string>> = {}): string => {
  const pairs = Object.entries(labels)
    .sort(([x], [y]) => (x < y ? -1 : 1))
    .map(([k, v]) => `${k}="${v}"`);
  return pairs.length === 0 ? name : `${name}{${pairs.join(",")}}`;
};

/**
 * Parses the Prometheus text format (0.0.4) strictly enough for a test: every line is a
 * comment (`# HELP`, `# TYPE`), a blank line or a sample; anything else, a duplicate sample or
 * a value that is not a number throws.
 */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples = new Map<string, number>();
  const labelValues: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ")) continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type !== null) {
      types.set(type[1] ?? "", type[2] ?? "");
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (sample === null) throw new Error(`not a line of the text format: ${JSON.stringify(line)}`);
    const [, name = "", labelText = "", valueText = ""] = sample;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    let consumed = 0;
    for (let m = LABEL.exec(labelText); m !== null; m = LABEL.exec(labelText)) {
      const value = (m[2] ?? "").replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      labels[m[1] ?? ""] = value;
      labelValues.push(value);
      consumed = LABEL.lastIndex;
    }
    if (consumed !== labelText.length) throw new Error(`malformed labels: ${JSON.stringify(line)}`);
    const value = Number(valueText);
    if (Number.isNaN(value)) throw new Error(`not a number: ${JSON.stringify(line)}`);
    const key = sampleKey(name, labels);
    if (samples.has(key)) throw new Error(`duplicate sample ${key}`);
    samples.set(key, value);
  }
  return { types, samples, labelValues };
}
