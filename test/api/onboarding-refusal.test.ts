import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import type { OnboardingState } from "../../src/domain/onboarding.js";
import { openStorage } from "../../src/storage/database.js";
import { findMerchant } from "../../src/storage/merchants.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { enrolTotp, refusal, signedInUser } from "../helpers/dashboard.js";
import { api, freshDatabaseUrl, startTestServer, testDialect, type TestServer } from "../helpers/test-server.js";

/** docs/reference/errors.md#onboarding: who may charge where real money moves, and in the sandbox. */

const onSessionBody = (email: string) => ({
  buyer: { email },
  charge: { price: 1200, description: "Coffee beans" },
  redirect: { success_url: "https://shop.example.jp/thanks", failure_url: "https://shop.example.jp/sorry" },
});

async function merchantIn(server: TestServer, state: OnboardingState, name: string) {
  const merchant = await server.newMerchant(name);
  await server.ctx.tx.db
    .updateTable("merchants")
    .set({ onboarding_state: state })
    .where("id", "=", merchant.merchant_id)
    .execute();
  return merchant;
}

/** Rows the merchant has in the tables a charge writes to. */
async function writtenFor(server: TestServer, merchantId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ["customers", "charges", "payment_links", "async_requests", "csv_batches"] as const) {
    const rows = await server.ctx.tx.db
      .selectFrom(table)
      .select("merchant_id")
      .where("merchant_id", "=", merchantId)
      .execute();
    counts[table] = rows.length;
  }
  return counts;
}

async function errorOf(res: Response): Promise<{ status: number; code: string; reason: string; message: string }> {
  const body = await res.json();
  const info = body.details?.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo");
  return { status: res.status, code: body.code, reason: info?.debug.reason, message: body.message };
}

