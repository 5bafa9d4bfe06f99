import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ChargeStatus, ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import {
  IntervalUnit,
  SubscriptionEndReason,
  SubscriptionService,
  SubscriptionStatus,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { decodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { expectReconciled } from "../helpers/reconcile.js";
import type { TestServer } from "../helpers/test-server.js";
import { liveHourly, startZenginServer } from "../helpers/zengin-server.js";

/**
 * Issue 29 under BANK_CONNECTOR=zengin: a debit date's subscription charges are created at its
 * file cutoff, in the one request file of that date; a result 3 deactivates the contract and ends
 * its subscription (docs/guide/recurring-billing.md#the-cycle).
 */

let server: TestServer;
const quarantined: string[] = [];
const consignor = "5234567890";

beforeAll(async () => {
  // Tuesday 2026-11-24 10:00 JST: the 27th's file is due at 15:00 JST on Thursday the 26th.
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

describe("subscriptions on the Zengin file exchange", () => {
  const ids = { plan: "", good: "", stopped: "", stoppedContract: "" };

  it("creates no charge before the cutoff", async () => {
    const { plan } = await subscriptions().createPlan({
      name: "月謝",
      amount: 8000,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 1,
      debitDay: 27,
    });
    ids.plan = plan!.planId;
    const good = await seedActiveCustomer(server, { accountNumber: "0041111" });
    const stopped = await seedActiveCustomer(server, { accountNumber: "9999993" });
    ids.stoppedContract = stopped.contractId;
    for (const [key, customer] of [
      ["good", good],
      ["stopped", stopped],
    ] as const) {
      const { subscription } = await subscriptions().createSubscription({
        customerId: customer.customerId,
        planId: ids.plan,
        startPeriod: "2026-11",
      });
      expect(subscription?.nextDebitDate).toBe("2026-11-27");
      ids[key] = subscription!.subscriptionId;
    }
    await liveUntil("2026-11-26T05:00:00Z"); // 14:00 JST on the 26th, an hour before the cutoff
    const { subscription } = await subscriptions().getSubscription({ subscriptionId: ids.good });
    expect(subscription?.periods).toHaveLength(0);
  });

  it("charges both at the cutoff, in the 27th's one request file", async () => {
    await liveUntil("2026-11-26T06:30:00Z"); // 15:30 JST
    const periods = await Promise.all(
      [ids.good, ids.stopped].map(
        async (subscriptionId) => (await subscriptions().getSubscription({ subscriptionId })).subscription!.periods[0],
      ),
    );
    expect(periods.map((p) => [p.period, p.debitDate, p.finalAmount])).toEqual([
      ["2026-11", "2026-11-27", 8000],
      ["2026-11", "2026-11-27", 8000],
    ]);
    const charge = (await server.client(PaymentService).getCharge({ charge: periods[0].chargeId })).charge!;
    expect([charge.chargeStatus, charge.debitDate]).toEqual([ChargeStatus.PENDING, "2026-11-27"]);
    const decoded = decodeDebitFile(
      readFileSync(join(server.ctx.config.zengin.dir, "outgoing", `Z91_${consignor}_20261127.txt`)),
      false,
    );
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.file.records.map((r) => [r.accountNumber, r.amount]).sort()).toEqual([
      ["0041111", 8000],
      ["9999993", 8000],
    ]);
  });

  it("refuses a price change from the period whose file is written, takes one from the next", async () => {
    const error = await subscriptions()
      .updatePlanPrice({ planId: ids.plan, amount: 9000, fromPeriod: "2026-11" })
      .then(
        () => undefined,
        (e) => ConnectError.from(e),
      );
    expect(error?.code).toBe(Code.FailedPrecondition);
    expect(error?.findDetails(ErrorInfoSchema)[0]?.reason).toBe("PLAN_PERIOD_ALREADY_CHARGED");
    // The next period's file is not written yet: a change from it is taken.
    const { plan } = await subscriptions().updatePlanPrice({ planId: ids.plan, amount: 9000, fromPeriod: "2026-12" });
    expect(plan?.prices.map((p) => [p.amount, p.fromPeriod])).toEqual([
      [8000, ""],
      [9000, "2026-12"],
    ]);
  });

  it("settles by the result file; result 3 deactivates the contract and ends its subscription", async () => {
    await liveUntil("2026-11-27T09:00:00Z"); // 18:00 JST on the 27th: the simulated bank answered at 17:00
    const good = (await subscriptions().getSubscription({ subscriptionId: ids.good })).subscription!;
    const paid = (await server.client(PaymentService).getCharge({ charge: good.periods[0].chargeId })).charge!;
    expect([good.status, paid.chargeStatus, good.nextDebitDate]).toEqual([
      SubscriptionStatus.ACTIVE,
      ChargeStatus.SUCCESS,
      "2026-12-28",
    ]);
    const stopped = (await subscriptions().getSubscription({ subscriptionId: ids.stopped })).subscription!;
    expect([stopped.status, stopped.endReason, stopped.nextPeriod]).toEqual([
      SubscriptionStatus.CANCELLED,
      SubscriptionEndReason.CONTRACT_DEACTIVATED,
      "",
    ]);
    const contract = await server.client(PaymentService).getContract({ contract: ids.stoppedContract });
    expect(contract.contract?.status).toBe(ContractStatus.DEACTIVATED);
  });
});
