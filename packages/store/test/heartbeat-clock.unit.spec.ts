import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HeartbeatClock } from "../src/jobs/heartbeat-clock.ts";

describe("HeartbeatClock: every held key beats every everyMs on one timer, until released", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("beats each key at its own period from when it was held", () => {
    const clock = new HeartbeatClock();
    const beats: string[] = [];
    clock.hold("a", 10, () => beats.push(`a@${performance.now()}`));
    vi.advanceTimersByTime(5);
    clock.hold("b", 30, () => beats.push(`b@${performance.now()}`));
    vi.advanceTimersByTime(60);
    expect(beats).toEqual(["a@10", "a@20", "a@30", "b@35", "a@40", "a@50", "a@60", "b@65"]);
    expect(vi.getTimerCount()).toBe(1);
  });

  it("a released key beats no more; with nothing held no timer is left", () => {
    const clock = new HeartbeatClock();
    let a = 0;
    let b = 0;
    clock.hold("a", 10, () => a++);
    clock.hold("b", 10, () => b++);
    vi.advanceTimersByTime(25);
    clock.release("a");
    expect(clock.get("a")).toBeUndefined();
    expect(clock.keys()).toEqual(["b"]);
    vi.advanceTimersByTime(30);
    expect([a, b]).toEqual([2, 5]);
    clock.release("b");
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(100);
    expect([a, b]).toEqual([2, 5]);
  });

  it("a key held after a later one gets its earlier beat on time", () => {
    const clock = new HeartbeatClock();
    const beats: string[] = [];
    clock.hold("slow", 100, () => beats.push(`slow@${performance.now()}`));
    clock.hold("fast", 7, () => beats.push(`fast@${performance.now()}`));
    vi.advanceTimersByTime(15);
    expect(beats).toEqual(["fast@7", "fast@14"]);
  });
});
