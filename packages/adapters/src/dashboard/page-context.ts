import type { Clock } from "@verq/core";
import type { FastifyReply } from "fastify";
import type { DashboardAuth } from "./auth/dashboard-auth.ts";
import type { DashboardPaths } from "./page-shell.ts";

/** Sends a page with its status, the dashboard's headers and, with a login, its reader in the header. */
export type SendPage = (reply: FastifyReply, status: number, body: string) => FastifyReply;

/**
 * What every group of the dashboard's routes is registered with, beside the one service it
 * reads or acts through: the login (`null` on a read-only dashboard; the routes that act take
 * one that is there), the links under the plugin's prefix, the clock of the pages' "read at"
 * time, and how a page is sent.
 */
export interface DashboardPageContext<Auth extends DashboardAuth | null = DashboardAuth> {
  readonly auth: Auth;
  readonly paths: DashboardPaths;
  readonly clock: Clock;
  readonly sendPage: SendPage;
}