describe(`production (live money), ${testDialect}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { MODE: "production", WORKERS: "off" } });
  });
  afterAll(async () => server?.stop());

  for (const state of ["incomplete", "in_review"] as const) {
    it(`on-session: a merchant ${state} gets STRATEGY_EXECUTION_FAILED (500), saying why and that it is not temporary; nothing is written`, async () => {
      const merchant = await merchantIn(server, state, `Shop ${state}`);
      const res = await api(server, "/v1/payments/on-session", {
        method: "POST",
        json: onSessionBody("taro@example.jp"),
        apiKey: merchant.api_key,
      });
      expect(await errorOf(res)).toMatchObject({
        status: 500,
        code: "internal",
        reason: "ON_SESSION_PAYMENT_ERROR_CODE_STRATEGY_EXECUTION_FAILED",
      });
      const { message } = await errorOf(
        await api(server, "/v1/payments/on-session", {
          method: "POST",
          json: onSessionBody("hanako@example.jp"),
          apiKey: merchant.api_key,
        }),
      );
      expect(message).toMatch(/onboarding is incomplete.*approves.*not a temporary error/);
      expect(await writtenFor(server, merchant.merchant_id)).toEqual({
        customers: 0,
        charges: 0,
        payment_links: 0,
        async_requests: 0,
        csv_batches: 0,
      });
    });
  }

  it("on-session: a suspended merchant is refused too, saying it is suspended", async () => {
    const merchant = await merchantIn(server, "suspended", "Suspended Shop");
    const refused = await errorOf(
      await api(server, "/v1/payments/on-session", {
        method: "POST",
        json: onSessionBody("taro@example.jp"),
        apiKey: merchant.api_key,
      }),
    );
    expect(refused).toMatchObject({ status: 500, reason: "ON_SESSION_PAYMENT_ERROR_CODE_STRATEGY_EXECUTION_FAILED" });
    expect(refused.message).toMatch(/suspended/);
  });

  it("on-session: a merchant made by the operator's CLI (complete) creates the payment", async () => {
    const res = await api(server, "/v1/payments/on-session", {
      method: "POST",
      json: onSessionBody("taro@example.jp"),
    });
    expect(res.status).toBe(200);
    expect((await findMerchant(server.ctx.tx.db, server.merchant.merchant_id))?.onboardingState).toBe("complete");
  });

  it("off-session, async and sync: ERROR_TYPE_PAYMENT_CHARGE_FAILED (500) before any charge is written", async () => {
    const merchant = await merchantIn(server, "incomplete", "Off Session Shop");
    const { customerId } = await seedActiveCustomer(server, { merchantId: merchant.merchant_id });
    for (const path of ["/v1/payments/off-session/async", "/v1/payments/off-session"]) {
      const refused = await errorOf(
        await api(server, path, {
          method: "POST",
          json: { customer_id: customerId, charge: { price: 500, description: "Monthly" } },
          apiKey: merchant.api_key,
        }),
      );
      expect(refused).toMatchObject({ status: 500, code: "internal", reason: "ERROR_TYPE_PAYMENT_CHARGE_FAILED" });
      expect(refused.message).toMatch(/onboarding is incomplete/);
    }
    expect(await writtenFor(server, merchant.merchant_id)).toMatchObject({ charges: 0, async_requests: 0 });
  });

  it("CSV batch: the upload is refused (failed_precondition, MERCHANT_NOT_LIVE) and nothing is stored", async () => {
    const merchant = await merchantIn(server, "incomplete", "CSV Shop");
    const ops = await signedInUser(server, { merchantId: merchant.merchant_id });
    await enrolTotp(server, ops);
    const csv = "customer_email,customer_id,price,description,metadata\ntaro@example.jp,,500,Monthly,\n";
    const refused = await refusal(
      ops.client.uploadCsvBatch({ fileName: "batch.csv", content: new TextEncoder().encode(csv) }),
    );
    expect(refused).toMatchObject({ code: Code.FailedPrecondition, reason: "MERCHANT_NOT_LIVE" });
    expect(refused.message).toMatch(/onboarding is incomplete/);
    expect((await writtenFor(server, merchant.merchant_id)).csv_batches).toBe(0);
  });
});

describe(`sandbox, ${testDialect}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { WORKERS: "off" } });
  });
  afterAll(async () => server?.stop());

  it("sandbox keys keep working while onboarding is incomplete", async () => {
    const merchant = await merchantIn(server, "incomplete", "Trying Shop");
    const res = await api(server, "/v1/payments/on-session", {
      method: "POST",
      json: onSessionBody("taro@example.jp"),
      apiKey: merchant.api_key,
    });
    expect(res.status).toBe(200);
  });

  it("a suspended merchant charges nowhere, the sandbox included", async () => {
    const merchant = await merchantIn(server, "suspended", "Stopped Shop");
    const { customerId } = await seedActiveCustomer(server, { merchantId: merchant.merchant_id });
    const refused = await errorOf(
      await api(server, "/v1/payments/off-session/async", {
        method: "POST",
        json: { customer_id: customerId, charge: { price: 500, description: "Monthly" } },
        apiKey: merchant.api_key,
      }),
    );
    expect(refused).toMatchObject({ status: 500, reason: "ERROR_TYPE_PAYMENT_CHARGE_FAILED" });
    expect(refused.message).toMatch(/suspended/);
  });
  it("a suspended merchant subscribes no one: CreateSubscription and the subscription import are refused (failed_precondition, MERCHANT_NOT_LIVE), nothing stored", async () => {
    const merchant = await merchantIn(server, "suspended", "Stopped Club");
    const { customerId } = await seedActiveCustomer(server, { merchantId: merchant.merchant_id });
    // A plan charges no one by itself: it may still be made.
    const planned = await api(server, "/v1/plans", {
      method: "POST",
      json: { name: "月会費", amount: 3300, interval_unit: "INTERVAL_UNIT_MONTH", interval_count: 1, debit_day: 27 },
      apiKey: merchant.api_key,
    });
    expect(planned.status).toBe(200);
    const refused = await errorOf(
      await api(server, "/v1/subscriptions", {
        method: "POST",
        json: { customer_id: customerId, plan_id: (await planned.json()).plan.planId, start_period: "2027-01" },
        headers: { "idempotency-key": "suspended-sub-1" },
        apiKey: merchant.api_key,
      }),
    );
    expect(refused).toMatchObject({ status: 400, code: "failed_precondition", reason: "MERCHANT_NOT_LIVE" });
    expect(refused.message).toMatch(/suspended/);
    const ops = await signedInUser(server, { merchantId: merchant.merchant_id });
    await enrolTotp(server, ops);
    const csv = `customer_email,customer_id,plan_id,start_period,amount\n,${customerId},,2027-01,3300\n`;
    expect(
      await refusal(
        ops.client.uploadSubscriptionImport({ fileName: "members.csv", content: new TextEncoder().encode(csv) }),
      ),
    ).toMatchObject({ code: Code.FailedPrecondition, reason: "MERCHANT_NOT_LIVE" });
    const stored = await server.ctx.tx.db
      .selectFrom("subscriptions")
      .select("id")
      .where("merchant_id", "=", merchant.merchant_id)
      .execute();
    expect(stored).toEqual([]);
    expect((await writtenFor(server, merchant.merchant_id)).csv_batches).toBe(0);
  });
});

describe(`migration 0032 on ${testDialect}`, () => {
  it("keeps every existing merchant complete, and one the old flag marked incomplete incomplete", async () => {
    const { url, cleanup } = freshDatabaseUrl();
    try {
      let storage = await openStorage(url, { migrateUpTo: "0031-subscription-debit-dates" });
      const at = "2026-11-25T06:00:00.000Z";
      for (const [id, flag] of [
        ["mer-old", 1],
        ["mer-flagged", 0],
      ] as const) {
        await storage.db
          .insertInto("merchants" as never)
          .values({ id, name: id, webhook_secret: "", onboarding_complete: flag, created_at: at } as never)
          .execute();
      }
      await storage.close();
      storage = await openStorage(url);
      try {
        expect((await findMerchant(storage.db, "mer-old"))?.onboardingState).toBe("complete");
        expect((await findMerchant(storage.db, "mer-flagged"))?.onboardingState).toBe("incomplete");
      } finally {
        await storage.close();
      }
    } finally {
      await cleanup();
    }
  });
});
