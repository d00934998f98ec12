import { openStore } from "@verq/store";
import { describe, expect, it } from "vitest";
import { runRelayDemo } from "../src/demo/relay-demo.ts";
import { tempDir } from "../src/process/verq-process.ts";

describe("relay demo", () => {
  it("tells the G1-G9 story over real HTTP: the resend stopped, an UNKNOWN resolved, a FAILED reprocessed, no GUID debited twice", async () => {
    const dir = tempDir("verq-relay-demo-");
    const store = await openStore({ path: `${dir.path}/demo.sqlite` });
    const lines: string[] = [];
    try {
      await runRelayDemo(store, (line) => lines.push(line));
    } finally {
      await store.close();
      dir.remove();
    }
    const text = lines.join("\n");
    expect(text).toContain("channel sends T-1001 (700): no answer in time");
    expect(text).toContain('resend of T-1001 while the core is still working: {"guid":"T-1001","code":"E903"}');
    expect(text).toContain("the next resend gets the stored answer, byte for byte: true");
    expect(text).toContain("core calls for T-1001: 1; balance 999300 (debited once)");
    expect(text).toContain('the core debits, then its answer is lost: {"guid":"T-1002","code":"E901"}');
    expect(text).toContain("1 UNKNOWN younger than the min age, left alone");
    expect(text).toContain("t+600.000s resolve --min-age 10m: asks the core's inquiry API; DONE T-1002");
    expect(text).toContain("resend of T-1002 now gets the core's original answer: true; core calls 1");
    expect(text).toContain('channel sends T-1003 (50): {"guid":"T-1003","code":"E902"}');
    expect(text).toContain("sends T-1003 again with the same GUID: DONE after 2 attempts");
    expect(lines.at(-1)).toContain(
      "DONE=3 UNKNOWN=0 FAILED=0; attempts 4; core calls T-1001=1 T-1002=1 T-1003=1: no GUID debited twice",
    );
  });
});
