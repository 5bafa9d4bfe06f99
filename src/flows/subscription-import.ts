import { chargingRefusals } from "../domain/onboarding.js";
import { refuseBlockedMerchant } from "./charging-allowed.js";
import { periodOfDate, type BillingPeriod } from "../domain/billing-period.js";
import { csvBatchRefusals, type CsvBatchRecord, type CsvRowWithCharge } from "../domain/csv-batch.js";
import { readCsvUpload } from "../domain/csv-file.js";
import { resultCsv } from "../domain/csv-result.js";
import type { CsvReason } from "../domain/csv-row.js";
import { jstDateOf, type JstDate } from "../domain/jst.js";
import { periodAmounts, type PlanRecord, priceOf } from "../domain/plan.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import {
  type BillingRules,
  firstScheduleOf,
  nextScheduleFrom,
  type SubscriptionRecord,
  subscriptionReasons,
} from "../domain/subscription.js";
import {
  checkImportRow,
  checkImportRows,
  importReasons,
  indexesSharingKey,
  type ImportRow,
  subscriptionImportLayout,
} from "../domain/subscription-import.js";
import { csvRowsWithCharges, findCsvBatch, listCsvBatches, updateCsvRow } from "../storage/csv-batches.js";
import { plansByIds } from "../storage/plans.js";
import { livePlansOfCustomers } from "../storage/subscriptions.js";
import type { Tx } from "../storage/transactor.js";
import { billingRulesOf } from "./bank-rules.js";
import {
  confirmBatchWithTotp,
  newBatchChallenge,
  newCsvRow,
  storeUploadedBatch,
  type TotpChallenge,
} from "./csv-confirmation.js";
import { resolveCsvCustomers } from "./csv-customers.js";
import type { DashboardPrincipal } from "./dashboard-auth.js";
import type { FlowContext } from "./flow-context.js";
import { newSubscription, saveNewSubscriptions } from "./subscriptions.js";

/**
 * The CSV import of subscriptions (docs/guide/recurring-billing.md#importing-subscriptions-from-a-csv-file):
 * uploaded, previewed row by row as it will be applied, confirmed with a TOTP code (the charge
 * batches' confirmation, src/flows/csv-confirmation.ts), which creates every valid row's
 * subscription in its one transaction, once.
 */

/** An import as the dashboard shows it. */
export interface SubscriptionImportView {
  id: string;
  fileName: string;
  /** uploaded: waiting for confirmation; completed: applied. */
  status: "uploaded" | "completed";
  rowCount: number;
  created: number;
  failed: number;
  createdAt: Date;
  confirmedAt: Date | undefined;
  expiresAt: Date;
}

/** A row as it will be applied (before confirmation) or as it was. */
export interface SubscriptionImportRowView {
  rowNumber: number;
  cells: string[];
  status: "valid" | "failed" | "created";
  reason: string;
  reasonJa: string;
  /** The customer the row resolved to (cus-*), when it did. */
  customerId: string;
  planName: string;
  /** Before confirmation: the start period, the first charged period, its debit date and final amount. */
  startPeriod: string;
  firstPeriod: string;
  firstDebitDate: string;
  firstAmount: number;
  subscriptionId: string;
}

/** Upload: a file-level rejection throws and nothing is stored; otherwise rows are stored with a challenge. */
export async function uploadSubscriptionImport(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  file: { fileName: string; content: Uint8Array },
): Promise<{ view: SubscriptionImportView; invalidRowCount: number; challenge: TotpChallenge }> {
  if (!principal.totpEnabled) throw csvBatchRefusals.totpNotEnabled();
  await refuseBlockedMerchant(ctx, principal.merchant.id, chargingRefusals.precondition);
  const upload = readCsvUpload(file.content, subscriptionImportLayout);
  const checks = checkImportRows(upload.rows, upload.header.length);
  const { batch, challenge } = await storeUploadedBatch(
    ctx,
    principal,
    {
      kind: "subscriptions",
      fileName: file.fileName,
      upload,
      rows: upload.rows.map((cells, i) => newCsvRow(cells, checks[i])),
    },
    "subscription_import.upload",
  );
  return {
    view: viewOf(batch, await csvRowsWithCharges(ctx.tx.db, batch.id)),
    invalidRowCount: checks.filter((check) => !check.valid).length,
    challenge,
  };
}

export function newSubscriptionImportChallenge(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  importId: string,
): Promise<TotpChallenge> {
  return newBatchChallenge(ctx, principal, importId, "subscriptions");
}

/**
 * Confirmation: the TOTP checks, then in the same transaction each ready row resolved again (as the
 * preview did, at this moment) and its subscription created, or the row failed with its reason.
 * A second or parallel confirmation finds the import confirmed and creates nothing.
 */
