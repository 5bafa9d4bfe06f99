import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { decodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { enrolTotp, nextTotpCode, signedInUser, type DashboardBrowser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import type { TestServer } from "../helpers/test-server.js";
import { advanceAndDrain, startZenginServer } from "../helpers/zengin-server.js";
import { expectReconciled } from "../helpers/reconcile.js";

/**
 * A CSV batch under BANK_CONNECTOR=zengin: its charges get a debit date like any other, go into
 * the request file, and the batch's result follows the result file (the simulated bank on).
 */
let server: TestServer;
let ops: DashboardBrowser;
let secret: string;
let dir: string;

beforeAll(async () => {
  server = await startZenginServer({ consignorCode: "6234567891", simulatedBank: true });
  dir = server.ctx.config.zengin.dir;
  ops = await signedInUser(server);
  secret = await enrolTotp(server, ops);
});
afterAll(async () => {
  try {
    await expectReconciled(server);
  } finally {
    await server?.stop();
  }
});

const advanceTo = (iso: string) => advanceAndDrain(server, iso);

describe("a CSV batch with BANK_CONNECTOR=zengin", () => {
  it("puts its charges into the request file and settles its rows from the result file", async () => {
    const paying = await seedActiveCustomer(server, { email: "paying@example.jp", accountNumber: "0012345" });
    // 9999991: the simulated bank answers 1 (資金不足).
    const broke = await seedActiveCustomer(server, { email: "broke@example.jp", accountNumber: "9999991" });
    const content = Buffer.from(
      [
        "customer_email,customer_id,price,description,metadata,idempotency_key",
        "paying@example.jp,,1800,Monthly box,,csv-zengin-1",
        "broke@example.jp,,2200,Monthly box,,csv-zengin-2",
      ].join("\r\n"),
    );
    const batch = await ops.client.uploadCsvBatch({ fileName: "zengin.csv", content });
    await ops.client.confirmCsvBatch({
      batchId: batch.batchId,
      challengeId: batch.challengeId,
      code: nextTotpCode(server, secret),
    });
    await server.jobs.drain();
    // Signed in again after each move of the clock: it moves days, past the session's lifetime.
    let reader = ops;
    const result = async () =>
      (
        parse(Buffer.from((await reader.client.downloadCsvBatchResult({ batchId: batch.batchId })).content), {
          bom: true,
          columns: true,
        }) as Record<string, string>[]
      ).map((row) => [row.customer_email, row.status]);
    expect(await result()).toEqual([
      ["paying@example.jp", "processing"],
      ["broke@example.jp", "processing"],
    ]);
    const statuses = async (customerId: string) =>
      (await reader.client.listCharges({ customerId })).charges.map((charge) => charge.chargeStatus);
    expect(await statuses(paying.customerId)).toEqual([ChargeStatus.PENDING]);

    await advanceTo("2026-11-25T06:00:00Z");
    expect(readdirSync(join(dir, "outgoing"))).toEqual(["Z91_6234567891_20261126.txt"]);
    const request = decodeDebitFile(readFileSync(join(dir, "outgoing", "Z91_6234567891_20261126.txt")), false);
    if (!request.ok) throw new Error(request.reason);
    expect(request.file.records.map((record) => [record.accountNumber, record.amount]).sort()).toEqual([
      ["0012345", 1800],
      ["9999991", 2200],
    ]);

    await advanceTo("2026-11-26T08:00:00Z");
    reader = await signedInUser(server);
    expect(await statuses(paying.customerId)).toEqual([ChargeStatus.SUCCESS]);
    expect(await statuses(broke.customerId)).toEqual([ChargeStatus.FAILURE]);
    expect(await result()).toEqual([
      ["paying@example.jp", "succeeded"],
      ["broke@example.jp", "failed"],
    ]);
  });
});
