import { sql } from "kysely";
import type { MoneySnapshot } from "../domain/invariants.js";
import { chargeFromRow, refundFromRow } from "./records.js";
import type { Transactor, Tx } from "./transactor.js";

/**
 * Everything the money invariants are checked over (domain/invariants.ts), read in one
 * transaction, so a server running meanwhile cannot show half of a change (SQLite: the write
 * lock; PostgreSQL: a repeatable-read snapshot).
 */
export function moneySnapshot(tx: Transactor): Promise<MoneySnapshot> {
  return tx.write(async (trx) => {
    if (tx.dialect === "postgres") await sql`set transaction isolation level repeatable read`.execute(trx);
    return readSnapshot(trx);
  });
}

async function readSnapshot(db: Tx): Promise<MoneySnapshot> {
  const [charges, refunds, asyncRequests, ledger, events, pendingJobs, links, zenginDebits, contracts] =
    await Promise.all([
      db.selectFrom("charges").selectAll().execute(),
      db.selectFrom("refunds").selectAll().execute(),
      db.selectFrom("async_requests").select(["id", "charge_id", "status"]).execute(),
      db.selectFrom("bank_ledger").select(["reference", "account_id", "amount"]).execute(),
      db.selectFrom("events").select(["charge_id", "event_type"]).where("charge_id", "!=", "").execute(),
      db.selectFrom("jobs").select(["kind", "ref_id"]).where("state", "=", "pending").execute(),
      db.selectFrom("payment_links").select(["id", "state"]).execute(),
      db.selectFrom("zengin_debits").select(["reference", "state"]).execute(),
      db.selectFrom("contracts").select(["id", "bank_account_id"]).execute(),
    ]);
  return {
    charges: charges.map(chargeFromRow),
    refunds: refunds.map(refundFromRow),
    asyncRequests: asyncRequests.map((r) => ({ id: r.id, chargeId: r.charge_id, status: r.status })),
    ledger: ledger.map((r) => ({ reference: r.reference, accountId: r.account_id, amount: Number(r.amount) })),
    contracts: contracts.map((c) => ({ id: c.id, bankAccountId: c.bank_account_id })),
    events: events.map((e) => ({ chargeId: e.charge_id, type: e.event_type })),
    pendingJobs: pendingJobs.map((j) => ({ kind: j.kind, refId: j.ref_id })),
    links,
    zenginDebits,
  };
}
