import * as dagreModule from "@dagrejs/dagre";
import type { MachineGraph, MachineGraphEdge } from "@verq/core";
import { escapeHtml, html, rawHtml, type Html } from "./html.ts";

/** One drawn arrow: every transition from `source` to `target`, one label line each. */
interface DrawnEdge {
  readonly source: string;
  readonly target: string;
  readonly lines: readonly string[];
  readonly points: readonly Point[];
  readonly labelAt: Point;
}

/**
 * A machine laid out once, from its definition (`machineGraph`): where each state and each
 * state-changing transition goes. Counts are drawn into it per request by {@link drawMachine}.
 */
export interface MachineLayout {
  readonly name: string;
  readonly graph: MachineGraph;
  readonly width: number;
  readonly height: number;
  readonly nodes: ReadonlyMap<string, Point>;
  readonly edges: readonly DrawnEdge[];
  /** Transitions that keep their state and are not refusals (a heartbeat, a lease taken over): listed, not drawn. */
  readonly staying: readonly MachineGraphEdge[];
}

interface Point {
  readonly x: number;
  readonly y: number;
}

/**
 * The part of dagre's graph this file uses. dagre 3's declaration files import their siblings
 * without file extensions, which NodeNext resolution cannot follow, so its own types arrive
 * unresolved; this interface states what the code relies on instead.
 */
interface LayoutGraph {
  setGraph(label: Record<string, unknown>): void;
  setDefaultEdgeLabel(label: () => Record<string, unknown>): void;
  setNode(name: string, label: { width: number; height: number }): void;
  setEdge(source: string, target: string, label: { width: number; height: number; labelpos: "r"; labeloffset: number }): void;
  node(name: string): Point;
  edge(source: string, target: string): { points?: Point[]; x?: number; y?: number };
  graph(): { width?: number; height?: number };
}

const dagre = dagreModule as unknown as { Graph: new () => LayoutGraph; layout: (graph: LayoutGraph) => void };

const NODE_WIDTH = 132;
const NODE_HEIGHT = 50;
/** Apart from one label line to the next: more than the line box of an 11px monospace font (13px in Chromium's). */
const LINE_HEIGHT = 16;
/** The width of one character of the labels' monospace font at 11px. */
const CHAR_WIDTH = 6.7;
const MARGIN = 12;
/** The least room between two label blocks, and between a label block and a state. */
const LABEL_GAP = 6;
/** How far beside its arrow a label block is placed. */
const LABEL_OFFSET = 8;

/** An axis-aligned box by its centre and size. */
interface Box {
  x: number;
  y: number;
  readonly width: number;
  readonly height: number;
}

/** How far `a` and `b` (with {@link LABEL_GAP} between them) overlap on each axis; a negative value on either: apart. */
const overlap = (a: Box, b: Box): { x: number; y: number } => ({
  x: (a.width + b.width) / 2 + LABEL_GAP - Math.abs(a.x - b.x),
  y: (a.height + b.height) / 2 + LABEL_GAP - Math.abs(a.y - b.y),
});

/**
 * Moves label blocks until no two overlap and none covers a state: each overlapping pair is
 * pushed apart along the axis where it overlaps least (a block is pushed off a state, which
 * stays). dagre reserves room for each label, but places it on its arrow, where several arrows'
 * labels can meet; the moves are small and end when nothing overlaps (the blocks are few).
 */
function separateLabels(labels: readonly Box[], states: readonly Box[]): void {
  for (let round = 0; round < 500; round++) {
    let moved = false;
    for (let i = 0; i < labels.length; i++) {
      const a = labels[i]!;
      for (const b of [...labels.slice(i + 1), ...states]) {
        const o = overlap(a, b);
        if (o.x <= 0 || o.y <= 0) continue;
        moved = true;
        const fixed = states.includes(b);
        const share = fixed ? 1 : 0.5;
        if (o.y <= o.x) {
          const dir = a.y < b.y || (a.y === b.y && !fixed) ? -1 : 1;
          a.y += dir * o.y * share;
          if (!fixed) b.y -= dir * o.y * share;
        } else {
          const dir = a.x < b.x ? -1 : 1;
          a.x += dir * o.x * share;
          if (!fixed) b.x -= dir * o.x * share;
        }
      }
    }
    if (!moved) return;
  }
}

