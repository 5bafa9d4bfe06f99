/**
 * What the debit-date benches seed (bench/subscription-cycle.ts, bench/debit-day.ts): one merchant
 * with a consignor contract, a monthly plan debited on the 27th, `customers` customers with an
 * active contract and a linked account each, and `subscriptions` subscriptions spread over them,
 * all due on 2026-11-27. Everything after the merchant and the plan is written with multi-row
 * inserts, the rows test/helpers/fixtures.ts's seedActiveCustomer writes one at a time.
 */
import { BankAccountType } from "../gen/payments/v1/enums_pb.js";
import { accountIdentity, serialiseAccount } from "../src/domain/bank-account.js";
import { noDebits } from "../src/domain/bank-profile.js";
import { defaultDunning } from "../src/domain/dunning.js";
import { newId } from "../src/domain/ids.js";
import { requireBankAccountHolder } from "../src/domain/kana.js";
import { createMerchant, updateConsignor } from "../src/flows/merchants.js";
import { createPlan } from "../src/flows/plans.js";
import type { FlowContext } from "../src/flows/flow-context.js";
import { keyedHash, seal } from "../src/storage/sealed.js";
import { activatedContractRow, activeCustomerRow } from "../test/helpers/fixtures.js";

/** The seeded subscriptions' debit date; its Zengin cutoff is 15:00 JST the business day before. */
export const debitDate = "2026-11-27";
/** Thursday 26th 15:00 JST: the cutoff, when the file cycle charges the date and writes its file. */
export const cutoff = new Date("2026-11-26T06:00:00Z");

/** Rows per transaction, and per insert statement (under SQLite's and PostgreSQL's bound parameters). */
const perTransaction = 2000;
const perStatement = 100;

export async function seedDebitDate(
  ctx: FlowContext,
  options: { customers: number; subscriptions: number; webhookUrl?: string },
): Promise<{ merchantId: string }> {
  const created = await createMerchant(ctx, { name: "Bench Shop", webhookUrl: options.webhookUrl });
  const merchant = { id: created.merchant_id, name: "Bench Shop" };
  await updateConsignor(ctx, merchant.id, {
    code: "9234567891",
    name: "ﾍﾞﾝﾁ",
    bankCode: "0001",
    branchCode: "001",
    accountType: "1",
    accountNumber: "1234567",
  });
  const plan = await createPlan(ctx, merchant, {
    name: "月額",
    amount: 3300,
    intervalUnit: "month",
    intervalCount: 1,
    dunning: defaultDunning,
    noticeDays: 0,
    debitDay: 27,
    firstPeriod: "full",
    discount: null,
    metadata: {},
  });
  const now = ctx.clock.now().toISOString();
  const customers: { customerId: string; contractId: string }[] = [];
  await inBatches(ctx, options.customers, (i) => {
    const ids = { customerId: newId("cus"), contractId: newId("con"), accountId: newId("bac") };
    customers.push(ids);
    return activeCustomerRows(merchant.id, ids, i, now);
  });
  await inBatches(ctx, options.subscriptions, (i) => {
    const customer = customers[i % customers.length];
    return {
      subscriptions: {
        id: newId("sub"),
        merchant_id: merchant.id,
        customer_id: customer.customerId,
        contract_id: customer.contractId,
        plan_id: plan.id,
        amount: null,
        start_period: "2026-11",
        end_period: null,
        status: "active",
        cancel_at_period_end: 0,
        end_reason: null,
        next_period: "2026-11",
        next_debit_date: debitDate,
        last_period: null,
        description: "月額",
        metadata_json: "{}",
        created_at: now,
        updated_at: now,
        ended_at: null,
        carry_json: "[]",
      },
    };
  });
  return { merchantId: merchant.id };
}

type Rows = { [table in "customers" | "bank_accounts" | "contracts" | "subscriptions"]?: object };

/** `count` rows of each table `row(i)` gives, inserted `perStatement` at a time, in table order. */
async function inBatches(ctx: FlowContext, count: number, row: (i: number) => Rows): Promise<void> {
  for (let start = 0; start < count; start += perTransaction) {
    const tables = new Map<keyof Rows, object[]>();
    for (let i = start; i < Math.min(start + perTransaction, count); i++)
      for (const [table, values] of Object.entries(row(i)) as [keyof Rows, object][]) {
        if (!tables.has(table)) tables.set(table, []);
        tables.get(table)!.push(values);
      }
    await ctx.tx.write(async (trx) => {
      for (const [table, rows] of tables)
        for (let at = 0; at < rows.length; at += perStatement)
          await trx
            .insertInto(table)
            .values(rows.slice(at, at + perStatement) as never)
            .execute();
    });
  }
}

// Stored as linking stores it: in the bank's half-width form (domain/kana.ts).
const holder = requireBankAccountHolder("ヤマダ タロウ");

/** A customer who approved a contract on their own account, as the on-session flow leaves them. */
function activeCustomerRows(
  merchantId: string,
  ids: { customerId: string; contractId: string; accountId: string },
  i: number,
  now: string,
): Rows {
  const account = {
    bankCode: "0005",
    branchCode: "001",
    accountType: BankAccountType.ORDINARY,
    accountNumber: String(1_000_000 + (i % 9_000_000)),
    accountHolder: holder,
  };
  return {
    customers: activeCustomerRow(ids.customerId, merchantId, now),
    bank_accounts: {
      id: ids.accountId,
      customer_id: ids.customerId,
      merchant_id: merchantId,
      account_sealed: seal(serialiseAccount(account)),
      account_key: keyedHash(accountIdentity(account)),
      balance: 1_000_000,
      quota: 0,
      under_maintenance: 0,
      maintenance_until: null,
      reject: 0,
      latency_ms: 0,
      created_at: now,
      debits_day_start: noDebits.dayStart,
      debits_today: noDebits.today,
      debits_month_start: noDebits.monthStart,
      debits_this_month: noDebits.thisMonth,
    },
    contracts: activatedContractRow(ids, merchantId, now),
  };
}
