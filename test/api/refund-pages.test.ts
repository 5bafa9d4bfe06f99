import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { newId } from "../../src/domain/ids.js";
import { chargeRefundsShown } from "../../src/flows/status.js";
import { refundToRow } from "../../src/storage/records.js";
import { seedCharge } from "../helpers/charges.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

/** `count` settled refunds of 1 yen on the charge, one second apart from now on (the clock moves past them), written straight to the database. */
async function seedRefunds(server: TestServer, chargeId: string, count: number, firstSeq = 1): Promise<string[]> {
  const start = server.clock.now().getTime();
  const rows = Array.from({ length: count }, (_, i) => {
    const at = new Date(start + i * 1000);
    const row = refundToRow({
      id: newId("rfd"),
      merchantId: server.merchant.merchant_id,
      chargeId,
      amount: 1,
      status: RefundStatus.SUCCEEDED,
      cancellation: false,
      reason: "",
      metadata: {},
      errorMessage: "",
      settleAfter: at,
      createdAt: at,
      updatedAt: at,
    });
    return { ...row, seq: firstSeq + i };
  });
  await server.ctx.tx.write(async (trx) => {
    for (let i = 0; i < rows.length; i += 200)
      await trx
        .insertInto("refunds")
        .values(rows.slice(i, i + 200))
        .execute();
  });
  server.clock.advance(count * 1000);
  return rows.map((row) => row.id);
}

for (const dialect of dialects) {
  describe(`a charge's refunds on ${dialect}`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ dialect, env: { WORKERS: "off" } });
    });
    afterAll(() => server?.stop());

    it("GetCharge carries the 10 most recent, oldest first, and says when there are more", async () => {
      const chargeId = await seedCharge(server, { merchantId: server.merchant.merchant_id, amount: 10_000 });
      const client = server.client(PaymentService);
      const ids = await seedRefunds(server, chargeId, chargeRefundsShown);
      expect(chargeRefundsShown).toBe(10);
      const all = (await client.getCharge({ charge: chargeId })).charge!;
      expect(all.refunds.map((refund) => refund.refundId)).toEqual(ids);
      expect(all.refundsTruncated).toBe(false);

      const more = await seedRefunds(server, chargeId, 5, chargeRefundsShown + 1);
      const bounded = (await client.getCharge({ charge: chargeId })).charge!;
      expect(bounded.refunds.map((refund) => refund.refundId)).toEqual([...ids, ...more].slice(-chargeRefundsShown));
      expect(bounded.refundsTruncated).toBe(true);
    });

    it("ListRefunds pages through every refund, oldest first, over Connect and the plain path", async () => {
      const chargeId = await seedCharge(server, { merchantId: server.merchant.merchant_id, amount: 10_000 });
      const ids = await seedRefunds(server, chargeId, 45);
      const client = server.client(PaymentService);
      const seen: string[] = [];
      let pageToken = "";
      let pages = 0;
      do {
        const page = await client.listRefunds({ chargeId, pageSize: 20, pageToken });
        expect(page.refunds.length).toBeLessThanOrEqual(20);
        seen.push(...page.refunds.map((refund) => refund.refundId));
        pageToken = page.nextPageToken;
        pages++;
      } while (pageToken);
      expect(pages).toBe(3);
      expect(seen).toEqual(ids);

      const response = await api(server, `/v1/charge/${chargeId}/refunds?page_size=2`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { refunds: { refundId: string }[]; nextPageToken: string };
      expect(body.refunds.map((refund) => refund.refundId)).toEqual(ids.slice(0, 2));
      expect(body.nextPageToken).not.toBe("");
    });

    it("lists refunds in the order they were accepted", async () => {
      const { customerId } = await seedActiveCustomer(server);
      const client = server.client(PaymentService);
      const { charge } = await client.createOffSessionPayment({ customerId, charge: { price: 10_000 } });
      const chargeId = charge!.chargeId;
      const accepted: string[] = [];
      for (let i = 0; i < 8; i++) accepted.push((await client.refund({ chargeId, amount: 1 })).refund!.refundId);
      const listed = async () => (await client.listRefunds({ chargeId })).refunds.map((refund) => refund.refundId);
      expect(await listed()).toEqual(accepted);
    });

    it("ListRefunds answers not_found for another merchant's charge", async () => {
      const chargeId = await seedCharge(server, { merchantId: server.merchant.merchant_id });
      const other = await server.newMerchant("Other");
      const refused = await server
        .client(PaymentService, other.api_key)
        .listRefunds({ chargeId })
        .catch((error: unknown) => ConnectError.from(error));
      expect(refused).toBeInstanceOf(ConnectError);
      expect((refused as ConnectError).code).toBe(Code.NotFound);
    });
  });
}
