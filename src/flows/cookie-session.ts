import {
  csrfTokenMatches,
  extendedIdleExpiry,
  sessionIsLive,
  signedOut,
  type CookieSession,
} from "../domain/dashboard-session.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";

/**
 * The rules both cookie sessions share (docs/reference/security.md#dashboard-sign-in): an unknown, expired or idle
 * session is signed out (and an ended one deleted), the x-csrf-token header must match, and a live
 * session's idle expiry moves on. Answers the session when it passed.
 */
export async function checkCookieSession<Session extends CookieSession>(
  ctx: FlowContext,
  session: Session | undefined,
  csrfToken: string,
  store: { delete(trx: Tx): Promise<void>; extendIdle(trx: Tx, until: string): Promise<void> },
): Promise<Session> {
  if (!session) throw signedOut();
  const now = ctx.clock.now();
  if (!sessionIsLive(session, now)) {
    await ctx.tx.write((trx) => store.delete(trx));
    throw signedOut();
  }
  if (!csrfTokenMatches(session.csrfHash, csrfToken))
    throw new RequestRefusal("unauthenticated", "missing or wrong x-csrf-token header", {
      reason: "CSRF_TOKEN_INVALID",
    });
  const extended = extendedIdleExpiry(session, now);
  if (extended) await ctx.tx.write((trx) => store.extendIdle(trx, extended.toISOString()));
  return session;
}
