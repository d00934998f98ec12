/**
 * `@verq/adapters/dashboard`: the dashboard (jobs, the ledger, the file queue, the
 * stream types a service declared, a stream's timeline and the machines' diagrams), as a plugin
 * for the service's own Fastify app or as a server of its own. Its diagrams are laid out by
 * @dagrejs/dagre, a peer dependency the service installs when it mounts the dashboard.
 *
 * The export list is kept by hand: everything else under `src/dashboard` may change at any time.
 *
 * @packageDocumentation
 */
export { dashboardPlugin, type DashboardPluginOptions } from "./dashboard-plugin.ts";
export { createDashboardServer, type DashboardServerOptions } from "./dashboard-server.ts";
export { loadCredentials, MIN_SECRET_LENGTH, type DashboardCredentials } from "./auth/credentials.ts";
export type { DashboardAuthOptions } from "./auth/dashboard-auth.ts";
export type { SessionLifetimes } from "./auth/sessions.ts";
export type { DashboardCoreOptions } from "./auth/ledger-actions.ts";
