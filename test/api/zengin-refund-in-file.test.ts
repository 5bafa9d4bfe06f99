import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { decodeTransferFile, encodeTransferFile } from "../../src/domain/zengin-transfer-file.js";
import { reconcile } from "../../src/flows/reconcile.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { writeAtomically } from "../../src/ports/zengin-transport.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { api, type TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";

/**
 * Issue 34, point 7: the sandbox's SettleRefunds{fail} on a refund whose transfer is already in a
 * sent 種別 21 file must not let the amount be paid twice, and the bank's answer paying a refund
 * recorded as failed is reported, never dropped (docs/guide/refunds.md, docs/operations/zengin.md).
 * The simulated bank is off: the test answers the files as a bank would.
 */

let server: TestServer;
let dir: string;
const notices = { quarantined: [] as string[], paidAfterFailure: [] as string[] };

beforeAll(async () => {
  server = await startZenginServer({ consignorCode: "5234567890", simulatedBank: false });
  dir = server.ctx.config.zengin.dir;
});
afterAll(async () => {
  await server?.stop();
});

const cycle = () =>
  runZenginCycle(
    server.ctx,
    zenginExchangeOf(server.ctx, (file) => notices.quarantined.push(file.name), {
      onPaidAfterFailure: (file) => notices.paidAfterFailure.push(...file.refunds),
    }),
  );

async function post(path: string, json: object) {
  const res = await api(server, path, { method: "POST", json });
  return { status: res.status, body: await res.json() };
}

/** Moves the clock `hours` ahead an hour at a time, running due jobs and the cycle. */
async function live(hours: number) {
  for (let hour = 0; hour < hours; hour++) {
    server.clock.advance(3_600_000);
    await server.jobs.drain();
    await cycle();
  }
}

/** Answers every request file in outgoing/ not answered yet: debits 0, transfers 0 (paid). */
async function answerAll(answered: Set<string>) {
  for (const name of readdirSync(join(dir, "outgoing"))) {
    if (answered.has(name)) continue;
    const bytes = readFileSync(join(dir, "outgoing", name));
    let answer: Buffer;
    if (name.startsWith("Z91_")) {
      const request = decodeDebitFile(bytes, false);
      if (!request.ok) throw new Error(request.reason);
      answer = encodeDebitFile(
        { ...request.file, records: request.file.records.map((r) => ({ ...r, resultCode: 0 })) },
        true,
      );
    } else {
      const request = decodeTransferFile(bytes);
      if (!request.ok) throw new Error(request.reason);
      answer = encodeTransferFile({
        ...request.file,
        records: request.file.records.map((r) => ({ ...r, resultCode: 0 })),
      });
    }
    await writeAtomically(join(dir, "incoming"), `R${name.slice(1)}`, answer);
    answered.add(name);
  }
}

/** Lives on, the bank answering every file as it comes, until the charge succeeded. */
async function untilPaid(chargeId: string, answered: Set<string>) {
  for (let hour = 0; hour < 24 * 7; hour++) {
    await answerAll(answered);
    await live(1);
    const res = await api(server, `/v1/charge/${chargeId}`);
    if ((await res.json()).charge.chargeStatus === "CHARGE_STATUS_SUCCESS") return;
  }
  throw new Error(`${chargeId} was never paid`);
}

const transferState = async (id: string) =>
  (await server.ctx.tx.db.selectFrom("zengin_transfers").select("state").where("reference", "=", id).executeTakeFirst())
    ?.state;

/** Lives on until the refund's transfer is in this state (a week at most). */
async function untilTransfer(id: string, state: string) {
  for (let hour = 0; hour < 24 * 7 && (await transferState(id)) !== state; hour++) await live(1);
  expect(await transferState(id)).toBe(state);
}

const refundRow = (id: string) =>
  server.ctx.tx.db.selectFrom("refunds").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** A charge paid through its file, then a partial refund of it accepted: the refund's id. */
async function refundOfPaidCharge(accountNumber: string, price: number, amount: number, answered: Set<string>) {
  const { customerId } = await seedActiveCustomer(server, { accountNumber });
  const created = await post("/v1/payments/off-session/async", {
    customer_id: customerId,
    charge: { price, description: "会費" },
  });
  await untilPaid(created.body.chargeId, answered);
  const refund = await post("/v1/refund", { charge_id: created.body.chargeId, amount });
  expect(refund.status).toBe(200);
  return refund.body.refund.refundId as string;
}

describe("issue 34 point 7: a refund in a sent 種別 21 file cannot be failed by the sandbox", () => {
  const answered = new Set<string>();
  let chargeId = "";
  let refundId = "";

  it("refuses SettleRefunds{fail} on it, so the ¥1,000 is not paid back twice", async () => {
    const { customerId } = await seedActiveCustomer(server, { accountNumber: "0051111" });
    const created = await post("/v1/payments/off-session/async", {
      customer_id: customerId,
      charge: { price: 1000, description: "会費" },
    });
    chargeId = created.body.chargeId;
    // The debit file goes out on Wednesday at 15:00 JST; the bank answers it.
    await untilPaid(chargeId, answered);

    const refund = await post("/v1/refund", { charge_id: chargeId });
    expect(refund.status).toBe(200);
    refundId = refund.body.refund.refundId;
    // Its transfer goes into the next 種別 21 file.
    await untilTransfer(refundId, "filed");
    expect(readdirSync(join(dir, "outgoing")).filter((name) => name.startsWith("Z21_"))).toHaveLength(1);

    const sandbox = server.client(SandboxService);
    const refused = await sandbox.settleRefunds({ refundId, fail: true }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.FailedPrecondition);
    expect((refused as ConnectError).rawMessage).toMatch(/is in a 総合振込 \(種別 21\) file sent to the bank/);
    // Without an id: the refund in the file is left PENDING.
    const all = await sandbox.settleRefunds({ fail: true });
    expect(all.refunds.map((r) => r.status)).toEqual([RefundStatus.PENDING]);
    expect((await refundRow(refundId)).status).toBe(RefundStatus.PENDING);
    // So nothing is refundable again: a second ¥1,000 refund is refused.
    expect((await post("/v1/refund", { charge_id: chargeId, amount: 1000 })).status).toBe(500);

    await answerAll(answered);
    await live(1);
    expect((await refundRow(refundId)).status).toBe(RefundStatus.SUCCEEDED);
    expect(notices).toEqual({ quarantined: [], paidAfterFailure: [] });
    await expectReconciled(server);
  });

  it("fails a refund whose transfer still waits for its file, and leaves it out of the file", async () => {
    const id = await refundOfPaidCharge("0052222", 2000, 700, answered);
    // The settlement job schedules the transfer for the next cutoff; the sandbox fails it first.
    await untilTransfer(id, "scheduled");
    const failed = await server.client(SandboxService).settleRefunds({ refundId: id, fail: true });
    expect(failed.refunds[0].status).toBe(RefundStatus.FAILED);
    const item = await server.ctx.tx.db
      .selectFrom("zengin_transfers")
      .select(["state", "file_id"])
      .where("reference", "=", id)
      .executeTakeFirstOrThrow();
    expect(item).toEqual({ state: "cancelled", file_id: null });
    await live(30);
    await answerAll(answered);
    await live(1);
    expect(notices).toEqual({ quarantined: [], paidAfterFailure: [] });
    await expectReconciled(server);
  });

  it("reports a 総合振込 answer paying a refund recorded as failed: notice, and reconcile names it", async () => {
    const id = await refundOfPaidCharge("0053333", 3000, 500, answered);
    await untilTransfer(id, "filed");
    // Recorded as failed by hand while its transfer is in a sent file (what point 7 now prevents).
    await server.ctx.tx.db.updateTable("refunds").set({ status: RefundStatus.FAILED }).where("id", "=", id).execute();
    await answerAll(answered);
    // This test's cycle imports the answer (the server's own cycle job reports to the log and metrics).
    await cycle();
    expect(notices.paidAfterFailure).toEqual([id]);
    expect(notices.quarantined).toEqual([]);
    const found = await reconcile(server.ctx);
    expect(found.map((v) => [v.subject, v.rule])).toContainEqual([id, "credit-matches-refund"]);
  });
});
