import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { signedInUser } from "../helpers/dashboard.js";
import { createPayment } from "../helpers/on-session.js";
import type { TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";
import { expectReconciled } from "../helpers/reconcile.js";

/**
 * The Zengin alerts, through the jobs and the metrics endpoint as in production: results that
 * never come (furikomi_zengin_results_overdue, the dashboard's warning, the charge left PENDING)
 * and a result file quarantined (furikomi_zengin_files_quarantined_total and _quarantined).
 */

describe("results that never come, and a file nobody sent", () => {
  let late: TestServer;
  let lateDir: string;
  beforeAll(async () => {
    late = await startZenginServer({ consignorCode: "4234567890", simulatedBank: false });
    lateDir = late.ctx.config.zengin.dir;
  });
  afterAll(async () => {
    try {
      await expectReconciled(late);
    } finally {
      await late?.stop();
    }
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
