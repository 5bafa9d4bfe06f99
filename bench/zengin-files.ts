// npx tsx bench/zengin-files.ts: the Zengin file exchange at 100,000 debits (BENCH_ZENGIN_DEBITS).
// Starts the service (BANK_CONNECTOR=zengin, workers off, manual clock) on a fresh SQLite file,
// seeds one merchant with consignor settings and 100,000 PENDING charges scheduled for one debit
// date, then times (1) writing the request file at the cutoff and (2) importing its result file
// (every 10th debit 資金不足), each one turn of the cycle. Goal: each ≤ 5 s, memory flat.
// Prints one JSON object on stdout:
//   {scenario: "zengin-100k", debits, writeSeconds, importSeconds, fileBytes, rssMiB}
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { ChargeStatus } from "../gen/payments/v1/enums_pb.js";
import { loadConfig } from "../src/config.js";
import { newPendingCharge } from "../src/domain/charge.js";
import { decodeDebitFile, encodeDebitFile } from "../src/domain/zengin-debit-file.js";
import { createMerchant, updateConsignor } from "../src/flows/merchants.js";
import { runZenginCycle, zenginExchangeOf } from "../src/flows/zengin-files.js";
import { ManualClock } from "../src/ports/clock.js";
import { startService } from "../src/composition-root.js";
import { chargeToRow } from "../src/storage/records.js";

const debits = Number(process.env.BENCH_ZENGIN_DEBITS ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-zengin-"));
const config = loadConfig({
  ...process.env,
  MODE: "sandbox",
  PORT: "0",
  HOST: "127.0.0.1",
  DATABASE_URL: `file:${join(dir, "bench.db")}`,
  LOG_LEVEL: "silent",
  WORKERS: "off",
  BANK_CONNECTOR: "zengin",
  ZENGIN_DIR: join(dir, "zengin"),
  ZENGIN_SIMULATED_BANK: "off",
});
// Tuesday 2026-11-24 10:00 JST; the debit date is Thursday 26th, its cutoff Wednesday 15:00 JST.
const clock = new ManualClock(new Date("2026-11-24T01:00:00Z"));
const service = await startService(config, { clock, logger: pino({ level: "silent" }) });
try {
  const merchant = await createMerchant(service.ctx, { name: "Bench Shop" });
  await updateConsignor(service.ctx, merchant.merchant_id, {
    code: "9234567890",
    name: "ﾍﾞﾝﾁ",
    bankCode: "0001",
    branchCode: "001",
    accountType: "1",
    accountNumber: "1234567",
  });
  const now = clock.now();
  const chunk = 500;
  for (let start = 0; start < debits; start += chunk) {
    await service.ctx.tx.write(async (trx) => {
      const charges = [];
      const items = [];
      for (let i = start; i < Math.min(start + chunk, debits); i++) {
        const id = `trx-bench${String(i).padStart(8, "0")}`;
        charges.push(
          chargeToRow(
            newPendingCharge(
              {
                id,
                merchantId: merchant.merchant_id,
                customerId: null,
                contractId: null,
                onSessionId: null,
                requestId: null,
                apiSource: 1,
                amount: 1000 + (i % 9000),
                description: "bench",
                metadata: {},
              },
              now,
            ),
          ),
        );
        items.push({
          reference: id,
          merchant_id: merchant.merchant_id,
          date: "2026-11-26",
          state: "scheduled",
          file_id: null,
          customer_number: null,
          amount: 1000 + (i % 9000),
          new_code: 0,
          bank_code: "0005",
          branch_code: "123",
          account_type: 1,
          account_number: String(i % 10_000_000).padStart(7, "0"),
          holder: "ﾔﾏﾀﾞ ﾀﾛｳ",
          result_code: null,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        });
      }
      await trx.insertInto("charges").values(charges).execute();
      await trx.insertInto("zengin_debits").values(items).execute();
    });
  }
  const exchange = zenginExchangeOf(service.ctx, (file) => console.error(`quarantined: ${file.reason}`));
  clock.advance(Date.parse("2026-11-25T06:00:00Z") - clock.now().getTime());
  let started = performance.now();
  const written = await runZenginCycle(service.ctx, exchange);
  const writeSeconds = (performance.now() - started) / 1000;
  const name = written.written[0];
  const request = readFileSync(join(dir, "zengin", "outgoing", name));
  const decoded = decodeDebitFile(request, false);
  if (!decoded.ok) throw new Error(decoded.reason);
  const answered = decoded.file.records.map((record, i) => ({ ...record, resultCode: i % 10 === 0 ? 1 : 0 }));
  writeFileSync(
    join(dir, "zengin", "incoming", `R${name.slice(1)}`),
    encodeDebitFile({ ...decoded.file, records: answered }, true),
  );
  clock.advance(2 * 86_400_000);
  started = performance.now();
  const imported = await runZenginCycle(service.ctx, exchange);
  const importSeconds = (performance.now() - started) / 1000;
  if (imported.imported.length !== 1) throw new Error(`import failed: ${JSON.stringify(imported.quarantined)}`);
  const succeeded = await service.ctx.tx.db
    .selectFrom("charges")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", ChargeStatus.SUCCESS)
    .executeTakeFirstOrThrow();
  if (Number(succeeded.n) !== debits - Math.ceil(debits / 10)) throw new Error(`${succeeded.n} charges succeeded`);
  console.log(
    JSON.stringify({
      scenario: `zengin-${debits}`,
      debits,
      writeSeconds: Number(writeSeconds.toFixed(2)),
      importSeconds: Number(importSeconds.toFixed(2)),
      fileBytes: request.length,
      rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
      goalSeconds: 5,
    }),
  );
} finally {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
}
