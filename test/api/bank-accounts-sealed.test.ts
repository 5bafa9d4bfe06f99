import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BankAccountType, ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { createLogger } from "../../src/server/logger.js";
import { findCurrentBankAccount, findPendingBankAccount, openBankAccount } from "../../src/storage/bank-accounts.js";
import { resealSecrets } from "../../src/storage/maintenance.js";
import { useSealingKey } from "../../src/storage/sealed.js";
import type { Tx } from "../../src/storage/transactor.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { createPayment, freshEmail, latestCode, tokenOf } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";

// What the customers type on the bank step, and the holder as the bank spells it.
const approvedNumber = "8642097";
const abandonedNumber = "9753108";
const holderTyped = "ヤマナシ ハナコ";
const clearValues = [approvedNumber, abandonedNumber, holderTyped, "ﾔﾏﾅｼ ﾊﾅｺ", "ヤマナシ", "ﾔﾏﾅｼ"];

/** Issue 19: the account (bank, branch, type, number, holder kana) is sealed at rest; only its masked form leaves. */
describe("bank accounts sealed at rest", () => {
  let server: TestServer;
  const logLines: string[] = [];
  beforeAll(async () => {
    const logger = createLogger("debug", { write: (line: string) => void logLines.push(line) });
    server = await startTestServer({ logger, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  /** The customer's steps up to the bank step (and the approval when `approve`). */
  async function payWith(accountNumber: string, approve: boolean) {
    const email = freshEmail("sealed");
    const created = await createPayment(server, { buyer: { email } });
    const token = tokenOf(created.paymentLink!.url);
    const page = server.client(HostedPageService);
    await page.initiatePayment({ token });
    await page.sendTwoFactorCode({ token });
    await page.verifyTwoFactorCode({ token, code: await latestCode(server, email) });
    await page.linkBankAccount({
      token,
      bankCode: "0001",
      branchCode: "001",
      accountNumber,
      accountHolder: holderTyped,
    });
    if (approve) await page.approvePayment({ token });
    return {
      email,
      linkId: created.charge!.id,
      chargeId: created.charge!.chargeId,
      customerId: created.charge!.customer!.id!,
      contractId: created.charge!.contractId,
    };
  }

  it("keeps no account number or holder kana in clear in the database, the log or what the API answers", async () => {
    const approved = await payWith(approvedNumber, true);
    const abandoned = await payWith(abandonedNumber, false);
    const payments = server.client(PaymentService);
    const charge = (await payments.getCharge({ charge: approved.chargeId })).charge!;
    expect(charge.chargeStatus).toBe(ChargeStatus.SUCCESS);

    // The service itself reads them back through storage.
    const merchantId = server.merchant.merchant_id;
    const account = await findCurrentBankAccount(server.ctx.tx.db, merchantId, approved.customerId);
    expect(account?.details).toMatchObject({ accountNumber: approvedNumber, accountHolder: "ﾔﾏﾅｼ ﾊﾅｺ" });
    expect((await findPendingBankAccount(server.ctx.tx.db, abandoned.linkId))?.accountNumber).toBe(abandonedNumber);

    // What leaves the service is masked.
    const { account: simulated } = await server
      .client(SandboxService)
      .getBankAccount({ customerId: approved.customerId });
    expect(simulated?.accountNumber).toBe("****097");
    const { contract } = await payments.getContract({ contract: approved.contractId });
    expect(contract?.mandate?.account?.display).toMatch(/ 普通 \*\*\*\*097$/);
    const answered = JSON.stringify([simulated, contract, charge], (_, value) =>
      typeof value === "bigint" ? String(value) : value,
    );

    const stored = await everythingStored(server);
    // The scan sees what is stored in clear (the e-mail) …
    expect(stored.includes(approved.email)).toBe(true);
    // … and none of the account's details.
    for (const clear of clearValues) {
      expect(stored.includes(clear), `${clear} stored in clear`).toBe(false);
      expect(answered.includes(clear), `${clear} answered`).toBe(false);
      expect(logLines.filter((line) => line.includes(clear))).toEqual([]);
    }
    expect(logLines.length).toBeGreaterThan(0);
  });

  it("a key rotation: accounts are found by the previous key's hash until `secrets reseal` seals and hashes them again", async () => {
    const paid = await payWith("1357913", true);
    const merchantId = server.merchant.merchant_id;
    const sameAccount = (trx: Tx) =>
      openBankAccount(trx, {
        merchantId,
        customerId: paid.customerId,
        details: {
          bankCode: "0001",
          branchCode: "001",
          accountType: BankAccountType.ORDINARY,
          accountNumber: "1357913",
          accountHolder: "ﾔﾏﾅｼ ﾊﾅｺ",
        },
        balance: 0,
        now: server.clock.now(),
      });
    const before = await findCurrentBankAccount(server.ctx.tx.db, merchantId, paid.customerId);
    const storedRow = () =>
      server.ctx.tx.db.selectFrom("bank_accounts").selectAll().where("id", "=", before!.id).executeTakeFirstOrThrow();
    const old = await storedRow();
    try {
      useSealingKey("rotated-key", [""]);
      // Still opened and still found again (the previous key's hash) before the reseal.
      expect(await server.ctx.tx.write(sameAccount)).toBe(before!.id);
      await resealSecrets(server.ctx.tx.db);
      const resealed = await storedRow();
      expect(resealed.account_sealed).not.toBe(old.account_sealed);
      expect(resealed.account_key).not.toBe(old.account_key);
      useSealingKey("rotated-key");
      expect((await findCurrentBankAccount(server.ctx.tx.db, merchantId, paid.customerId))?.details.accountNumber).toBe(
        "1357913",
      );
      expect(await server.ctx.tx.write(sameAccount)).toBe(before!.id);
    } finally {
      useSealingKey(undefined);
    }
  });
});

/** With the Zengin connector the account also travels with each debit and transfer until its file is answered. */
describe("bank accounts sealed at rest with BANK_CONNECTOR=zengin", () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startZenginServer({ consignorCode: "1234567890", simulatedBank: false });
    dir = server.ctx.config.zengin.dir;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("writes the request file and imports its result with no account number or holder kana in clear in the database", async () => {
    const accountNumber = "8024613";
    const { customerId } = await seedActiveCustomer(server, { balance: 100_000, accountNumber });
    const cycle = () =>
      runZenginCycle(
        server.ctx,
        zenginExchangeOf(server.ctx, (file) => {
          throw new Error(`quarantined: ${file.reason}`);
        }),
      );
    const { chargeId } = await server
      .client(PaymentService)
      .createOffSessionPaymentAsync({ customerId, charge: { price: 1_500 } });
    await server.jobs.drain();
    server.clock.advance(Date.parse("2026-11-25T06:00:00Z") - server.clock.now().getTime());
    const name = "Z91_1234567890_20261126.txt";
    expect((await cycle()).written).toEqual([name]);

    // The file carries the account in clear (the bank's format) …
    const sent = decodeDebitFile(readFileSync(join(dir, "outgoing", name)), false);
    if (!sent.ok) throw new Error(sent.reason);
    expect(sent.file.records.map((r) => [r.accountNumber, r.holder])).toEqual([[accountNumber, "ﾔﾏﾀﾞ ﾀﾛｳ"]]);
    // … and the result answering it is checked against the sealed item's account, then applied.
    writeFileSync(join(dir, "incoming", "R91_ok.txt"), encodeDebitFile(sent.file, true));
    expect((await cycle()).quarantined).toEqual([]);
    const charge = (await server.client(PaymentService).getCharge({ charge: chargeId })).charge!;
    expect(charge.chargeStatus).toBe(ChargeStatus.SUCCESS);

    const stored = await everythingStored(server);
    expect(stored.includes("20261126000000000001"), "the scan sees the item's customer number").toBe(true);
    for (const clear of [accountNumber, "ﾔﾏﾀﾞ ﾀﾛｳ", "ﾔﾏﾀﾞ"])
      expect(stored.includes(clear), `${clear} stored`).toBe(false);
  });
});

/**
 * Every byte the database keeps: SQLite's file and its write-ahead log as they are on disk; every
 * row of every table of the PostgreSQL schema.
 */
async function everythingStored(server: TestServer): Promise<string> {
  if (server.databaseUrl.startsWith("file:")) {
    const path = server.databaseUrl.slice("file:".length);
    return [path, `${path}-wal`]
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString("utf8"))
      .join("\n");
  }
  const db = server.ctx.tx.db;
  const { rows } = await sql<{ table_name: string }>`select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  expect(rows.map((row) => row.table_name)).toContain("bank_accounts");
  const dumps = [];
  for (const { table_name } of rows) {
    const table = await sql`select * from ${sql.table(table_name)}`.execute(db);
    dumps.push(JSON.stringify(table.rows));
  }
  return dumps.join("\n");
}
