import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { openStorage } from "../../src/storage/database.js";
import { findPaymentLinkByToken } from "../../src/storage/payment-links.js";
import { createPayment, freshEmail, tokenOf } from "../helpers/on-session.js";
import { freshDatabaseUrl, startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.stop());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function session(token: string) {
  const { result } = await server.client(HostedPageService).initiatePayment({ token });
  if (result?.outcome.case !== "session") throw new Error(`no session: ${JSON.stringify(result)}`);
  return result.outcome.value;
}

describe("payment-link tokens", () => {
  it("are stored as their SHA-256 only, and found by it", async () => {
    const { charge, paymentLink } = await createPayment(server);
    const token = tokenOf(paymentLink!.url);
    const row = await server.ctx.tx.db
      .selectFrom("payment_links")
      .selectAll()
      .where("id", "=", charge!.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(sha256(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect((await session(token)).amount).toBe(1200);
    // The hash itself is not a token.
    const { result } = await server.client(HostedPageService).initiatePayment({ token: row.token_hash });
    expect(result?.outcome.case).toBe("error");
  });

  it("of links created before the change are converted by the migration and keep working", async () => {
    const { url, cleanup } = freshDatabaseUrl();
    try {
      // The database as 0007 left it: the column `token`, holding the token itself.
      let storage = await openStorage(url, { migrateUpTo: "0007-contracts-by-status" });
      const token = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
      const now = new Date().toISOString();
      await storage.db
        .insertInto("payment_links")
        .values({
          id: "chg-before",
          merchant_id: "mer-1",
          token,
          workflow: 1,
          customer_id: "cus-1",
          contract_id: null,
          charge_id: null,
          price: 500,
          description: "old link",
          metadata_json: "{}",
          email: "old@example.jp",
          force_kyc: 0,
          success_url: "https://shop.example.jp/ok",
          failure_url: "https://shop.example.jp/ng",
          state: "open",
          two_factor_verified: 0,
          bank_linked: 0,
          kyc_submitted: 0,
          expires_at: now,
          completed_at: null,
          created_at: now,
          updated_at: now,
        } as never)
        .execute();
      await storage.close();

      storage = await openStorage(url);
      try {
        expect((await findPaymentLinkByToken(storage.db, token))?.id).toBe("chg-before");
        const row = await storage.db
          .selectFrom("payment_links")
          .select("token_hash")
          .where("id", "=", "chg-before")
          .executeTakeFirstOrThrow();
        expect(row.token_hash).toBe(sha256(token));
      } finally {
        await storage.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe("a finished link", () => {
  const minutes = (n: number) => n * 60_000;

  it("shows amount, description and outcome for 10 minutes after it finished, then only that it is finished", async () => {
    const { paymentLink } = await createPayment(server, {
      buyer: { email: freshEmail() },
      charge: { price: 4321, description: "Secret order" },
    });
    const token = tokenOf(paymentLink!.url);
    await server.client(SandboxService).completePayment({ paymentLinkUrl: paymentLink!.url });

    server.clock.advance(minutes(9));
    expect(await session(token)).toMatchObject({
      completed: true,
      amount: 4321,
      description: "Secret order",
      chargeStatus: ChargeStatus.SUCCESS,
      detailsWithheld: false,
    });
    expect((await session(token)).redirectUrl).toMatch(/^https:\/\/shop\.example\.jp\/thanks/);

    server.clock.advance(minutes(2));
    const later = await session(token);
    expect(later).toMatchObject({
      completed: true,
      amount: 0,
      description: "",
      redirectUrl: "",
      emailHint: "",
      chargeStatus: ChargeStatus.UNSPECIFIED,
      detailsWithheld: true,
    });
    expect(later.error).toBeUndefined();
    expect(later.merchant?.name).toBe("Test Shop");
    expect(later.merchant?.redirect).toMatchObject({ successUrl: "", failureUrl: "" });
  });

  it("withholds a failure reason the same way", async () => {
    const email = freshEmail();
    const { charge, paymentLink } = await createPayment(server, {
      buyer: { email },
      charge: { price: 2000, description: "Too dear" },
    });
    const token = tokenOf(paymentLink!.url);
    await server.client(SandboxService).completePayment({ paymentLinkUrl: paymentLink!.url, approve: false });
    await server.client(SandboxService).configureBankAccount({ customerId: charge!.customer!.id!, balance: 10n });
    await server.client(SandboxService).completePayment({ paymentLinkUrl: paymentLink!.url });
    const failed = await session(token);
    expect(failed.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(failed.error?.code).toBe(ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS);

    server.clock.advance(minutes(11));
    const later = await session(token);
    expect(later).toMatchObject({ completed: true, detailsWithheld: true, description: "", amount: 0 });
    expect(later.error).toBeUndefined();
  });
});
