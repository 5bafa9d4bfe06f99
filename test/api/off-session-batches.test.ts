import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AsyncStatus, ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { runOffSessionCharges } from "../../src/flows/off-session.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 10:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T01:00:00Z");

/** The engine's async-charge jobs run in batches: each job's outcome stays its own. */
describe.each(dialects)("a batch of async charges, on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  async function acceptedCharges(count: number): Promise<{ chargeId: string; requestId: string }[]> {
    const { customerId } = await seedActiveCustomer(server, { balance: 1_000_000 });
    const payments = server.client(PaymentService);
    const accepted = [];
    for (let i = 0; i < count; i++)
      accepted.push(await payments.createOffSessionPaymentAsync({ customerId, charge: { price: 1_000 + i } }));
    return accepted;
  }

  async function statusOf(accepted: { chargeId: string; requestId: string }) {
    const payments = server.client(PaymentService);
    const charge = (await payments.getCharge({ charge: accepted.chargeId })).charge;
    const request = await payments.getAsyncPaymentRequest({ requestId: accepted.requestId });
    return { charge: charge?.chargeStatus, request: request.request?.status };
  }

  it("settles every charge of the batch, and a charge settled already is done without a second debit", async () => {
    const accepted = await acceptedCharges(3);
    const jobs = accepted.map(({ chargeId }) => ({ refId: chargeId, attempt: 1 }));
    const first = await runOffSessionCharges(server.ctx, jobs);
    expect(first).toEqual(jobs.map(() => ({ status: "fulfilled", value: { done: true } })));
    for (const one of accepted)
      expect(await statusOf(one)).toEqual({ charge: ChargeStatus.SUCCESS, request: AsyncStatus.SUCCEEDED });

    // A job taken over after its lease lapsed runs again: nothing changes.
    const debits: string[] = [];
    const bank = server.ctx.bank;
    const debit = bank.debit.bind(bank);
    bank.debit = (request) => {
      debits.push(request.reference);
      return debit(request);
    };
    try {
      const again = await runOffSessionCharges(server.ctx, jobs);
      expect(again).toEqual(jobs.map(() => ({ status: "fulfilled", value: { done: true } })));
    } finally {
      bank.debit = debit;
    }
    expect(debits).toEqual([]);
  });

  it("books the batch in one call, each charge on the balance the earlier ones left", async () => {
    const { customerId } = await seedActiveCustomer(server, { balance: 2_500 });
    const payments = server.client(PaymentService);
    const accepted = [];
    for (const price of [1_000, 1_200, 400])
      accepted.push(await payments.createOffSessionPaymentAsync({ customerId, charge: { price } }));
    const bank = server.ctx.bank;
    const debit = bank.debit.bind(bank);
    const single: string[] = [];
    bank.debit = (request) => {
      single.push(request.reference);
      return debit(request);
    };
    try {
      await runOffSessionCharges(
        server.ctx,
        accepted.map(({ chargeId }) => ({ refId: chargeId, attempt: 1 })),
      );
    } finally {
      bank.debit = debit;
    }
    // 1,000 then 1,200 of 2,500 leave 300: the 400 is refused, in the order the charges came.
    expect(single).toEqual([]);
    expect(await statusOf(accepted[0])).toEqual({ charge: ChargeStatus.SUCCESS, request: AsyncStatus.SUCCEEDED });
    expect(await statusOf(accepted[1])).toEqual({ charge: ChargeStatus.SUCCESS, request: AsyncStatus.SUCCEEDED });
    expect(await statusOf(accepted[2])).toEqual({ charge: ChargeStatus.FAILURE, request: AsyncStatus.FAILED });
    const failed = await payments.getAsyncPaymentRequest({ requestId: accepted[2].requestId });
    expect(failed.request?.error?.code).toBe(ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS);
  });

  it("a batch call that fails is asked charge by charge; a charge whose call throws fails its own job only", async () => {
    const accepted = await acceptedCharges(3);
    const broken = accepted[1].chargeId;
    const bank = server.ctx.bank;
    const debit = bank.debit.bind(bank);
    // The metrics wrapper serves debitMany from a getter: the stand-in goes on the instance.
    Object.defineProperty(bank, "debitMany", {
      value: () => Promise.reject(new Error("bank unreachable")),
      configurable: true,
    });
    bank.debit = (request) =>
      request.reference === broken ? Promise.reject(new Error("bank unreachable")) : debit(request);
    let results: Awaited<ReturnType<typeof runOffSessionCharges>>;
    try {
      results = await runOffSessionCharges(
        server.ctx,
        accepted.map(({ chargeId }) => ({ refId: chargeId, attempt: 1 })),
      );
    } finally {
      Reflect.deleteProperty(bank, "debitMany");
      bank.debit = debit;
    }
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await statusOf(accepted[0])).toEqual({ charge: ChargeStatus.SUCCESS, request: AsyncStatus.SUCCEEDED });
    expect(await statusOf(accepted[1])).toEqual({ charge: ChargeStatus.PENDING, request: AsyncStatus.RUNNING });
    expect(await statusOf(accepted[2])).toEqual({ charge: ChargeStatus.SUCCESS, request: AsyncStatus.SUCCEEDED });

    // Its job runs again later and settles it.
    await server.jobs.drain();
    expect(await statusOf(accepted[1])).toEqual({ charge: ChargeStatus.SUCCESS, request: AsyncStatus.SUCCEEDED });
  });
});
