import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { decodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { api, type TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";

/**
 * Issue 34, points 3 and 8: the 新規コード a debit carries after a first debit answered 2, and the
 * debit date decided in the transaction that accepts the charge (docs/guide/direct-debit-files.md).
 */

let server: TestServer;
let dir: string;
const quarantined: string[] = [];
let customers: { good: string; closed: string };

beforeAll(async () => {
  // Tuesday 2026-11-24 23:59 JST: a charge accepted now is debited on Thursday 26th; one
  // accepted two minutes later, on Friday 27th.
  server = await startZenginServer({
    consignorCode: "4234567890",
    simulatedBank: true,
    clockStart: new Date("2026-11-24T14:59:00Z"),
  });
  dir = server.ctx.config.zengin.dir;
});
afterAll(async () => {
  try {
    expect(quarantined).toEqual([]);
    await expectReconciled(server);
  } finally {
    await server?.stop();
  }
});

const cycle = () =>
  runZenginCycle(
    server.ctx,
    zenginExchangeOf(server.ctx, (file) => quarantined.push(file.name)),
  );

async function post(path: string, json: object) {
  const res = await api(server, path, { method: "POST", json });
  return { status: res.status, body: await res.json() };
}

const charge = (customer_id: string, price: number) =>
  post("/v1/payments/off-session/async", { customer_id, charge: { price, description: "会費" } });

/** Moves the clock to `iso`, an hour at a time, running due jobs and the cycle at each step. */
async function liveUntil(iso: string) {
  while (server.clock.now() < new Date(iso)) {
    server.clock.advance(3_600_000);
    await server.jobs.drain();
    await cycle();
  }
}

/** The 新規コード of each record of a request file we sent, by account number. */
function newCodes(name: string): Record<string, number> {
  const decoded = decodeDebitFile(readFileSync(join(dir, "outgoing", name)), false);
  if (!decoded.ok) throw new Error(decoded.reason);
  return Object.fromEntries(decoded.file.records.map((record) => [record.accountNumber, record.newCode]));
}

describe("issue 34 point 8: the debit date is decided when the charge is accepted", () => {
  const ids = { boundary: "", cancelled: "", sync: "" };

  it("keeps the date decided at acceptance when the clock crosses midnight before the job runs", async () => {
    const good = await seedActiveCustomer(server, { accountNumber: "0031111" });
    const closed = await seedActiveCustomer(server, { accountNumber: "9999992" });
    customers = { good: good.customerId, closed: closed.customerId };
    const accepted = await charge(good.customerId, 1200);
    expect(accepted.status).toBe(200);
    // The answer carries the date: Thursday, two business days after Tuesday.
    expect(accepted.body.debitDate).toBe("2026-11-26");
    ids.boundary = accepted.body.chargeId;
    const first = await charge(closed.customerId, 800);
    expect(first.body.debitDate).toBe("2026-11-26");

    // The clock moves past midnight JST before the engine's job runs.
    server.clock.advance(2 * 60_000);
    await server.jobs.drain();
    const got = await server.client(PaymentService).getCharge({ charge: ids.boundary });
    expect(got.charge?.debitDate).toBe("2026-11-26");
    // A charge accepted now is a day later; the synchronous answer carries its date too.
    const later = await post("/v1/payments/off-session", {
      customer_id: good.customerId,
      charge: { price: 300, description: "会費" },
    });
    expect(later.body.charge.debitDate).toBe("2026-11-27");
    ids.sync = later.body.charge.chargeId;
  });

  it("cancels a full refund sent right after acceptance, before the job ran: 200, CANCELLED", async () => {
    const accepted = await charge(customers.good, 900);
    ids.cancelled = accepted.body.chargeId;
    const refund = await post("/v1/refund", { charge_id: ids.cancelled });
    expect(refund.status).toBe(200);
    expect(refund.body.refund).toMatchObject({ status: "REFUND_STATUS_SUCCEEDED", cancellation: true });
    // The job runs afterwards and schedules nothing: the charge stays CANCELLED, in no file.
    await server.jobs.drain();
    const got = await server.client(PaymentService).getCharge({ charge: ids.cancelled });
    expect(got.charge?.chargeStatus).toBe(ChargeStatus.CANCELLED);
    expect(got.charge?.debitDate).toBeUndefined();
  });

  it("writes the charge into the file of the date decided at acceptance, and the refunded one into none", async () => {
    await liveUntil("2026-11-26T09:00:00Z");
    const codes = newCodes("Z91_4234567890_20261126.txt");
    expect(Object.keys(codes).sort()).toEqual(["0031111", "9999992"]);
    const items = await server.ctx.tx.db
      .selectFrom("zengin_debits")
      .select(["reference", "date", "state"])
      .where("reference", "in", [ids.boundary, ids.cancelled, ids.sync])
      .execute();
    expect(Object.fromEntries(items.map((item) => [item.reference, [item.date, item.state]]))).toEqual({
      [ids.boundary]: ["2026-11-26", "answered"],
      [ids.cancelled]: ["2026-11-27", "cancelled"],
      [ids.sync]: ["2026-11-27", "filed"],
    });
  });
});

describe("issue 34 point 3: 新規コード stays 1 until a debit is answered 0", () => {
  it("marks the next debit of an account whose first debit was answered 2 (取引なし) 新規 again", async () => {
    // The first debits of both accounts were 新規; the bank answered 9999992 with 2, 0031111 with 0.
    expect(newCodes("Z91_4234567890_20261126.txt")).toEqual({ "0031111": 1, "9999992": 1 });
    const results = await server.ctx.tx.db
      .selectFrom("zengin_debits")
      .select("result_code")
      .where("date", "=", "2026-11-26")
      .orderBy("result_code")
      .execute();
    expect(results.map((row) => row.result_code)).toEqual([0, 2]);

    const next = await Promise.all([charge(customers.good, 1300), charge(customers.closed, 700)]);
    expect(next.map((answer) => answer.status)).toEqual([200, 200]);
    const date = next[0].body.debitDate as string;
    expect(next[1].body.debitDate).toBe(date);
    await liveUntil(`${date}T00:00:00Z`);
    // 0031111's mandate is registered (answered 0): 新規コード 0; 9999992's is not: 1 again.
    expect(newCodes(`Z91_4234567890_${date.replaceAll("-", "")}.txt`)).toEqual({ "0031111": 0, "9999992": 1 });
  });
});
