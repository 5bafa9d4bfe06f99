import { sql } from "kysely";
import { accountIdentity, parseAccount } from "../domain/bank-account.js";
import type { MoneySnapshot, ZenginItemFacts } from "../domain/invariants.js";
import { keyedHash, unseal } from "./sealed.js";
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
  const [
    charges,
    refunds,
    asyncRequests,
    ledger,
    events,
    pendingJobs,
    links,
    zenginDebits,
    contracts,
    zenginTransfers,
    zenginFiles,
    accounts,
    subscriptionPeriods,
    subscriptionAttempts,
    subscriptionLastPeriods,
  ] = await Promise.all([
    db.selectFrom("charges").selectAll().execute(),
    db.selectFrom("refunds").selectAll().execute(),
    db.selectFrom("async_requests").select(["id", "charge_id", "status"]).execute(),
    db.selectFrom("bank_ledger").select(["reference", "account_id", "amount"]).execute(),
    db.selectFrom("events").select(["charge_id", "event_type"]).where("charge_id", "!=", "").execute(),
    db.selectFrom("jobs").select(["kind", "ref_id"]).where("state", "=", "pending").execute(),
    db.selectFrom("payment_links").select(["id", "state"]).execute(),
    db.selectFrom("zengin_debits").select(itemColumns).execute(),
    db.selectFrom("contracts").select(["id", "bank_account_id"]).execute(),
    db.selectFrom("zengin_transfers").select(itemColumns).execute(),
    db.selectFrom("zengin_files").selectAll().where("direction", "=", "out").execute(),
    db.selectFrom("bank_accounts").select(["id", "account_sealed"]).execute(),
    db.selectFrom("subscription_periods").select(["subscription_id", "period", "final_amount", "charge_id"]).execute(),
    db.selectFrom("subscription_attempts").select(["subscription_id", "period", "attempt", "charge_id"]).execute(),
    db.selectFrom("subscriptions").select(["id", "last_period"]).execute(),
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
    subscriptionPeriods: subscriptionPeriods.map((p) => ({
      subscriptionId: p.subscription_id,
      period: p.period,
      finalAmount: p.final_amount,
      chargeId: p.charge_id,
    })),
    subscriptionAttempts: subscriptionAttempts.map((a) => ({
      subscriptionId: a.subscription_id,
      period: a.period,
      attempt: a.attempt,
      chargeId: a.charge_id,
    })),
    subscriptionLastPeriods: subscriptionLastPeriods.map((s) => ({ subscriptionId: s.id, lastPeriod: s.last_period })),
    subscriptionCharges: charges.flatMap((c) => {
      const subscriptionId = JSON.parse(c.metadata_json).subscription_id;
      return typeof subscriptionId === "string" ? [{ chargeId: c.id, subscriptionId }] : [];
    }),
    zenginDebits: zenginDebits.map(itemFacts),
    zenginTransfers: zenginTransfers.map(itemFacts),
    zenginFiles: zenginFiles.map((f) => ({
      id: f.id,
      name: f.name,
      state: f.state,
      recordCount: f.record_count,
      totalAmount: Number(f.total_amount),
      doneCount: f.done_count,
      doneAmount: Number(f.done_amount),
      failedCount: f.failed_count,
      failedAmount: Number(f.failed_amount),
    })),
    accountKeys: accounts.map((a) => ({ id: a.id, accountKey: accountKeyOf(a.account_sealed) })),
  };
}

const itemColumns = ["reference", "state", "amount", "result_code", "file_id", "account_sealed"] as const;

function itemFacts(row: {
  reference: string;
  state: string;
  amount: number;
  result_code: number | null;
  file_id: string | null;
  account_sealed: string;
}): ZenginItemFacts {
  return {
    reference: row.reference,
    state: row.state as ZenginItemFacts["state"],
    amount: Number(row.amount),
    resultCode: row.result_code,
    fileId: row.file_id,
    accountKey: accountKeyOf(row.account_sealed),
  };
}

/**
 * Which account sealed details name, under the current key: the stored keyed hashes may predate
 * a key rotation (until `secrets reseal`), so they are not compared as they are.
 */
function accountKeyOf(sealed: string): string {
  return keyedHash(accountIdentity(parseAccount(unseal(sealed))));
}
