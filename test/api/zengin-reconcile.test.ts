import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { decodeTransferFile, encodeTransferFile } from "../../src/domain/zengin-transfer-file.js";
import { reconcile } from "../../src/flows/reconcile.js";
import { writeAtomically } from "../../src/ports/zengin-transport.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, type TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";

/**
 * A month of collection on the Zengin connector as production runs it: the simulated bank is off
 * and its ledger stays empty; the bank's answers are result files this test writes, as a bank
 * would. `reconcile` must judge debits and refunds by what the files say (docs/reference/invariants.md)
 * and find nothing wrong — and it must find each kind of wrong injected afterwards.
 */

let server: TestServer;
let dir: string;

/** What the test's "bank" answers, by the debited account's number: 1 資金不足, 4 依頼書なし, else 0. */
const debitAnswers: Record<string, number> = { "0020001": 1, "0020004": 4 };
/** Refunds of this amount cannot be paid (2 取引なし); the others are paid (0). */
const unpayableRefund = 111;

beforeAll(async () => {
  server = await startZenginServer({ consignorCode: "3234567890", simulatedBank: false });
  dir = server.ctx.config.zengin.dir;
});
afterAll(async () => {
  await server?.stop();
});

async function post(path: string, json: object) {
  const res = await api(server, path, { method: "POST", json });
  return { status: res.status, body: await res.json() };
}

async function chargeStatus(id: string): Promise<string> {
  const res = await api(server, `/v1/charge/${id}`);
  return (await res.json()).charge.chargeStatus;
}

const answered = new Set<string>();

/** The bank's side: each request file gets its result at 17:00 JST on its date, never twice. */
function answerDueRequestFiles(now: Date) {
  for (const name of readdirSync(join(dir, "outgoing"))) {
    const match = /^Z(91|21)_\d{10}_(\d{4})(\d{2})(\d{2})\.txt$/.exec(name);
    if (!match || answered.has(name)) continue;
    if (now < new Date(`${match[2]}-${match[3]}-${match[4]}T08:00:00Z`)) continue;
    const bytes = readFileSync(join(dir, "outgoing", name));
    let answer: Buffer;
    if (match[1] === "91") {
      const request = decodeDebitFile(bytes, false);
      if (!request.ok) throw new Error(request.reason);
      const records = request.file.records.map((r) => ({ ...r, resultCode: debitAnswers[r.accountNumber] ?? 0 }));
      answer = encodeDebitFile({ ...request.file, records }, true);
    } else {
      const request = decodeTransferFile(bytes);
      if (!request.ok) throw new Error(request.reason);
      const records = request.file.records.map((r) => ({ ...r, resultCode: r.amount === unpayableRefund ? 2 : 0 }));
      answer = encodeTransferFile({ ...request.file, records });
    }
    writeAtomically(join(dir, "incoming"), `R${name.slice(1)}`, answer);
    answered.add(name);
  }
}

