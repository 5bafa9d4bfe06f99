import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BankAccountType, ChargeStatus, ContractStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { decodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { decodeTransferFile } from "../../src/domain/zengin-transfer-file.js";
import { createPayment } from "../helpers/on-session.js";
import type { TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";
import { receiveWebhooksOf, type WebhookReceiver } from "../helpers/webhook-receiver.js";
import { expectReconciled } from "../helpers/reconcile.js";

/**
 * The hosted page's payments under BANK_CONNECTOR=zengin, end to end through the jobs as they
 * run in production (the zengin-cycle job, with the simulated bank on): the first debit of a
 * mandate goes into the request file with 新規コード 1 and the account's own 預金種目, and the
 * simulated bank's result file settles it and sends its webhook.
 */
let server: TestServer;
let receiver: WebhookReceiver;
let dir: string;

beforeAll(async () => {
  // From Tuesday 10:00 JST (zenginTuesday): the simulated bank's results come at 17:00 JST on the 26th.
  server = await startZenginServer({ consignorCode: "3234567890", simulatedBank: true });
  dir = server.ctx.config.zengin.dir;
  receiver = await receiveWebhooksOf(server.ctx, server.merchant);
});
afterAll(async () => {
  try {
    await expectReconciled(server);
  } finally {
    await server?.stop();
    await receiver?.close();
  }
});

/** Moves the clock to an instant and runs what is due then (the zengin-cycle job among them). */
async function runAt(iso: string) {
  server.clock.advance(Date.parse(iso) - server.clock.now().getTime());
  await server.jobs.drain();
}

const filesIn = (folder: string, prefix: string) =>
  readdirSync(join(dir, folder)).filter((name) => name.startsWith(prefix));

describe("BANK_CONNECTOR=zengin: an on-session payment approved on the hosted page", () => {
  const paid = { chargeId: "", contractId: "" };
  const refused = { chargeId: "", contractId: "" };

  it("stays PENDING after the approval, its contract active", async () => {
    const sandbox = server.client(SandboxService);
    const approve = async (accountNumber: string, accountType: BankAccountType, price: number) => {
      const link = await createPayment(server, { charge: { price, description: "定期便" } });
      const done = await sandbox.completePayment({ paymentLinkUrl: link.paymentLink!.url, accountNumber, accountType });
      expect(done.chargeStatus).toBe(ChargeStatus.PENDING);
      return { chargeId: done.chargeId, contractId: done.contractId };
    };
    Object.assign(paid, await approve("0012345", BankAccountType.CURRENT, 3300));
    // 9999994: the simulated bank answers 4 (依頼書なし) for it.
    Object.assign(refused, await approve("9999994", BankAccountType.ORDINARY, 4400));
    const payments = server.client(PaymentService);
    for (const { chargeId, contractId } of [paid, refused]) {
      expect((await payments.getCharge({ charge: chargeId })).charge?.chargeStatus).toBe(ChargeStatus.PENDING);
      expect((await payments.getContract({ contract: contractId })).contract?.status).toBe(ContractStatus.ACTIVATED);
    }
  });

  it("is requested at the cutoff as its mandate's first debit (新規コード 1), with the account's 預金種目", async () => {
    await runAt("2026-11-25T05:59:00Z");
    expect(filesIn("outgoing", "Z91_")).toEqual([]);
    await runAt("2026-11-25T06:00:00Z");
    expect(filesIn("outgoing", "Z91_")).toEqual(["Z91_3234567890_20261126.txt"]);
    const request = decodeDebitFile(readFileSync(join(dir, "outgoing", "Z91_3234567890_20261126.txt")), false);
    if (!request.ok) throw new Error(request.reason);
    expect(request.file.debitDate).toBe("1126");
    expect(
      request.file.records
        .map(({ accountType, accountNumber, amount, newCode, resultCode }) => ({
          accountType,
          accountNumber,
          amount,
          newCode,
          resultCode,
        }))
        // Numbered by acceptance time, then reference: both were accepted at the same instant.
        .sort((a, b) => a.amount - b.amount),
    ).toEqual([
      { accountType: 2, accountNumber: "0012345", amount: 3300, newCode: 1, resultCode: 0 },
      { accountType: 1, accountNumber: "9999994", amount: 4400, newCode: 1, resultCode: 0 },
    ]);
    // Nothing settles before the result file.
    const payments = server.client(PaymentService);
    expect((await payments.getCharge({ charge: paid.chargeId })).charge?.chargeStatus).toBe(ChargeStatus.PENDING);
  });

  it("settles from the simulated bank's result file: SUCCESS, and 4 (依頼書なし) fails it and ends its contract", async () => {
    await runAt("2026-11-26T07:59:00Z");
    expect(filesIn("archive", "R91_")).toEqual([]);
    await runAt("2026-11-26T08:00:00Z");
    expect(filesIn("archive", "R91_")).toEqual(["R91_3234567890_20261126.txt"]);
    const payments = server.client(PaymentService);
    const success = (await payments.getCharge({ charge: paid.chargeId })).charge!;
    expect(success.chargeStatus).toBe(ChargeStatus.SUCCESS);
    const failure = (await payments.getCharge({ charge: refused.chargeId })).charge!;
    expect(failure.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(failure.error?.code).toBe(ErrorType.PAYMENT_CUSTOMER_INACTIVE);
    expect(failure.error?.message).toMatch(/Zengin result 4: no debit authorisation, 振替依頼書なし/);
    expect((await payments.getContract({ contract: paid.contractId })).contract?.status).toBe(ContractStatus.ACTIVATED);
    expect((await payments.getContract({ contract: refused.contractId })).contract?.status).toBe(
      ContractStatus.DEACTIVATED,
    );

    await server.webhooks.drain();
    const outcomes = receiver.delivered
      .filter((webhook) => [paid.chargeId, refused.chargeId].includes(String(webhook.content.id)))
      .map((webhook) => [webhook.content.id, webhook.event_type, webhook.content.status]);
    expect(outcomes).toEqual(
      expect.arrayContaining([
        [paid.chargeId, "EVENT_TYPE_CHARGE_SUCCESS", "CHARGE_STATUS_SUCCESS"],
        [refused.chargeId, "EVENT_TYPE_CHARGE_FAIL", "CHARGE_STATUS_FAILURE"],
      ]),
    );
    expect(outcomes).toHaveLength(2);
  });

  it("pays a refund back by a 総合振込 file to the account's own 預金種目", async () => {
    const payments = server.client(PaymentService);
    await payments.refund({ chargeId: paid.chargeId });
    await server.jobs.drain();
    // The transfer goes into the file of the next cutoff, whichever day that falls on.
    for (const day of ["2026-11-27", "2026-11-30"]) await runAt(`${day}T06:00:00Z`);
    const [name] = filesIn("outgoing", "Z21_");
    const transfer = decodeTransferFile(readFileSync(join(dir, "outgoing", name)));
    if (!transfer.ok) throw new Error(transfer.reason);
    expect(
      transfer.file.records.map(({ accountType, accountNumber, amount }) => [accountType, accountNumber, amount]),
    ).toEqual([[2, "0012345", 3300]]);
  });
});
