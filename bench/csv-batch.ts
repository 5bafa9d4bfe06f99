// npx tsx bench/csv-batch.ts: a 300-row CSV batch, from its confirmation to the result CSV. Starts
// the service (workers on, system clock) on a fresh SQLite file, seeds 300 customers with activated
// contracts, signs a dashboard user in over DashboardService (Connect, cookie session), enrols TOTP,
// uploads the batch, then times ConfirmCsvBatch → GetCsvBatch polled until completed (every
// BENCH_CSV_POLL_MS, 100 ms) → DownloadCsvBatchResult. Prints one JSON object on stdout:
//   {scenario: "csv-batch-300", secondsToResult, rows, succeeded, failed}
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Secret, TOTP } from "otpauth";
import pino from "pino";
import { DashboardService } from "../gen/payments/v1/dashboard_service_pb.js";
import { loadConfig } from "../src/config.js";
import { createDashboardUser } from "../src/flows/dashboard-auth.js";
import { createMerchant, type CreatedMerchant } from "../src/flows/merchants.js";
import { ManualClock } from "../src/ports/clock.js";
import { startService } from "../src/composition-root.js";
import { seedActiveCustomer } from "../test/helpers/fixtures.js";

const rows = 300;
const pollMs = Number(process.env.BENCH_CSV_POLL_MS ?? 100);

const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-csv-"));
const config = loadConfig({
  ...process.env,
  MODE: "sandbox",
  PORT: "0",
  HOST: "127.0.0.1",
  DATABASE_URL: `file:${join(dir, "bench.db")}`,
  LOG_LEVEL: "silent",
});
const service = await startService(config, { logger: pino({ level: "silent" }) });
try {
  const merchant = await createMerchant(service.ctx, { name: "Bench Shop" });
  const emails = await seedCustomers(merchant, rows);
  const email = "bench@example.jp";
  const password = "bench password 300 rows";
  await createDashboardUser(service.ctx, { merchantId: merchant.merchant_id, email, password });

  const dashboard = createClient(
    DashboardService,
    createConnectTransport({ baseUrl: service.url, httpVersion: "1.1", interceptors: [cookieJar()] }),
  );
  await dashboard.signIn({ email, password });
  const { secret } = await dashboard.beginTotpEnrollment({});
  // Enrol with the previous step's code (inside the drift window), so the current one is fresh for the batch.
  await dashboard.confirmTotpEnrollment({ code: codeAt(secret, Date.now() - 30_000) });

  const csv = [
    "customer_email,customer_id,price,description,metadata",
    ...emails.map((e, i) => `${e},,${1000 + i},Bench row ${i},row=${i}`),
  ].join("\r\n");
  const batch = await dashboard.uploadCsvBatch({ fileName: "bench.csv", content: Buffer.from(csv) });

  const started = performance.now();
  await dashboard.confirmCsvBatch({
    batchId: batch.batchId,
    challengeId: batch.challengeId,
    code: codeAt(secret, Date.now()),
  });
  let current = (await dashboard.getCsvBatch({ batchId: batch.batchId })).batch;
  while (current?.status !== "completed") {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    current = (await dashboard.getCsvBatch({ batchId: batch.batchId })).batch;
  }
  const result = await dashboard.downloadCsvBatchResult({ batchId: batch.batchId });
  const secondsToResult = Number(((performance.now() - started) / 1000).toFixed(2));
  if (result.content.length === 0) throw new Error("empty result");
  console.log(
    JSON.stringify({
      scenario: "csv-batch-300",
      secondsToResult,
      rows,
      succeeded: current.succeeded,
      failed: current.failed,
    }),
  );
} finally {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
}

function codeAt(secret: string, timestamp: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30, timestamp });
}

/** Keeps the session cookie and sends the CSRF header, as the dashboard page does. */
function cookieJar(): Interceptor {
  const cookies = new Map<string, string>();
  return (next) => async (req) => {
    if (cookies.size) req.header.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const csrf = cookies.get("furikomi_csrf");
    if (csrf) req.header.set("x-csrf-token", csrf);
    const res = await next(req);
    for (const cookie of res.header.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
}

/** Customers with an activated contract and a simulated account (¥1,000,000), as the test suites seed them. */
async function seedCustomers(merchant: CreatedMerchant, count: number): Promise<string[]> {
  const seeder = { merchant, clock: new ManualClock(), ctx: service.ctx };
  const emails = Array.from({ length: count }, (_, i) => `buyer${i}@example.jp`);
  await Promise.all(emails.map((email) => seedActiveCustomer(seeder, { email })));
  return emails;
}
