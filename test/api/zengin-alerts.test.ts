import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { updateConsignor } from "../../src/flows/merchants.js";
import { signedInUser } from "../helpers/dashboard.js";
import { createPayment } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

/**
 * The Zengin alerts, through the jobs and the metrics endpoint as in production: results that
 * never come (furikomi_zengin_results_overdue, the dashboard's warning, the charge left PENDING)
 * and a result file quarantined (furikomi_zengin_files_quarantined_total and _quarantined).
 */

// Tuesday 2026-11-24 10:00 JST: the debit date is Thursday 26th, its file due at 15:00 JST on the 25th.
const clockStart = new Date("2026-11-24T01:00:00Z");

describe("results that never come, and a file nobody sent", () => {
  let late: TestServer;
  let lateDir: string;
  beforeAll(async () => {
    lateDir = mkdtempSync(join(tmpdir(), "zengin-overdue-"));
    late = await startTestServer({
      clockStart,
      env: { BANK_CONNECTOR: "zengin", ZENGIN_DIR: lateDir, ZENGIN_SIMULATED_BANK: "off", WORKERS: "off" },
    });
    await updateConsignor(late.ctx, late.merchant.merchant_id, {
      code: "4234567890",
      name: "ｵｿｲ ｷﾞﾝｺｳ",
      bankCode: "0005",
      branchCode: "001",
      accountType: "1",
      accountNumber: "7654321",
    });
  });
  afterAll(async () => {
    await late?.stop();
    rmSync(lateDir, { recursive: true, force: true });
  });

  const metric = async (name: string) => {
    const text = await (await fetch(`${late.url}/metrics`)).text();
    return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
  };

  it("raises the overdue alert after ZENGIN_RESULT_DEADLINE_DAYS business days, the charge left PENDING", async () => {
    const link = await createPayment(late, { charge: { price: 2000, description: "late" } });
    const done = await late
      .client(SandboxService)
      .completePayment({ paymentLinkUrl: link.paymentLink!.url, accountNumber: "0055555" });
    late.clock.advance(Date.parse("2026-11-25T06:00:00Z") - late.clock.now().getTime());
    await late.jobs.drain();
    expect(readdirSync(join(lateDir, "outgoing"))).toEqual(["Z91_4234567890_20261126.txt"]);
    // Five business days after Thursday 26th is Thursday 3 December: still due on the 2nd.
    late.clock.advance(Date.parse("2026-12-02T06:00:00Z") - late.clock.now().getTime());
    await late.jobs.drain();
    expect(await metric("furikomi_zengin_results_overdue")).toBe(0);
    late.clock.advance(Date.parse("2026-12-04T01:00:00Z") - late.clock.now().getTime());
    await late.jobs.drain();
    expect(await metric("furikomi_zengin_results_overdue")).toBe(1);
    const ops = await signedInUser(late);
    const view = await ops.client.listZenginFiles({});
    expect(view.overdue).toBe(1);
    expect(view.files.find((file) => file.name === "Z91_4234567890_20261126.txt")).toMatchObject({
      state: "sent",
      overdue: true,
    });
    // Never guessed: the charge waits for its result.
    const charge = (await late.client(PaymentService).getCharge({ charge: done.chargeId })).charge!;
    expect(charge.chargeStatus).toBe(ChargeStatus.PENDING);
  });

  it("quarantines a result for a file nobody sent, and counts it", async () => {
    const sent = decodeDebitFile(readFileSync(join(lateDir, "outgoing", "Z91_4234567890_20261126.txt")), false);
    if (!sent.ok) throw new Error(sent.reason);
    writeFileSync(
      join(lateDir, "incoming", "R91_unknown.txt"),
      encodeDebitFile({ ...sent.file, consignor: { ...sent.file.consignor, code: "9999999999" } }, true),
    );
    late.clock.advance(120_000);
    await late.jobs.drain();
    expect(readdirSync(join(lateDir, "quarantine"))).toEqual(["R91_unknown.txt", "R91_unknown.txt.reason.txt"]);
    expect(readFileSync(join(lateDir, "quarantine", "R91_unknown.txt.reason.txt"), "utf8")).toMatch(
      /no merchant has the consignor code 9999999999/,
    );
    expect(await metric("furikomi_zengin_files_quarantined_total")).toBe(1);
    expect(await metric("furikomi_zengin_files_quarantined")).toBe(1);
  });
});
