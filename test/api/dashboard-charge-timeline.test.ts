import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeTimelineKind } from "../../gen/payments/v1/dashboard_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { signedInUser, type DashboardBrowser } from "../helpers/dashboard.js";
import { createPayment, freshEmail, payStepByStep } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// GetChargeDetail's timeline of a payment link the customer completed (docs/guide/dashboard.md#the-charge-page):
// created, the mandate the customer agreed to, the page completed, the bank's answer, then a refund
// accepted; oldest first.

let server: TestServer;
let ops: DashboardBrowser;

beforeAll(async () => {
  server = await startTestServer();
  ops = await signedInUser(server);
});
afterAll(async () => server?.stop());

describe("the charge page's timeline", () => {
  it("shows the customer's steps on the payment page, the answer and a refund, in order", async () => {
    const email = freshEmail();
    const created = await createPayment(server, { buyer: { email } });
    const chargeId = created.charge!.chargeId;
    server.clock.advance(60_000);
    await payStepByStep(server, created.paymentLink!.url, { email });
    server.clock.advance(60_000);
    await server.client(PaymentService).refund({ chargeId, amount: 200, reason: "一部返品" });

    const { timeline } = await ops.client.getChargeDetail({ chargeId });
    const kinds = timeline.map((e) => e.kind);
    expect(kinds[0]).toBe(ChargeTimelineKind.CREATED);
    for (const kind of [
      ChargeTimelineKind.MANDATE_ACCEPTED,
      ChargeTimelineKind.CUSTOMER_COMPLETED,
      ChargeTimelineKind.SUCCEEDED,
      ChargeTimelineKind.REFUND_ACCEPTED,
    ])
      expect(kinds).toContain(kind);
    expect(kinds.indexOf(ChargeTimelineKind.MANDATE_ACCEPTED)).toBeLessThan(
      kinds.indexOf(ChargeTimelineKind.REFUND_ACCEPTED),
    );
    const refund = timeline.find((e) => e.kind === ChargeTimelineKind.REFUND_ACCEPTED)!;
    expect(refund.amount).toBe(200);
    expect(refund.refundId).toMatch(/^rfd-/);
    const times = timeline.map((e) => Number(e.at!.seconds) * 1000 + e.at!.nanos / 1e6);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[times.length - 1] - times[0]).toBeGreaterThanOrEqual(120_000);
  });
});
