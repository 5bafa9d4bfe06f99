// npx tsx bench/zengin-files.ts: the Zengin file exchange at 100,000 debits (BENCH_ZENGIN_DEBITS).
// Starts the service (BANK_CONNECTOR=zengin, workers off, manual clock) on a fresh SQLite file,
// seeds one merchant with consignor settings and 100,000 PENDING charges scheduled for one debit
// date, then times (1) writing the request file at the cutoff and (2) importing its result file
// (every 10th debit 資金不足), each one turn of the cycle. Goal: each ≤ 5 s, memory flat (the peak
// resident size after each phase against the one before it: the file is read and written a page
// at a time, never held as 100,000 records). CPU seconds beside wall seconds tell a busy machine
// from slow code. Prints one JSON object on stdout:
//   {scenario, debits, writeSeconds, writeCpuSeconds, importSeconds, importCpuSeconds, fileBytes,
//    peakRssMiB: {seeded, written, imported}}
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChargeStatus } from "../gen/payments/v1/enums_pb.js";
import { newPendingCharge } from "../src/domain/charge.js";
import { createMerchant, updateConsignor } from "../src/flows/merchants.js";
import { runZenginCycle } from "../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../src/flows/zengin-exchange.js";
import { chargeToRow } from "../src/storage/records.js";
import { sealedItemAccount } from "../src/storage/zengin.js";
import { peakRssMiB, timed } from "./phase-timing.js";
import { writeAnswer } from "./zengin-answer.js";
import { startZenginService } from "./zengin-service.js";

const debits = Number(process.env.BENCH_ZENGIN_DEBITS ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-zengin-"));
// The debit date is Thursday 26th, its cutoff Wednesday 15:00 JST.
const { service, clock } = await startZenginService(dir);
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
          contract_code: "9234567890",
          date: "2026-11-26",
          state: "scheduled",
          file_id: null,
          customer_number: null,
          amount: 1000 + (i % 9000),
          new_code: 0,
          ...sealedItemAccount({
            bankCode: "0005",
            branchCode: "123",
            accountType: 1,
            accountNumber: String(i % 10_000_000).padStart(7, "0"),
            accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ",
          }),
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
  const seeded = peakRssMiB();
  const write = await timed(() => runZenginCycle(service.ctx, exchange));
  const written = write.result;
  const peakAfterWrite = peakRssMiB();
  const name = written.written[0];
  // In a function: neither the request's bytes nor the answer's stay alive while the import runs.
  const fileBytes = writeAnswer(
    join(dir, "zengin", "outgoing", name),
    join(dir, "zengin", "incoming", `R${name.slice(1)}`),
  );
  clock.advance(2 * 86_400_000);
  const importing = await timed(() => runZenginCycle(service.ctx, exchange));
  const imported = importing.result;
  const peakAfterImport = peakRssMiB();
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
      writeSeconds: write.seconds,
      writeCpuSeconds: write.cpuSeconds,
      importSeconds: importing.seconds,
      importCpuSeconds: importing.cpuSeconds,
      fileBytes,
      peakRssMiB: { seeded, written: peakAfterWrite, imported: peakAfterImport },
      goalSeconds: 5,
    }),
  );
} finally {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
}