export async function confirmSubscriptionImport(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  input: { batchId: string; challengeId: string; code: string },
): Promise<SubscriptionImportView> {
  await refuseBlockedMerchant(ctx, principal.merchant.id, chargingRefusals.precondition);
  const rules = billingRulesOf(ctx.config);
  await confirmBatchWithTotp(
    ctx,
    principal,
    input,
    "subscriptions",
    "subscription_import.confirm",
    async (trx, batch, now) => {
      const ready = (await csvRowsWithCharges(trx, batch.id)).filter((row) => row.state === "ready");
      const plans = await resolveImportRows(trx, batch, ready, rules, now);
      const created: SubscriptionRecord[] = [];
      for (const [i, row] of ready.entries()) {
        const plan = plans[i];
        if ("failure" in plan) {
          await updateCsvRow(trx, batch.id, row.rowNumber, {
            state: "failed",
            reason: plan.failure.en,
            reasonJa: plan.failure.ja,
            updatedAt: now,
          });
          continue;
        }
        const input = { ...plan.input, endPeriod: "", description: "", metadata: {} };
        const subscription = newSubscription(batch.merchantId, plan, plan.plan, input, plan.first, now);
        created.push(subscription);
        await updateCsvRow(trx, batch.id, row.rowNumber, {
          state: "submitted",
          customerId: plan.customerId,
          subscriptionId: subscription.id,
          updatedAt: now,
        });
      }
      await saveNewSubscriptions(trx, created, principal.merchant.name, now);
    },
  );
  ctx.wake("events");
  return getSubscriptionImport(ctx, principal, input.batchId);
}

export async function getSubscriptionImport(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  importId: string,
): Promise<SubscriptionImportView> {
  const batch = await requireImport(ctx, principal, importId);
  return viewOf(batch, await csvRowsWithCharges(ctx.tx.db, batch.id));
}

export async function listRecentSubscriptionImports(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  limit: number,
): Promise<SubscriptionImportView[]> {
  const batches = await listCsvBatches(ctx.tx.db, principal.merchant.id, limit, "subscriptions");
  return Promise.all(batches.map(async (batch) => viewOf(batch, await csvRowsWithCharges(ctx.tx.db, batch.id))));
}

/**
 * Every row with what it will do (before confirmation: resolved now as the confirmation will
 * resolve it, so a row that will fail is failed already, with its reason) or what it did.
 */
export async function subscriptionImportRows(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  importId: string,
  failedOnly: boolean,
): Promise<{ rows: SubscriptionImportRowView[]; validCount: number; invalidCount: number }> {
  const batch = await requireImport(ctx, principal, importId);
  const stored = await csvRowsWithCharges(ctx.tx.db, batch.id);
  const preview = batch.status === "uploaded";
  const ready = preview ? stored.filter((row) => row.state === "ready") : [];
  const resolved = await resolveImportRows(ctx.tx.db, batch, ready, billingRulesOf(ctx.config), ctx.clock.now());
  const byRow = new Map(ready.map((row, i) => [row.rowNumber, resolved[i]]));
  const plans = await plansByIds(
    ctx.tx.db,
    batch.merchantId,
    stored.map((row) => (row.cells[2] ?? "").trim()),
  );
  const views = stored.map((row): SubscriptionImportRowView => {
    const base = {
      rowNumber: row.rowNumber,
      cells: row.cells,
      customerId: row.customerId ?? "",
      planName: plans.get((row.cells[2] ?? "").trim())?.name ?? "",
      startPeriod: "",
      firstPeriod: "",
      firstDebitDate: "",
      firstAmount: 0,
      subscriptionId: row.subscriptionId ?? "",
    };
    const planned = byRow.get(row.rowNumber);
    if (planned && "failure" in planned)
      return { ...base, status: "failed", reason: planned.failure.en, reasonJa: planned.failure.ja };
    if (planned)
      return {
        ...base,
        status: "valid",
        reason: "",
        reasonJa: "",
        customerId: planned.customerId,
        startPeriod: planned.input.startPeriod,
        firstPeriod: planned.first.period,
        firstDebitDate: planned.first.debitDate,
        firstAmount: planned.firstAmount,
      };
    if (row.state === "submitted") return { ...base, status: "created", reason: "", reasonJa: "" };
    return { ...base, status: "failed", reason: row.reason, reasonJa: row.reasonJa || row.reason };
  });
  const invalidCount = views.filter((row) => row.status === "failed").length;
  return {
    rows: failedOnly ? views.filter((row) => row.status === "failed") : views,
    validCount: views.length - invalidCount,
    invalidCount,
  };
}