/** The size of an arrow's label block: its longest line wide, one {@link LINE_HEIGHT} per line. */
const labelSize = (lines: readonly string[]) => ({
  width: Math.max(...lines.map((l) => l.length)) * CHAR_WIDTH + 8,
  height: lines.length * LINE_HEIGHT + 4,
});

/** The label of one transition: its event and, when guarded, the guard as written. */
export const transitionLabel = (t: MachineGraphEdge): string => (t.guard === null ? t.event : `${t.event} [${t.guard}]`);

/**
 * Lays out the states and the transitions that change state with dagre (top to bottom). Refusals
 * (a command answered and nothing recorded) are left out; transitions that stay in their state
 * are returned in `staying`. Transitions between the same two states share one arrow.
 */
export function layoutMachine(name: string, graph: MachineGraph): MachineLayout {
  const g = new dagre.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 36, ranksep: 44, edgesep: 16, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  for (const state of graph.states) g.setNode(state, { width: NODE_WIDTH, height: NODE_HEIGHT });
  const groups = new Map<string, { source: string; target: string; lines: string[] }>();
  const staying: MachineGraphEdge[] = [];
  for (const t of graph.transitions) {
    if (t.refusal) continue;
    if (t.target === t.source) {
      staying.push(t);
      continue;
    }
    const key = JSON.stringify([t.source, t.target]);
    const group = groups.get(key) ?? { source: t.source, target: t.target, lines: [] };
    group.lines.push(transitionLabel(t));
    groups.set(key, group);
  }
  for (const { source, target, lines } of groups.values()) {
    // Beside the arrow rather than over it: an arrow with several transitions keeps its line clear.
    g.setEdge(source, target, { ...labelSize(lines), labelpos: "r", labeloffset: LABEL_OFFSET });
  }
  dagre.layout(g);
  const nodes = new Map<string, Point>();
  for (const state of graph.states) {
    const { x, y } = g.node(state);
    nodes.set(state, { x, y });
  }
  const placed = [...groups.values()].map(({ source, target, lines }) => {
    const e = g.edge(source, target);
    return { source, target, lines, points: e.points ?? [], box: { x: e.x ?? 0, y: e.y ?? 0, ...labelSize(lines) } };
  });
  const states = [...nodes.values()].map((p) => ({ x: p.x, y: p.y, width: NODE_WIDTH, height: NODE_HEIGHT }));
  separateLabels(
    placed.map((e) => e.box),
    states,
  );
  // The drawing grows (and moves) to hold every state, arrow and label block with its margin.
  const boxes = [...states, ...placed.map((e) => e.box)];
  const xs = [
    ...boxes.flatMap((b) => [b.x - b.width / 2, b.x + b.width / 2]),
    ...placed.flatMap((e) => e.points.map((p) => p.x)),
  ];
  const ys = [
    ...boxes.flatMap((b) => [b.y - b.height / 2, b.y + b.height / 2]),
    ...placed.flatMap((e) => e.points.map((p) => p.y)),
  ];
  const dx = MARGIN - Math.min(...xs);
  const dy = MARGIN - Math.min(...ys);
  const shift = (p: Point): Point => ({ x: p.x + dx, y: p.y + dy });
  for (const [state, p] of nodes) nodes.set(state, shift(p));
  const edges: DrawnEdge[] = placed.map(({ source, target, lines, points, box }) => ({
    source,
    target,
    lines,
    points: points.map(shift),
    labelAt: shift(box),
  }));
  const width = Math.ceil(Math.max(...xs) + dx + MARGIN);
  const height = Math.ceil(Math.max(...ys) + dy + MARGIN);
  return { name, graph, width, height, nodes, edges, staying };
}

