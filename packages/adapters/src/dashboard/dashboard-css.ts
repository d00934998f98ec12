/** The dashboard's one stylesheet, served from the package itself (`/assets/dashboard.css`): the page loads nothing from elsewhere. */
export const DASHBOARD_CSS = `
:root { color-scheme: light; --ink: #1d232b; --muted: #5c6773; --line: #d5dbe1; --paper: #ffffff; --tint: #f4f6f8;
  --accent: #2457a6; --dead: #b3261e; --warn: #9a5b00; --ok: #1e7a3c; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--tint); }
header { display: flex; align-items: baseline; gap: 1.5rem; padding: .8rem 1.5rem; background: var(--ink); color: #fff; }
header h1 { margin: 0; font-size: 1.2rem; }
header a { color: #fff; }
header .meta { margin-left: auto; color: #c9d1d9; font-size: .85rem; }
nav#nav { display: flex; gap: 1.2rem; padding: .45rem 1.5rem; background: var(--paper); border-bottom: 1px solid var(--line); }
nav#nav a { text-decoration: none; font-weight: 600; }
.filters { display: flex; flex-wrap: wrap; gap: .3rem .8rem; align-items: baseline; margin: .2rem 0 .6rem; }
.pager { display: flex; gap: 1.2rem; margin: .6rem 0 0; }
main { padding: 1rem 1.5rem 2rem; max-width: 1400px; }
section { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1.1rem 1rem; margin: 0 0 1rem; }
h2 { font-size: 1.05rem; margin: .2rem 0 .6rem; }
h3 { font-size: .95rem; margin: .9rem 0 .4rem; }
p.note, .muted { color: var(--muted); font-size: .85rem; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .85rem; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; margin: .3rem 0; }
th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .8rem; color: var(--muted); font-weight: 600; background: var(--tint); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .2rem 0 .6rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.machines { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
figure.machine { margin: 0; padding: .6rem; border: 1px solid var(--line); border-radius: 8px; background: var(--paper); max-width: 100%; }
figure.machine figcaption { font-weight: 600; margin-bottom: .3rem; }
figure.machine .staying { max-width: 30rem; }
.machine-svg { display: block; max-width: 100%; height: auto; }
.machine-svg .state rect { fill: #eef3fb; stroke: var(--accent); stroke-width: 1.5; }
.machine-svg .state.unstored rect { fill: var(--paper); stroke: var(--muted); stroke-dasharray: 4 3; }
.machine-svg .state[data-state="dead"] rect, .machine-svg .state[data-state="FAILED"] rect,
.machine-svg .state[data-state="error"] rect { fill: #fbeeed; stroke: var(--dead); }
.machine-svg .state[data-state="UNKNOWN"] rect { fill: #fdf4e6; stroke: var(--warn); }
.machine-svg .state[data-state="done"] rect, .machine-svg .state[data-state="DONE"] rect { fill: #edf7f0; stroke: var(--ok); }
.machine-svg .state-name { font: 600 13px system-ui, sans-serif; fill: var(--ink); }
.machine-svg .state-count { font: 700 14px ui-monospace, Menlo, Consolas, monospace; fill: var(--ink); }
.machine-svg .state.unstored .state-count { font: 400 10px system-ui, sans-serif; fill: var(--muted); }
.machine-svg .transition path { fill: none; stroke: #7b8794; stroke-width: 1.3; }
.machine-svg .arrow-head { fill: #7b8794; }
.machine-svg .transition-label { font: 11px ui-monospace, Menlo, Consolas, monospace; fill: #38424d;
  paint-order: stroke; stroke: var(--paper); stroke-width: 4px; stroke-linejoin: round; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: .8rem; background: var(--tint); border: 1px solid var(--line); }
.badge.dead, .badge.FAILED, .badge.error { color: var(--dead); border-color: var(--dead); }
.badge.UNKNOWN { color: var(--warn); border-color: var(--warn); }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); gap: 0 2rem; }
.stream-type { display: flex; flex-wrap: wrap; gap: 0 2rem; align-items: flex-start; margin: .6rem 0 1rem; }
.stream-type > div { flex: 1 1 22rem; }
.detail.upcast-problem { color: var(--dead); }
pre.payload { background: var(--tint); border: 1px solid var(--line); padding: .6rem; overflow: auto; max-height: 24rem; }
`;