/** The result CSV: every row as uploaded, with status (created, failed), Reason, 理由 and subscription_id. */
export async function subscriptionImportResult(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  importId: string,
): Promise<{ fileName: string; content: string }> {
  const batch = await requireImport(ctx, principal, importId);
  if (batch.status === "uploaded")
    throw new RequestRefusal("precondition", "the import has not been confirmed yet", {
      reason: "CSV_BATCH_NOT_CONFIRMED",
    });
  const rows = (await csvRowsWithCharges(ctx.tx.db, batch.id)).map((row) => ({
    cells: row.cells,
    chargeId: row.subscriptionId,
    outcome:
      row.state === "submitted"
        ? { status: "created", reason: "", reasonJa: "" }
        : { status: "failed", reason: row.reason, reasonJa: row.reasonJa || row.reason },
  }));
  const baseName = batch.fileName.replace(/\.csv$/i, "");
  return { fileName: `${baseName}-result.csv`, content: resultCsv(batch.header, rows, "subscription_id") };
}

async function requireImport(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  importId: string,
): Promise<CsvBatchRecord> {
  const batch = await findCsvBatch(ctx.tx.db, principal.merchant.id, importId, "subscriptions");
  if (!batch) throw csvBatchRefusals.batchNotFound();
  return batch;
}

function viewOf(batch: CsvBatchRecord, rows: readonly CsvRowWithCharge[]): SubscriptionImportView {
  const confirmed = batch.status !== "uploaded";
  const created = rows.filter((row) => row.state === "submitted").length;
  return {
    id: batch.id,
    fileName: batch.fileName,
    status: confirmed ? "completed" : "uploaded",
    rowCount: batch.rowCount,
    created,
    failed: confirmed ? rows.length - created : rows.filter((row) => row.state === "invalid").length,
    createdAt: batch.createdAt,
    confirmedAt: batch.confirmedAt ?? undefined,
    expiresAt: batch.expiresAt,
  };
}

/** A row resolved: the subscription it creates, or why it creates none. */
type PlannedRow =
  | {
      customerId: string;
      contractId: string;
      plan: PlanRecord;
      input: { customerId: string; planId: string; amount: number; startPeriod: BillingPeriod };
      first: { period: BillingPeriod; debitDate: JstDate };
      firstAmount: number;
    }
  | { failure: CsvReason };

/**
 * The ready rows resolved at `now`, in their order: the customer (docs/reference/contract.md#csv-batch-reasons,
 * group 2), the plan (the merchant's), no live subscription of the customer to the plan already,
 * a start period whose first charge is not yet due (empty: the first such period), and no two
 * rows resolving to one customer and plan.
 */
async function resolveImportRows(
  db: Tx,
  batch: CsvBatchRecord,
  ready: readonly CsvRowWithCharge[],
  rules: BillingRules,
  now: Date,
): Promise<PlannedRow[]> {
  const rows = ready.map((row) => checkImportRow(row.cells, batch.header.length));
  const valid = rows.map(
    (check): ImportRow =>
      check.valid ? check.row : { email: "", customerId: "", planId: "", startPeriod: undefined, amount: undefined },
  );
  const customers = await resolveCsvCustomers(db, batch.merchantId, valid);
  const plans = await plansByIds(
    db,
    batch.merchantId,
    valid.map((row) => row.planId),
  );
  const subscribedIds = customers.flatMap((found) => ("customer" in found ? [found.customer.id] : []));
  const subscribed = new Set(
    (await livePlansOfCustomers(db, batch.merchantId, subscribedIds)).map(
      (pair) => `${pair.customerId}|${pair.planId}`,
    ),
  );
  const planned = valid.map((row, i): PlannedRow => {
    const check = rows[i];
    if (!check.valid) return { failure: { en: check.reason, ja: check.reasonJa } };
    const found = customers[i];
    if ("failure" in found) return found;
    const plan = plans.get(row.planId);
    if (!plan) return { failure: importReasons.planNotFound };
    if (subscribed.has(`${found.customer.id}|${plan.id}`)) return { failure: importReasons.alreadySubscribed };
    const startPeriod = row.startPeriod ?? nextScheduleFrom(periodOfDate(jstDateOf(now)), plan, rules, now).period;
    let first: { period: BillingPeriod; debitDate: JstDate };
    try {
      first = firstScheduleOf(startPeriod, plan, rules, now);
    } catch (error) {
      if (error instanceof RequestRefusal && error.reason === subscriptionReasons.startPeriodPassed)
        return { failure: importReasons.startPeriodPassed(error.facts?.period ?? "", error.facts?.debitDate ?? "") };
      throw error;
    }
    const price = row.amount ?? priceOf(plan.prices, first.period).amount;
    return {
      customerId: found.customer.id,
      contractId: found.contractId,
      plan,
      input: { customerId: found.customer.id, planId: plan.id, amount: row.amount ?? 0, startPeriod },
      first,
      firstAmount: periodAmounts(price, plan.discount, 1).finalAmount,
    };
  });
  const shared = indexesSharingKey(planned.map((row) => ("failure" in row ? "" : `${row.customerId}|${row.plan.id}`)));
  return planned.map((row, i) => (shared.has(i) ? { failure: importReasons.sameSubscription } : row));
}