describe("reconcile on the Zengin connector with the simulated bank off", () => {
  const charges = { paid: [] as string[], refunded: [] as string[], cancelled: [] as string[], failed: [] as string[] };

  it("a month of debits, failures, cancellations and refunds by file leaves no violation", async () => {
    const good = await seedActiveCustomer(server, { accountNumber: "0020000" });
    const poor = await seedActiveCustomer(server, { accountNumber: "0020001" });
    const gone = await seedActiveCustomer(server, { accountNumber: "0020004" });
    const refunds: string[] = [];
    const toRefund = new Set<string>();

    for (let step = 0; step < 30 * 4; step++) {
      const jst = new Date(server.clock.now().getTime() + 9 * 3_600_000);
      // Every weekday morning: a charge each, and one cancelled by a full refund before its file.
      if (jst.getUTCHours() === 10 && jst.getUTCDay() % 6 !== 0) {
        const body = (customer_id: string, price: number) => ({
          customer_id,
          charge: { price, description: "月会費" },
        });
        const paid = await post("/v1/payments/off-session/async", body(good.customerId, 1000 + step));
        const poorly = await post("/v1/payments/off-session/async", body(poor.customerId, 2000));
        const cancelled = await post("/v1/payments/off-session/async", body(good.customerId, 500));
        expect([paid.status, poorly.status, cancelled.status]).toEqual([200, 200, 200]);
        charges.paid.push(paid.body.chargeId);
        charges.failed.push(poorly.body.chargeId);
        if (charges.cancelled.length === 0) {
          // 依頼書なし once: the contract is deactivated, later charges of this customer fail to start.
          const once = await post("/v1/payments/off-session/async", body(gone.customerId, 3000));
          charges.failed.push(once.body.chargeId);
        }
        toRefund.add(paid.body.chargeId);
        await server.jobs.drain();
        expect((await post("/v1/refund", { charge_id: cancelled.body.chargeId })).status).toBe(200);
        charges.cancelled.push(cancelled.body.chargeId);
      }
      server.clock.advance(6 * 3_600_000);
      answerDueRequestFiles(server.clock.now());
      await server.jobs.drain();
      // A paid charge is refunded in part once its result came: ¥300 paid back, or ¥111 that cannot be.
      for (const id of toRefund) {
        if ((await chargeStatus(id)) !== "CHARGE_STATUS_SUCCESS") continue;
        toRefund.delete(id);
        const amount = refunds.length % 3 === 2 ? unpayableRefund : 300;
        const refund = await post("/v1/refund", { charge_id: id, amount });
        expect(refund.status).toBe(200);
        refunds.push(refund.body.refund.refundId);
        charges.refunded.push(id);
      }
    }

    // The month really went through files: debits and transfers answered, nothing on the simulated ledger.
    const files = readdirSync(join(dir, "archive"));
    expect(files.filter((name) => name.startsWith("R91_")).length).toBeGreaterThan(15);
    expect(files.filter((name) => name.startsWith("R21_")).length).toBeGreaterThan(5);
    expect(await server.ctx.tx.db.selectFrom("bank_ledger").select("id").execute()).toEqual([]);
    expect(await chargeStatus(charges.failed[0])).toBe("CHARGE_STATUS_FAILURE");
    expect(await chargeStatus(charges.cancelled[0])).toBe("CHARGE_STATUS_CANCELLED");
    const refundStates = await server.ctx.tx.db
      .selectFrom("refunds")
      .select(["status"])
      .where("id", "in", refunds)
      .execute();
    expect(refundStates.map((r) => r.status)).toEqual(
      expect.arrayContaining([RefundStatus.SUCCEEDED, RefundStatus.FAILED]),
    );
    expect(existsSync(join(dir, "quarantine")) ? readdirSync(join(dir, "quarantine")) : []).toEqual([]);
    expect(await reconcile(server.ctx)).toEqual([]);
  }, 180_000);

  /** Changes the database, expects reconcile to name exactly these, and puts it back. */
  async function expectReported(
    change: () => Promise<unknown>,
    undo: () => Promise<unknown>,
    expected: { subject: string; rule: string; detail: RegExp }[],
  ) {
    await change();
    try {
      const found = await reconcile(server.ctx);
      expect(found).toHaveLength(expected.length);
      expect(found).toEqual(
        expect.arrayContaining(
          expected.map((e) => expect.objectContaining({ ...e, detail: expect.stringMatching(e.detail) })),
        ),
      );
    } finally {
      await undo();
    }
    expect(await reconcile(server.ctx)).toEqual([]);
  }

  const db = () => server.ctx.tx.db;
  const itemOf = (table: "zengin_debits" | "zengin_transfers", reference: string) =>
    db().selectFrom(table).selectAll().where("reference", "=", reference).executeTakeFirstOrThrow();
  const fileOf = (id: string | null) =>
    db()
      .selectFrom("zengin_files")
      .selectAll()
      .where("id", "=", id ?? "")
      .executeTakeFirstOrThrow();

  it("reports a paid charge whose debit the result file answered 資金不足", async () => {
    const id = charges.paid[0];
    const { name } = await fileOf((await itemOf("zengin_debits", id)).file_id);
    await expectReported(
      () => db().updateTable("zengin_debits").set({ result_code: 1 }).where("reference", "=", id).execute(),
      () => db().updateTable("zengin_debits").set({ result_code: 0 }).where("reference", "=", id).execute(),
      [
        { subject: id, rule: "debit-matches-charge", detail: /SUCCESS but its debit of \d+ was answered 1/ },
        { subject: name, rule: "file-matches-items", detail: /answered/ },
      ],
    );
  });

  it("reports a refund recorded as failed that the 総合振込 answer says was paid", async () => {
    const failed = await db()
      .selectFrom("zengin_transfers")
      .selectAll()
      .where("result_code", "=", 2)
      .executeTakeFirstOrThrow();
    const { name } = await fileOf(failed.file_id);
    await expectReported(
      () =>
        db()
          .updateTable("zengin_transfers")
          .set({ result_code: 0 })
          .where("reference", "=", failed.reference)
          .execute(),
      () =>
        db()
          .updateTable("zengin_transfers")
          .set({ result_code: 2 })
          .where("reference", "=", failed.reference)
          .execute(),
      [
        {
          subject: failed.reference,
          rule: "credit-matches-refund",
          detail: /FAILED of 111 but its transfer of 111 was answered 0/,
        },
        { subject: name, rule: "file-matches-items", detail: /answered/ },
      ],
    );
  });

  it("reports a debit file record naming another account than the charge's", async () => {
    const paid = await itemOf("zengin_debits", charges.paid[1]);
    const other = await itemOf("zengin_debits", charges.failed[2]);
    await expectReported(
      () =>
        db()
          .updateTable("zengin_debits")
          .set({ account_sealed: other.account_sealed })
          .where("reference", "=", paid.reference)
          .execute(),
      () =>
        db()
          .updateTable("zengin_debits")
          .set({ account_sealed: paid.account_sealed })
          .where("reference", "=", paid.reference)
          .execute(),
      [{ subject: paid.reference, rule: "debit-to-charge-account", detail: /another account/ }],
    );
  });

  it("reports a request file whose recorded total is not its records'", async () => {
    const file = await fileOf((await itemOf("zengin_debits", charges.paid[2])).file_id);
    await expectReported(
      () =>
        db()
          .updateTable("zengin_files")
          .set({ total_amount: Number(file.total_amount) + 1 })
          .where("id", "=", file.id)
          .execute(),
      () =>
        db().updateTable("zengin_files").set({ total_amount: file.total_amount }).where("id", "=", file.id).execute(),
      [{ subject: file.name, rule: "file-matches-items", detail: /recorded/ }],
    );
  });

  it("reports a charge cancelled before its file whose debit went out anyway", async () => {
    const id = charges.cancelled[3];
    const sentWith = await itemOf("zengin_debits", charges.paid[3]);
    await expectReported(
      () =>
        db()
          .updateTable("zengin_debits")
          .set({ state: "answered", result_code: 0 })
          .where("reference", "=", id)
          .execute(),
      () =>
        db()
          .updateTable("zengin_debits")
          .set({ state: "cancelled", result_code: null })
          .where("reference", "=", id)
          .execute(),
      [{ subject: id, rule: "debit-matches-charge", detail: /CANCELLED but its debit of 500 was answered 0/ }],
    );
    expect(sentWith.state).toBe("answered");
  });
});
