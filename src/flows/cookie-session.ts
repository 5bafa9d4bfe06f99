import { csrfTokenMatches, extendedIdleExpiry, sessionIsLive, signedOut } from "../domain/dashboard-session.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";

/** What every cookie session row keeps (the dashboard's, the customer app's). */
export interface CookieSessionRow {
  csrf_hash: string;
  idle_expires_at: string;
  absolute_expires_at: string;
}

/**
 * The rules both cookie sessions share (docs/reference/security.md#dashboard-sign-in): an unknown, expired or idle
 * session is signed out (and an ended one deleted), the x-csrf-token header must match, and a live
 * session's idle expiry moves on. Answers the row when it passed.
 */
export async function checkCookieSession<Row extends CookieSessionRow>(
  ctx: FlowContext,
  session: Row | undefined,
  csrfToken: string,
  store: { delete(trx: Tx): Promise<void>; extendIdle(trx: Tx, until: string): Promise<void> },
): Promise<Row> {
  if (!session) throw signedOut();
  const now = ctx.clock.now();
  const times = {
    idleExpiresAt: new Date(session.idle_expires_at),
    absoluteExpiresAt: new Date(session.absolute_expires_at),
  };
  if (!sessionIsLive(times, now)) {
    await ctx.tx.write((trx) => store.delete(trx));
    throw signedOut();
  }
  if (!csrfTokenMatches(session.csrf_hash, csrfToken))
    throw new RequestRefusal("unauthenticated", "missing or wrong x-csrf-token header", {
      reason: "CSRF_TOKEN_INVALID",
    });
  const extended = extendedIdleExpiry(times, now);
  if (extended) await ctx.tx.write((trx) => store.extendIdle(trx, extended.toISOString()));
  return session;
}
