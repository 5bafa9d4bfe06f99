import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChargeTimelineKind } from "../../gen/payments/v1/dashboard_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { signedInUser, type DashboardBrowser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import type { TestServer } from "../helpers/test-server.js";
import { advanceAndDrain, startZenginServer } from "../helpers/zengin-server.js";

// A Zengin file's records over DashboardService.ListZenginFileRecords (the bank files page opens a
// file), paged in 顧客番号 order with each record's customer, amount and 振替結果コード; and the
// charge page's timeline and metadata (GetChargeDetail) of a charge that went through the file.

let server: TestServer;
let ops: DashboardBrowser;
let other: DashboardBrowser;
const charges: string[] = [];
const customers: string[] = [];

beforeAll(async () => {
  server = await startZenginServer({ consignorCode: "7400000000", simulatedBank: true });
  // 9999993: the simulated bank answers 3 (預金者の都合による振替停止).
  for (const [accountNumber, price] of [
    ["0012345", 1800],
    ["0023456", 2500],
    ["9999993", 3300],
  ] as const) {
    const { customerId } = await seedActiveCustomer(server, { accountNumber, balance: 100_000 });
    customers.push(customerId);
    const { chargeId } = await server.client(PaymentService).createOffSessionPaymentAsync({
      customerId,
      charge: { price, description: "定期便", metadata: { order_id: `A-${price}` } },
    });
    charges.push(chargeId);
  }
  await advanceAndDrain(server, "2026-11-25T06:00:00Z");
  await advanceAndDrain(server, "2026-11-26T08:00:00Z");
  // Signed in after the clock moved two days (a session would have expired).
  ops = await signedInUser(server);
  other = await signedInUser(server, { merchantId: (await server.newMerchant("Other Files")).merchant_id });
});
afterAll(async () => server?.stop());

async function filesOf(kindDirection: string) {
  const { files } = await ops.client.listZenginFiles({});
  return files.filter((file) => `${file.kind}/${file.direction}` === kindDirection);
}

describe("ListZenginFileRecords", () => {
  it("lists the request file's records a page at a time with customer, amount and result code", async () => {
    const [sent] = await filesOf("91/out");
    expect(sent.id).not.toBe("");
    const first = await ops.client.listZenginFileRecords({ fileId: sent.id, pageSize: 2 });
    expect(first.records).toHaveLength(2);
    expect(first.nextPageToken).not.toBe("");
    const second = await ops.client.listZenginFileRecords({
      fileId: sent.id,
      pageSize: 2,
      pageToken: first.nextPageToken,
    });
    expect(second.nextPageToken).toBe("");
    const records = [...first.records, ...second.records];
    expect(records.map((r) => r.customerNumber)).toEqual(records.map((r) => r.customerNumber).sort());
    // Numbered by creation time then reference: compared in the charges' order.
    const byReference = [...records].sort((a, b) => charges.indexOf(a.reference) - charges.indexOf(b.reference));
    expect(
      byReference.map((r) => [r.reference, r.chargeId, r.customerId, Number(r.amount), r.state, r.resultCode]),
    ).toEqual([
      [charges[0], charges[0], customers[0], 1800, "answered", 0],
      [charges[1], charges[1], customers[1], 2500, "answered", 0],
      [charges[2], charges[2], customers[2], 3300, "answered", 3],
    ]);
    expect(first.kind).toBe("91");
    expect(first.fileName).toBe(sent.name);
    expect(new Set([...first.payers, ...second.payers].map((p) => p.customerId))).toEqual(new Set(customers));
  });

  it("a result file lists the records of the request it answers", async () => {
    const [received] = await filesOf("91/in");
    const page = await ops.client.listZenginFileRecords({ fileId: received.id, pageSize: 50 });
    expect(new Map(page.records.map((r) => [r.reference, r.resultCode]))).toEqual(
      new Map([
        [charges[0], 0],
        [charges[1], 0],
        [charges[2], 3],
      ]),
    );
  });

  it("another merchant's file is not found", async () => {
    const [sent] = await filesOf("91/out");
    const refused = await other.client.listZenginFileRecords({ fileId: sent.id }).catch((e) => ConnectError.from(e));
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.NotFound);
  });
});

describe("GetChargeDetail's timeline", () => {
  it("created, filed in the request file, answered with the result code, the webhook delivered or not; and the metadata", async () => {
    const [sent] = await filesOf("91/out");
    const detail = await ops.client.getChargeDetail({ chargeId: charges[2] });
    expect(detail.charge!.metadata).toEqual({ order_id: "A-3300" });
    const kinds = detail.timeline.map((e) => e.kind);
    expect(kinds.slice(0, 3)).toEqual([
      ChargeTimelineKind.CREATED,
      ChargeTimelineKind.BANK_FILED,
      ChargeTimelineKind.FAILED,
    ]);
    expect(detail.timeline[0].amount).toBe(3300);
    expect(detail.timeline[1].fileName).toBe(sent.name);
    expect(detail.timeline[2].resultCode).toBe(3);
    const times = detail.timeline.map((e) => e.at!.seconds);
    expect(times).toEqual([...times].sort((a, b) => Number(a - b)));
    const ok = await ops.client.getChargeDetail({ chargeId: charges[0] });
    expect(ok.timeline.map((e) => [e.kind, e.resultCode])).toContainEqual([ChargeTimelineKind.SUCCEEDED, 0]);
  });
});