const n = (value: number): string => (Math.round(value * 10) / 10).toString();
const attr = (text: string): string => escapeHtml(text);

/** A smooth path through dagre's points: straight to the first, curved through the middle ones. */
function pathThrough(points: readonly Point[]): string {
  const [first, ...rest] = points;
  if (first === undefined) return "";
  let d = `M${n(first.x)},${n(first.y)}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const p = rest[i]!;
    const q = rest[i + 1]!;
    d += ` Q${n(p.x)},${n(p.y)} ${n((p.x + q.x) / 2)},${n((p.y + q.y) / 2)}`;
  }
  const last = rest.at(-1);
  if (last !== undefined) d += ` L${n(last.x)},${n(last.y)}`;
  return d;
}

/**
 * Draws a laid-out machine as inline SVG: each state a `<g class="state" data-state="…"
 * data-count="…">` with its name and count, each arrow a `<g class="transition">` labelled with
 * its events and guards. A state missing from `counts` is one no stream is ever stored in (the
 * blank before a stream's first event): it shows no count. Every name is escaped.
 */
export function drawMachine(machine: MachineLayout, counts: Readonly<Record<string, number>>): Html {
  const { name, graph, width, height } = machine;
  const arrow = `arrow-${attr(name)}`;
  const parts: string[] = [];
  parts.push(
    `<svg class="machine-svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${attr(`${graph.id} machine`)}">`,
    `<defs><marker id="${arrow}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrow-head"/></marker></defs>`,
  );
  for (const edge of machine.edges) {
    const top = edge.labelAt.y - ((edge.lines.length - 1) * LINE_HEIGHT) / 2;
    const lines = edge.lines
      .map((line, i) => `<tspan x="${n(edge.labelAt.x)}" y="${n(top + i * LINE_HEIGHT)}">${escapeHtml(line)}</tspan>`)
      .join("");
    parts.push(
      `<g class="transition" data-source="${attr(edge.source)}" data-target="${attr(edge.target)}">`,
      `<path d="${pathThrough(edge.points)}" marker-end="url(#${arrow})"/>`,
      `<text class="transition-label" dominant-baseline="middle" text-anchor="middle">${lines}</text></g>`,
    );
  }
  for (const state of graph.states) {
    const at = machine.nodes.get(state) ?? { x: 0, y: 0 };
    const count = counts[state];
    const stored = count !== undefined;
    const classes = ["state", state === graph.initial ? "initial" : "", stored ? "" : "unstored"].filter(Boolean).join(" ");
    const x = at.x - NODE_WIDTH / 2;
    const y = at.y - NODE_HEIGHT / 2;
    parts.push(
      `<g class="${classes}" data-state="${attr(state)}" data-count="${stored ? count : ""}">`,
      `<rect x="${n(x)}" y="${n(y)}" width="${NODE_WIDTH}" height="${NODE_HEIGHT}" rx="10"/>`,
      `<text class="state-name" x="${n(at.x)}" y="${n(at.y - 8)}" text-anchor="middle" dominant-baseline="middle">${escapeHtml(state)}</text>`,
      `<text class="state-count" x="${n(at.x)}" y="${n(at.y + 11)}" text-anchor="middle" dominant-baseline="middle">${stored ? count : "before 1st event"}</text>`,
      `</g>`,
    );
  }
  parts.push("</svg>");
  return rawHtml(parts.join(""));
}

/** The transitions of a machine that keep their state (not drawn), listed under its diagram. */
export function stayingTransitions(layout: MachineLayout): Html {
  if (layout.staying.length === 0) return html``;
  const items = layout.staying.map(
    (t) => html`<li><code>${t.source}</code>: <code>${transitionLabel(t)}</code> (${t.actions.join(", ") || "no action"})</li>`,
  );
  return html`<div class="staying muted">
    Transitions that keep their state (not drawn):
    <ul>
      ${items}
    </ul>
  </div>`;
}
