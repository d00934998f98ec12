import { machineGraph, VERQ_MACHINES, type VerqMachineName } from "@verq/core";
import { describe, expect, it } from "vitest";
import { drawMachine, layoutMachine, transitionLabel } from "../../src/dashboard/machine-diagram.ts";

/*
 * O1: each diagram is the machine's own definition laid out: every state a node, every
 * transition that changes state on the arrow from its source to its target, refusals left out,
 * transitions that keep their state listed; no two states drawn on top of each other.
 */

const NAMES = Object.keys(VERQ_MACHINES) as VerqMachineName[];

describe.each(NAMES)("the %s machine's diagram", (name) => {
  const graph = machineGraph(VERQ_MACHINES[name]);
  const layout = layoutMachine(name, graph);

  it("places every state, none overlapping another, inside the drawing", () => {
    expect([...layout.nodes.keys()]).toEqual(graph.states);
    const points = [...layout.nodes.values()];
    for (const p of points) {
      expect(p.x).toBeGreaterThan(0);
      expect(p.y).toBeGreaterThan(0);
      expect(p.x).toBeLessThan(layout.width);
      expect(p.y).toBeLessThan(layout.height);
    }
    for (let i = 0; i < points.length; i++)
      for (let j = i + 1; j < points.length; j++) {
        const [a, b] = [points[i]!, points[j]!];
        expect(Math.abs(a.x - b.x) >= 132 || Math.abs(a.y - b.y) >= 50, `${graph.states[i]} and ${graph.states[j]} overlap`).toBe(
          true,
        );
      }
  });

  it("draws each state-changing transition on its arrow, leaves refusals out and lists those that stay", () => {
    const moving = graph.transitions.filter((t) => !t.refusal && t.target !== t.source);
    expect(moving.length).toBeGreaterThan(0);
    for (const t of moving) {
      const arrow = layout.edges.find((e) => e.source === t.source && e.target === t.target);
      expect(arrow?.lines, `${t.source} -> ${t.target}`).toContain(transitionLabel(t));
      expect(arrow?.points.length).toBeGreaterThanOrEqual(2);
    }
    expect(layout.edges.flatMap((e) => e.lines)).toHaveLength(moving.length);
    expect(layout.staying).toEqual(graph.transitions.filter((t) => !t.refusal && t.target === t.source));
  });

  it("lays each arrow's label block inside the drawing, apart from every other block and off every state", () => {
    const block = (lines: readonly string[], at: { x: number; y: number }) => {
      const width = Math.max(...lines.map((l) => l.length)) * 6.7 + 8;
      const height = lines.length * 16 + 4;
      return { left: at.x - width / 2, right: at.x + width / 2, top: at.y - height / 2, bottom: at.y + height / 2 };
    };
    const labels = layout.edges.map((e) => ({ name: `${e.source} -> ${e.target}`, ...block(e.lines, e.labelAt) }));
    const states = [...layout.nodes].map(([state, p]) => ({
      name: state,
      left: p.x - 66,
      right: p.x + 66,
      top: p.y - 25,
      bottom: p.y + 25,
    }));
    for (const label of labels) {
      expect(label.left >= 0 && label.top >= 0, label.name).toBe(true);
      expect(label.right <= layout.width && label.bottom <= layout.height, label.name).toBe(true);
    }
    for (const [i, a] of labels.entries())
      for (const b of [...labels.slice(i + 1), ...states]) {
        const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
        expect(apart, `${a.name} and ${b.name} overlap`).toBe(true);
      }
  });

  it("draws the counts it is given, and no count for a state no stream is stored in", () => {
    const counts = Object.fromEntries(graph.states.filter((s) => s !== graph.initial).map((s, i) => [s, i + 10]));
    const svg = drawMachine(layout, counts).text;
    for (const [state, count] of Object.entries(counts)) expect(svg).toContain(`data-state="${state}" data-count="${count}"`);
    expect(svg).toContain(`class="state initial unstored" data-state="${graph.initial}" data-count=""`);
    expect(svg.match(/<g class="transition"/g)).toHaveLength(layout.edges.length);
  });
});
