import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { signedInUser, type DashboardBrowser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The 全額返金 status filter of ListCharges and ExportCharges (docs/guide/dashboard.md#finding-things):
// a charge is found as soon as its accepted refunds cover its amount, settling or settled; 成功 no
// longer finds it, so every charge is under exactly one status filter.

let server: TestServer;
let ops: DashboardBrowser;
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer();
  ops = await signedInUser(server);
  const { customerId } = await seedActiveCustomer(server);
  const pay = server.client(PaymentService);
  const charge = async () =>
    (await pay.createOffSessionPayment({ customerId, charge: { price: 3300, description: "定期便" } })).charge!
      .chargeId;
  ids.untouched = await charge();
  ids.partly = await charge();
  await pay.refund({ chargeId: ids.partly, amount: 1000, reason: "欠品" });
  ids.refunding = await charge();
  await pay.refund({ chargeId: ids.refunding, amount: 1000, reason: "欠品" });
  await pay.refund({ chargeId: ids.refunding, amount: 2300, reason: "欠品" });
  // Two refunds (one of the whole amount would be a same-day cancellation), then both settled.
  ids.settled = await charge();
  for (const amount of [1300, 2000]) {
    const { refund } = await pay.refund({ chargeId: ids.settled, amount, reason: "返品" });
    await server.client(SandboxService).settleRefunds({ refundId: refund!.refundId });
  }
});
afterAll(async () => server?.stop());

const found = async (statuses: ChargeStatus[]) =>
  (await ops.client.listCharges({ filter: { statuses }, pageSize: 50 })).charges.map((c) => c.chargeId).sort();

describe("the 全額返金 filter", () => {
  it("the charges are in the states the test needs", async () => {
    const status = async (id: string) =>
      (await server.client(PaymentService).getCharge({ charge: id })).charge!.chargeStatus;
    expect(await status(ids.refunding)).toBe(ChargeStatus.SUCCESS);
    expect(await status(ids.settled)).toBe(ChargeStatus.REFUNDED);
  });

  it("finds a charge whose refunds cover its amount while they settle, and one settled", async () => {
    expect(await found([ChargeStatus.REFUNDED])).toEqual([ids.refunding, ids.settled].sort());
  });

  it("成功 keeps the untouched and the partly refunded charges, not the fully covered one", async () => {
    expect(await found([ChargeStatus.SUCCESS])).toEqual([ids.untouched, ids.partly].sort());
  });

  it("both statuses together find all four once each", async () => {
    expect(await found([ChargeStatus.SUCCESS, ChargeStatus.REFUNDED])).toEqual(Object.values(ids).sort());
    expect(await found([ChargeStatus.FAILURE])).toEqual([]);
  });

  it("the export follows the same filter", async () => {
    let text = "";
    for await (const piece of ops.client.exportCharges({ filter: { statuses: [ChargeStatus.REFUNDED] } }))
      text += new TextDecoder().decode(piece.chunk);
    const rows = parse(text, { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r.charge_id ?? r.決済ID).sort()).toEqual([ids.refunding, ids.settled].sort());
  });
});
