// The RPCs `npm run bench` measures. Each prepares what it needs through the real API or CLI
// and returns the request to repeat; `echoRequest` overrides what the bare echo is sent.
import { execFileSync } from "node:child_process";
import { systemClock } from "../src/ports/clock.js";
import { openStorage } from "../src/storage/database.js";
import { Transactor } from "../src/storage/transactor.js";
import { seedCharge } from "../test/helpers/charges.js";
import { seedActiveCustomer } from "../test/helpers/fixtures.js";

export interface BenchRequest {
  /** POST unless given. */
  method?: "GET" | "POST";
  path: string;
  body: string;
  headers: Record<string, string>;
}

export interface Scenario {
  name: string;
  kind: "read" | "write";
  prepare(target: { url: string; databaseUrl: string }): Promise<BenchRequest>;
  echoRequest?: BenchRequest;
}

const root = new URL("..", import.meta.url).pathname;
let apiKey: string | undefined;

/** One merchant per run, provisioned with the CLI on the bench database. */
export function benchMerchant(databaseUrl: string, name = "Bench Shop"): { apiKey: string; merchantId: string } {
  const created = JSON.parse(
    execFileSync(process.execPath, ["bin/furikomi.js", "merchants", "create", "--name", name], {
      cwd: root,
      env: { ...process.env, MODE: "sandbox", DATABASE_URL: databaseUrl },
    }).toString(),
  );
  apiKey = created.api_key;
  return { apiKey: created.api_key, merchantId: created.merchant_id };
}

export const scenarios: Scenario[] = [
  {
    name: "GetCharge",
    kind: "read",
    async prepare({ databaseUrl }) {
      const { apiKey, merchantId } = benchMerchant(databaseUrl);
      await seedSucceededCharge(databaseUrl, { id: "trx-bench", merchantId, amount: 1200 });
      return {
        path: "/payments.v1.PaymentService/GetCharge",
        body: JSON.stringify({ charge: "trx-bench" }),
        headers: { authorization: `Bearer ${apiKey}` },
      };
    },
  },
  {
    // The same read over the plain HTTP path (GET /v1/charge/{charge}); the echo answers it over Connect.
    name: "GetCharge (plain path)",
    kind: "read",
    async prepare({ databaseUrl }) {
      const { apiKey, merchantId } = benchMerchant(databaseUrl);
      await seedSucceededCharge(databaseUrl, { id: "trx-bench-plain", merchantId, amount: 1200 });
      return {
        method: "GET",
        path: "/v1/charge/trx-bench-plain",
        body: "",
        headers: { authorization: `Bearer ${apiKey}` },
      };
    },
    echoRequest: {
      path: "/payments.v1.PaymentService/GetCharge",
      body: JSON.stringify({ charge: "trx-echo" }),
      headers: {},
    },
  },
  {
    // 1-yen partial refunds of one 10,000,000-yen charge: each locks the charge, checks the
    // remainder, writes the refund and queues its settlement (the next business morning, after the run).
    name: "Refund",
    kind: "write",
    async prepare({ databaseUrl }) {
      const { apiKey, merchantId } = benchMerchant(databaseUrl);
      await seedSucceededCharge(databaseUrl, { id: "trx-bench-refund", merchantId, amount: 10_000_000 });
      return {
        path: "/payments.v1.PaymentService/Refund",
        body: JSON.stringify({ chargeId: "trx-bench-refund", amount: 1 }),
        headers: { authorization: `Bearer ${apiKey}` },
      };
    },
  },
  {
    // A new payment link for one returning customer (the e-mail reuse rule): customer, contract, charge, link and expiry job in one write.
    name: "CreateOnSessionPayment",
    kind: "write",
    async prepare({ databaseUrl }) {
      const { apiKey } = benchMerchant(databaseUrl);
      const body = {
        buyer: { email: "bench@example.jp" },
        charge: { price: 1200, description: "bench", metadata: { order: "bench" } },
        redirect: { successUrl: "https://shop.example.jp/thanks", failureUrl: "https://shop.example.jp/sorry" },
      };
      return {
        path: "/payments.v1.PaymentService/CreateOnSessionPayment",
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${apiKey}` },
      };
    },
  },
  {
    // Accepted off-session charges for one returning customer: eligibility reads, then charge,
    // request and engine job in one write; the engine debits the simulated bank meanwhile.
    name: "CreateOffSessionPaymentAsync",
    kind: "write",
    async prepare({ databaseUrl }) {
      const { apiKey, merchantId } = benchMerchant(databaseUrl);
      const { customerId } = await seedBenchCustomer(databaseUrl, merchantId);
      const body = { customerId, charge: { price: 1, description: "bench", metadata: { order: "bench" } } };
      return {
        path: "/payments.v1.PaymentService/CreateOffSessionPaymentAsync",
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${apiKey}` },
      };
    },
  },
];

/** A customer with an active contract and a bank balance no bench run can spend. */
async function seedBenchCustomer(databaseUrl: string, merchantId: string): Promise<{ customerId: string }> {
  const storage = await openStorage(databaseUrl);
  try {
    return await seedActiveCustomer(
      { merchant: { merchant_id: merchantId }, clock: systemClock, ctx: { tx: new Transactor(storage) } },
      { balance: 1e12 },
    );
  } finally {
    await storage.close();
  }
}

/** A succeeded charge written straight to the bench database. */
async function seedSucceededCharge(
  databaseUrl: string,
  charge: { id: string; merchantId: string; amount: number },
): Promise<void> {
  const storage = await openStorage(databaseUrl);
  try {
    await seedCharge({ clock: systemClock, ctx: { tx: new Transactor(storage) } }, { ...charge, description: "bench" });
  } finally {
    await storage.close();
  }
}

export function currentApiKey(): string | undefined {
  return apiKey;
}
