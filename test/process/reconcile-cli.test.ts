import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** `npx furikomi reconcile` against the database a running server uses. */
async function reconcileCli(databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["bin/furikomi.js", "reconcile"], {
      cwd: root,
      env: { ...process.env, MODE: "sandbox", DATABASE_URL: databaseUrl },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("furikomi reconcile", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clockStart: new Date("2026-03-10T01:00:00Z"), env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it("finds nothing in a consistent database, then prints each violation and exits 1", async () => {
    const payments = server.client(PaymentService);
    const { customerId } = await seedActiveCustomer(server);
    const paid = (await payments.createOffSessionPayment({ customerId, charge: { price: 1_000 } })).charge!;
    await payments.refund({ chargeId: paid.chargeId, amount: 400 });
    const { customerId: broke, accountId: brokeAccount } = await seedActiveCustomer(server, { balance: 0 });
    const failed = await payments
      .createOffSessionPayment({ customerId: broke, charge: { price: 700 } })
      .catch(() => {});
    expect(failed).toBeUndefined();

    const clean = await reconcileCli(server.databaseUrl);
    expect(clean).toMatchObject({ code: 0, stdout: "no violations\n" });

    // Break two invariants behind the engine's back: a debit for the failed charge, a lost event.
    const failedCharge = await server.ctx.tx.db
      .selectFrom("charges")
      .select("id")
      .where("customer_id", "=", broke)
      .where("status", "=", ChargeStatus.FAILURE)
      .executeTakeFirstOrThrow();
    await server.ctx.tx.write(async (trx) => {
      await trx
        .insertInto("bank_ledger")
        .values({
          customer_id: broke,
          account_id: brokeAccount,
          reference: failedCharge.id,
          amount: -700,
          balance_after: -700,
          at: "2026-03-10T01:00:00.000Z",
        })
        .execute();
      await trx
        .deleteFrom("events")
        .where("charge_id", "=", paid.chargeId)
        .where("event_type_name", "=", "EVENT_TYPE_CHARGE_SUCCESS")
        .execute();
    });
    const broken = await reconcileCli(server.databaseUrl);
    expect(broken.code).toBe(1);
    expect(broken.stderr.trim().split("\n").sort()).toEqual(
      [
        `${failedCharge.id} debit-matches-charge: FAILURE but the bank holds a debit of 700`,
        `${paid.chargeId} one-event-per-outcome: SUCCESS with 0 success and 0 fail events`,
      ].sort(),
    );
  });
});
