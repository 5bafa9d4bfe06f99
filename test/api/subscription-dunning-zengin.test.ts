import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import {
  DunningAction,
  IntervalUnit,
  PastDueReason,
  SubscriptionService,
  SubscriptionStatus,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { decodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { expectReconciled } from "../helpers/reconcile.js";
import type { TestServer } from "../helpers/test-server.js";
import { liveHourly, startZenginServer } from "../helpers/zengin-server.js";

/**
 * A re-debit (再振替) under BANK_CONNECTOR=zengin (docs/guide/recurring-billing.md#re-debits-and-dunning):
 * the simulated bank answers result 1 (資金不足) in the 4 December result file, and the re-debit is
 * a record of a later date's request file (9 December), which the topped-up account pays.
 */

let server: TestServer;
const quarantined: string[] = [];
const consignor = "5234567891";

beforeAll(async () => {
  server = await startZenginServer({ consignorCode: consignor, simulatedBank: true });
});
afterAll(async () => {
  try {
    expect(quarantined).toEqual([]);
    await expectReconciled(server);
  } finally {
    await server?.stop();
  }
});

const subscriptions = () => server.client(SubscriptionService);
const liveUntil = (iso: string) => liveHourly(server, iso, quarantined);

/** The records (account, amount) of a date's request file, or undefined when none is written. */
function recordsOf(date: string) {
  const path = join(server.ctx.config.zengin.dir, "outgoing", `Z91_${consignor}_${date}.txt`);
  if (!existsSync(path)) return undefined;
  const decoded = decodeDebitFile(readFileSync(path), false);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.file.records.map((r) => [r.accountNumber, r.amount]);
}

describe("a re-debit on the Zengin file exchange", () => {
  let customerId = "";
  let subscriptionId = "";

  it("a result 1 in the result file makes the subscription past due with a re-debit for a later file", async () => {
    const customer = await seedActiveCustomer(server, { accountNumber: "0042222", balance: 0 });
    customerId = customer.customerId;
    const { plan } = await subscriptions().createPlan({
      name: "月謝",
      amount: 8000,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 1,
      debitDay: 4,
      dunning: { action: DunningAction.RETRY, retryAfterDays: 5, maxAttempts: 2 },
    });
    const { subscription } = await subscriptions().createSubscription({
      customerId,
      planId: plan!.planId,
      startPeriod: "2026-12",
    });
    subscriptionId = subscription!.subscriptionId;
    await liveUntil("2026-12-04T09:00:00Z"); // 18:00 JST on Friday the 4th: the result file was read
    expect(recordsOf("20261204")).toEqual([["0042222", 8000]]);
    const failed = (await subscriptions().getSubscription({ subscriptionId })).subscription!;
    expect([failed.status, failed.pastDueReason, failed.pastDuePeriod]).toEqual([
      SubscriptionStatus.PAST_DUE,
      PastDueReason.RETRYING,
      "2026-12",
    ]);
    expect(failed.attempts.map((a) => [a.attempt, a.debitDate, a.status])).toEqual([
      [1, "2026-12-04", ChargeStatus.FAILURE],
      [2, "2026-12-09", ChargeStatus.PENDING],
    ]);
    const first = (await server.client(PaymentService).getCharge({ charge: failed.attempts[0].chargeId })).charge!;
    expect(first.error?.code).toBe(ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS);
    const retry = (await server.client(PaymentService).getCharge({ charge: failed.attempts[1].chargeId })).charge!;
    expect([retry.debitDate, retry.finalAmount]).toEqual(["2026-12-09", 8000]);
    expect(recordsOf("20261209")).toBeUndefined();
  });

  it("the re-debit is a record of the 9 December request file and its success returns to ACTIVE", async () => {
    await server.client(SandboxService).configureBankAccount({ customerId, balance: 100_000n });
    await liveUntil("2026-12-09T09:00:00Z"); // 18:00 JST on Wednesday the 9th
    expect(recordsOf("20261209")).toEqual([["0042222", 8000]]);
    const paid = (await subscriptions().getSubscription({ subscriptionId })).subscription!;
    expect([paid.status, paid.pastDueReason, paid.periods.length]).toEqual([
      SubscriptionStatus.ACTIVE,
      PastDueReason.UNSPECIFIED,
      1,
    ]);
    const { account } = await server.client(SandboxService).getBankAccount({ customerId });
    expect(account?.balance).toBe(100_000n - 8_000n);
  });
});
