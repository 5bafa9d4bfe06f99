import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { parse } from "csv-parse/sync";
import { ChargeStatus, ContractStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import type { UploadCsvBatchResponse } from "../../gen/payments/v1/dashboard_service_pb.js";
import { csvRowReasons } from "../../src/domain/csv-row.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { refuseChargesOf } from "../helpers/outage.js";
import {
  enrolTotp,
  nextTotpCode,
  signedInUser,
  refusal,
  totpCodeAt,
  type DashboardBrowser,
} from "../helpers/dashboard.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;
let ops: DashboardBrowser;
let secret: string;

beforeAll(async () => {
  server = await startTestServer({ env: { WORKERS: "off" } });
  ops = await signedInUser(server);
  secret = await enrolTotp(server, ops);
});
afterAll(async () => server?.stop());

interface Person {
  email: string;
  id: string;
}

let run = 0;

/** Customers for one test, with e-mails of their own (so no two tests upload the same content). */
async function people(
  names: string[],
  options: Record<string, { balance?: number }> = {},
): Promise<Record<string, Person>> {
  run += 1;
  const entries = await Promise.all(
    names.map(async (name) => {
      const email = `${name}-${run}@example.jp`;
      const { customerId } = await seedActiveCustomer(server, { email, balance: options[name]?.balance });
      return [name, { email, id: customerId }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * A fixture file with its placeholders filled: {{email:NAME}}, {{id:NAME}} (a customer of
 * `who`, or an address nobody has), {{key}}. Filled byte-wise, so Shift_JIS files stay Shift_JIS.
 */
function fixture(name: string, who: Record<string, Person> = {}, key = `key-${run}`): Uint8Array {
  const raw = readFileSync(new URL(`../fixtures/csv/${name}`, import.meta.url)).toString("latin1");
  const filled = raw
    .replace(/\{\{email:(\w+)\}\}/g, (_, n: string) => who[n]?.email ?? `${n}-${run}@nowhere.example.jp`)
    .replace(/\{\{id:(\w+)\}\}/g, (_, n: string) => who[n].id)
    .replace(/\{\{key\}\}/g, key);
  return Buffer.from(filled, "latin1");
}

const upload = (content: Uint8Array, fileName = "batch.csv", as = ops) =>
  as.client.uploadCsvBatch({ fileName, content });
const confirm = (batch: UploadCsvBatchResponse, as = ops, code = nextTotpCode(server, secret)) =>
  as.client.confirmCsvBatch({ batchId: batch.batchId, challengeId: batch.challengeId, code });

type ResultRow = Record<string, string>;

async function result(batchId: string): Promise<ResultRow[]> {
  const { content } = await ops.client.downloadCsvBatchResult({ batchId });
  return parse(Buffer.from(content), { bom: true, columns: true }) as ResultRow[];
}

/** Upload, confirm, run every job, and read the result. */
async function process(content: Uint8Array): Promise<{ batchId: string; rows: ResultRow[] }> {
  const batch = await upload(content);
  await confirm(batch);
  await server.jobs.drain();
  return { batchId: batch.batchId, rows: await result(batch.batchId) };
}

/**
 * Moves the clock in steps (at most 20 minutes: the dashboard session idles out after 30),
 * running the jobs due at each.
 */
async function advance(ms: number, step = 20 * 60_000): Promise<void> {
  for (let left = ms; left > 0; left -= step) {
    server.clock.advance(Math.min(left, step));
    await ops.client.getSession({});
    await server.jobs.drain();
  }
}

describe("batch-level rejections: answered at once, nothing recorded", () => {
  it.each([
    ["too-many-rows.csv", "CSV_TOO_MANY_ROWS", /301 rows; a batch has at most 300/],
    ["empty.csv", "CSV_EMPTY", /empty or has only the header/],
    ["header-only.csv", "CSV_EMPTY", /empty or has only the header/],
    ["wrong-column-count.csv", "CSV_COLUMN_COUNT", /4 columns; 5 or 6 are accepted/],
    [
      "wrong-header-name.csv",
      "CSV_HEADER_NAME",
      /column 1 of the header is "customer_mail"; expected "customer_email"/,
    ],
    ["unparsable-quoting.csv", "CSV_UNPARSABLE", /cannot be read as CSV/],
    ["unparsable-encoding.csv", "CSV_UNPARSABLE", /not text in UTF-8 or Shift_JIS/],
  ])("%s → %s", async (file, reason, message) => {
    const before = (await ops.client.listCsvBatches({})).batches.length;
    const refused = await refusal(upload(fixture(file)));
    expect(refused).toMatchObject({ code: Code.InvalidArgument, reason });
    expect(refused.message).toMatch(message);
    expect((await ops.client.listCsvBatches({})).batches).toHaveLength(before);
  });

  it("refuses an upload by a user without TOTP", async () => {
    const noTotp = await signedInUser(server);
    expect(await refusal(upload(fixture("utf8-bom.csv"), "batch.csv", noTotp))).toMatchObject({
      code: Code.FailedPrecondition,
      reason: "TOTP_NOT_ENABLED",
    });
    expect(
      (await noTotp.client.listCsvBatches({})).batches.filter((b) => b.fileName === "batch.csv" && b.rowCount === 0),
    ).toEqual([]);
  });
});

describe("encodings", () => {
  it("reads UTF-8 with a BOM and Shift_JIS alike, and keeps the Japanese text", async () => {
    for (const file of ["utf8-bom.csv", "shift-jis.csv"]) {
      const who = await people(["a"]);
      const { rows } = await process(fixture(file, who));
      expect(rows).toEqual([
        expect.objectContaining({
          customer_email: who.a.email,
          description: "定期便 12月分",
          status: "succeeded",
          Reason: "",
        }),
      ]);
      const { charges } = await ops.client.listCharges({ customerId: who.a.id });
      expect(charges.map((c) => [c.description, c.finalAmount])).toEqual([["定期便 12月分", 1200]]);
      expect(charges[0].metadata.plan).toBe(file === "shift-jis.csv" ? "ゴールド" : "gold");
    }
  });
});

describe("row failure reasons in the result", () => {
  it.each([
    ["row-column-count.csv", [csvRowReasons.columnCount(6, 4)]],
    ["row-email-required.csv", [csvRowReasons.emailRequired]],
    ["row-email-invalid.csv", [csvRowReasons.emailInvalid]],
    ["row-customer-id-prefix.csv", [csvRowReasons.customerIdPrefix]],
    ["row-price-not-integer.csv", [csvRowReasons.priceNotInteger]],
    ["row-price-out-of-bounds.csv", [csvRowReasons.priceOutOfBounds]],
    ["row-description-required.csv", [csvRowReasons.descriptionRequired]],
    ["row-description-too-long.csv", [csvRowReasons.descriptionTooLong]],
    ["row-metadata-format.csv", [csvRowReasons.metadataFormat]],
    ["row-metadata-empty-key.csv", [csvRowReasons.metadataEmptyKey]],
    ["row-metadata-equals.csv", [csvRowReasons.metadataEquals]],
    ["row-metadata-duplicate-key.csv", [csvRowReasons.metadataDuplicateKey("plan")]],
    ["row-idempotency-key-pattern.csv", [csvRowReasons.idempotencyKeyPattern]],
    [
      "row-idempotency-key-duplicate.csv",
      [csvRowReasons.idempotencyKeyDuplicate, csvRowReasons.idempotencyKeyDuplicate],
    ],
    ["row-same-account.csv", [csvRowReasons.sameAccount, csvRowReasons.sameAccount]],
    ["row-same-account-resolved.csv", [csvRowReasons.sameAccount, csvRowReasons.sameAccount]],
    ["customer-id-not-found.csv", [csvRowReasons.customerIdNotFound]],
    ["email-not-linked.csv", [csvRowReasons.emailNotLinked]],
  ])("%s", async (file, reasons) => {
    const who = await people(["a", "b"]);
    const { rows } = await process(fixture(file, who));
    expect(rows.map((r) => [r.status, r.Reason])).toEqual(reasons.map((reason) => ["failed", reason]));
    expect((await ops.client.listCharges({ customerId: who.a.id })).charges).toEqual([]);
  });

  it("customer-not-active.csv: a customer without an activated contract", async () => {
    const who = await people(["a"]);
    await server.ctx.tx.write((trx) =>
      trx
        .updateTable("contracts")
        .set({ status: ContractStatus.DEACTIVATED })
        .where("customer_id", "=", who.a.id)
        .execute(),
    );
    const { rows } = await process(fixture("customer-not-active.csv", who));
    expect(rows.map((r) => [r.status, r.Reason])).toEqual([["failed", csvRowReasons.customerInactive]]);
  });

  it.each([
    ["charge-insufficient-funds.csv", { balance: 100 }, "Customer has insufficient funds"],
    ["charge-over-limit.csv", { quota: 1000 }, "Payment exceeds allowed limit"],
    ["charge-gateway-rejected.csv", { reject: 1 }, "Payment gateway rejected request"],
  ])("%s: the charge fails with the ErrorType's message", async (file, account, reason) => {
    const who = await people(["a"]);
    await server.ctx.tx.write((trx) =>
      trx.updateTable("bank_accounts").set(account).where("customer_id", "=", who.a.id).execute(),
    );
    const { rows } = await process(fixture(file, who));
    expect(rows.map((r) => [r.status, r.Reason])).toEqual([["failed", reason]]);
    const { charges } = await ops.client.listCharges({ customerId: who.a.id });
    expect(charges.map((c) => c.chargeStatus)).toEqual([ChargeStatus.FAILURE]);
  });

  it("charge-triggered.csv: a sandbox triggerError fails the row with its ErrorType's reason, as in the API", async () => {
    const who = await people(["a"]);
    const { rows } = await process(fixture("charge-triggered.csv", who));
    expect(rows.map((r) => [r.status, r.Reason])).toEqual([["failed", "Payment exceeds allowed limit"]]);
    const { charges } = await ops.client.listCharges({ customerId: who.a.id });
    expect(charges.map((c) => [c.chargeStatus, c.error?.code])).toEqual([
      [ChargeStatus.FAILURE, ErrorType.PAYMENT_CHARGE_OVER_LIMIT],
    ]);
  });

  it("charge-gateway-unavailable.csv: the engine retries through the maintenance, then the row fails", async () => {
    const who = await people(["a"]);
    await server.ctx.tx.write((trx) =>
      trx.updateTable("bank_accounts").set({ under_maintenance: 1 }).where("customer_id", "=", who.a.id).execute(),
    );
    const { batchId, rows } = await process(fixture("charge-gateway-unavailable.csv", who));
    expect(rows.map((r) => [r.status, r.Reason])).toEqual([["processing", "Payment is still processing"]]);
    await advance(3 * 3_600_000);
    expect((await result(batchId)).map((r) => [r.status, r.Reason])).toEqual([
      ["failed", "Payment gateway currently unavailable"],
    ]);
  });

  it("charge-still-processing.csv: a result read before the charges ran says so; read again later it is final", async () => {
    const who = await people(["a"]);
    const batch = await upload(fixture("charge-still-processing.csv", who));
    const { batch: confirmed } = await confirm(batch);
    expect(confirmed).toMatchObject({ status: "running", processing: 1, succeeded: 0 });
    expect((await result(batch.batchId)).map((r) => [r.status, r.Reason])).toEqual([
      ["processing", "Payment is still processing"],
    ]);
    await server.jobs.drain();
    expect((await ops.client.getCsvBatch({ batchId: batch.batchId })).batch).toMatchObject({
      status: "completed",
      succeeded: 1,
      processing: 0,
    });
    expect((await result(batch.batchId)).map((r) => [r.status, r.Reason])).toEqual([["succeeded", ""]]);
  });

  it("charge-failed-to-initiate.csv: an outage while starting the charge is retried, then reported; uploading again charges once", async () => {
    const who = await people(["a"]);
    const endOutage = await refuseChargesOf(server.ctx.tx, who.a.id);
    const file = fixture("charge-failed-to-initiate.csv", who);
    const { batchId } = await process(file);
    await advance(60_000, 10_000);
    expect((await result(batchId)).map((r) => [r.status, r.Reason])).toEqual([
      ["failed", "Failed to initiate payment"],
    ]);

    await endOutage();
    const again = await process(file);
    expect(again.rows.map((r) => [r.status, r.Reason])).toEqual([["succeeded", ""]]);
    expect((await ops.client.listCharges({ customerId: who.a.id })).charges).toHaveLength(1);
  });

  it("charge-key-reused.csv: an idempotency_key already used for another payment fails the row", async () => {
    const who = await people(["a"]);
    const key = `order-${run}`;
    const first = await process(fixture("charge-key-reused.csv", who, key));
    expect(first.rows[0].status).toBe("succeeded");
    const other = await people(["a"]);
    const second = await process(fixture("charge-key-reused.csv", other, key));
    expect(second.rows.map((r) => [r.status, r.Reason])).toEqual([
      ["failed", "idempotency_key was already used for a different payment"],
    ]);
    expect((await ops.client.listCharges({ customerId: other.a.id })).charges).toEqual([]);
  });
});

describe("idempotency per row", () => {
  it("the same file uploaded and confirmed again charges nobody twice", async () => {
    const who = await people(["a", "b"]);
    const file = Buffer.from(
      `customer_email,customer_id,price,description,metadata\n${who.a.email},,1200,Box,\n${who.b.email},,900,Box,\n`,
    );
    const first = await process(file);
    const second = await process(file);
    expect(second.batchId).not.toBe(first.batchId);
    expect(second.rows).toEqual(first.rows);
    for (const person of [who.a, who.b]) {
      const { charges } = await ops.client.listCharges({ customerId: person.id });
      expect(charges.map((c) => c.chargeStatus)).toEqual([ChargeStatus.SUCCESS]);
      const ledger = await server.ctx.tx.db
        .selectFrom("bank_ledger")
        .select("amount")
        .where("customer_id", "=", person.id)
        .execute();
      expect(ledger).toHaveLength(1);
    }
  });

  it("a repeated confirmation answers the batch and charges nothing again", async () => {
    const who = await people(["a"]);
    const batch = await upload(
      Buffer.from(`customer_email,customer_id,price,description,metadata\n${who.a.email},,1200,Box,\n`),
    );
    await confirm(batch);
    await confirm(batch);
    await server.jobs.drain();
    expect((await ops.client.listCharges({ customerId: who.a.id })).charges).toHaveLength(1);
  });
});

describe("TOTP confirmation", () => {
  const oneRow = async () => {
    const who = await people(["a"]);
    return Buffer.from(`customer_email,customer_id,price,description,metadata\n${who.a.email},,1200,Box,\n`);
  };
  /** A well-formed code that is not the current one. */
  const wrongCode = () => totpCodeAt(secret, new Date(server.clock.now().getTime() + 3_600_000));

  it("refuses a wrong code, an unknown challenge and an unknown batch", async () => {
    const batch = await upload(await oneRow());
    expect(await refusal(confirm(batch, ops, wrongCode()))).toMatchObject({
      code: Code.InvalidArgument,
      reason: "TOTP_CODE_INVALID",
    });
    expect(
      await refusal(
        ops.client.confirmCsvBatch({
          batchId: batch.batchId,
          challengeId: "tch-unknown",
          code: nextTotpCode(server, secret),
        }),
      ),
    ).toMatchObject({
      code: Code.NotFound,
      reason: "TOTP_CHALLENGE_NOT_FOUND",
    });
    expect(
      await refusal(
        ops.client.confirmCsvBatch({
          batchId: "bat-unknown",
          challengeId: batch.challengeId,
          code: nextTotpCode(server, secret),
        }),
      ),
    ).toMatchObject({
      code: Code.NotFound,
      reason: "CSV_BATCH_NOT_FOUND",
    });
    expect((await confirm(batch)).batch?.status).toBe("running");
  });

  it("refuses another user's challenge as not found", async () => {
    const other = await signedInUser(server);
    const otherSecret = await enrolTotp(server, other);
    const batch = await upload(await oneRow());
    const refused = await refusal(
      other.client.confirmCsvBatch({
        batchId: batch.batchId,
        challengeId: batch.challengeId,
        code: nextTotpCode(server, otherSecret),
      }),
    );
    expect(refused).toMatchObject({ code: Code.NotFound, reason: "TOTP_CHALLENGE_NOT_FOUND" });
  });

  it("expires a challenge after 5 minutes; a new one confirms the batch", async () => {
    const batch = await upload(await oneRow());
    server.clock.advance(5 * 60_000);
    expect(await refusal(confirm(batch))).toMatchObject({
      code: Code.FailedPrecondition,
      reason: "TOTP_CHALLENGE_EXPIRED",
    });
    const fresh = await ops.client.createCsvBatchChallenge({ batchId: batch.batchId });
    expect((await confirm({ ...batch, challengeId: fresh.challengeId })).batch?.status).toBe("running");
  });

  it("expires an unconfirmed batch after 30 minutes", async () => {
    const batch = await upload(await oneRow());
    server.clock.advance(20 * 60_000);
    await ops.client.getSession({});
    server.clock.advance(10 * 60_000);
    expect(await refusal(ops.client.createCsvBatchChallenge({ batchId: batch.batchId }))).toMatchObject({
      reason: "CSV_BATCH_EXPIRED",
    });
    expect(await refusal(confirm(batch))).toMatchObject({ code: Code.FailedPrecondition, reason: "CSV_BATCH_EXPIRED" });
  });

  it("locks confirmation for 15 minutes after 3 wrong codes, on the test clock", async () => {
    const locker = await signedInUser(server);
    const lockerSecret = await enrolTotp(server, locker);
    const batch = await upload(await oneRow(), "locked.csv", locker);
    const wrong = () => totpCodeAt(lockerSecret, new Date(server.clock.now().getTime() + 3_600_000));
    expect(await refusal(confirm(batch, locker, wrong()))).toMatchObject({
      reason: "TOTP_CODE_INVALID",
      message: expect.stringMatching(/2 attempts left/),
    });
    expect(await refusal(confirm(batch, locker, wrong()))).toMatchObject({
      reason: "TOTP_CODE_INVALID",
      message: expect.stringMatching(/1 attempt left/),
    });
    expect(await refusal(confirm(batch, locker, wrong()))).toMatchObject({
      code: Code.ResourceExhausted,
      reason: "TOTP_CHALLENGE_LOCKED",
    });
    // Locked: even the right code is refused, for a new challenge too.
    expect(await refusal(confirm(batch, locker, nextTotpCode(server, lockerSecret)))).toMatchObject({
      reason: "TOTP_CHALLENGE_LOCKED",
    });
    server.clock.advance(13 * 60_000); // 14 minutes after the lock, with the code's step
    const during = await locker.client.createCsvBatchChallenge({ batchId: batch.batchId });
    expect(
      await refusal(confirm({ ...batch, challengeId: during.challengeId }, locker, nextTotpCode(server, lockerSecret))),
    ).toMatchObject({ reason: "TOTP_CHALLENGE_LOCKED" });
    server.clock.advance(60_000); // 15½ minutes after the lock
    const after = await locker.client.createCsvBatchChallenge({ batchId: batch.batchId });
    const { batch: confirmed } = await confirm(
      { ...batch, challengeId: after.challengeId },
      locker,
      nextTotpCode(server, lockerSecret),
    );
    expect(confirmed?.status).toBe("running");
  });
});

describe("a 300-row batch with mixed outcomes", () => {
  it("charges every chargeable row once and reports every row", async () => {
    const names = Array.from({ length: 290 }, (_, i) => `p${i}`);
    const balances: Record<string, { balance: number }> = {};
    for (const name of names.slice(260, 280)) balances[name] = { balance: 500 };
    const who = await people(names, balances);
    await server.ctx.tx.write((trx) =>
      trx
        .updateTable("bank_accounts")
        .set({ quota: 999 })
        .where(
          "customer_id",
          "in",
          names.slice(280).map((n) => who[n].id),
        )
        .execute(),
    );
    const lines = names.map(
      (name, i) => `${who[name].email},${i % 2 ? who[name].id : ""},${1000 + (i % 7)},Row ${i},row=${i}`,
    );
    for (let i = 0; i < 5; i++) lines.push(`bad-price-${i}-${run}@example.jp,,12.5,Bad price,`);
    for (let i = 0; i < 5; i++) lines.push(`stranger-${i}-${run}@example.jp,,1000,Unknown,`);
    expect(lines).toHaveLength(300);
    const file = Buffer.from(["customer_email,customer_id,price,description,metadata", ...lines].join("\r\n"));

    const batch = await upload(file, "three-hundred.csv");
    expect(batch).toMatchObject({ rowCount: 300, invalidRowCount: 5 });
    await confirm(batch);
    const draining = server.clock.now().getTime();
    await server.jobs.drain();
    const { batch: done } = await ops.client.getCsvBatch({ batchId: batch.batchId });
    expect(done).toMatchObject({ status: "completed", rowCount: 300, succeeded: 260, failed: 40, processing: 0 });
    const completedAt = timestampDate(done!.completedAt!).getTime();
    expect(completedAt).toBeGreaterThanOrEqual(draining);
    expect(completedAt).toBeLessThanOrEqual(server.clock.now().getTime());

    const { fileName } = await ops.client.downloadCsvBatchResult({ batchId: batch.batchId });
    expect(fileName).toBe("three-hundred-result.csv");
    const rows = await result(batch.batchId);
    expect(rows).toHaveLength(300);
    rows.forEach((row, i) => {
      expect(row.description).toBe(i < 290 ? `Row ${i}` : i < 295 ? "Bad price" : "Unknown");
      const expected =
        i < 260
          ? ["succeeded", ""]
          : i < 280
            ? ["failed", "Customer has insufficient funds"]
            : i < 290
              ? ["failed", "Payment exceeds allowed limit"]
              : i < 295
                ? ["failed", csvRowReasons.priceNotInteger]
                : ["failed", csvRowReasons.emailNotLinked];
      expect([row.status, row.Reason], `row ${i + 1}`).toEqual(expected);
    });
    const charged = await server.ctx.tx.db
      .selectFrom("charges")
      .select(({ fn }) => fn.countAll<number>().as("n"))
      .where(
        "customer_id",
        "in",
        names.map((n) => who[n].id),
      )
      .executeTakeFirstOrThrow();
    expect(Number(charged.n)).toBe(290);
  });
});

describe("CSV injection", () => {
  it("neutralises every cell that starts with = + - @ tab or carriage return", async () => {
    const who = await people(["a", "b", "c", "d", "e", "f"]);
    const { batchId, rows } = await process(fixture("csv-injection.csv", who));
    expect(rows.map((r) => r.description)).toEqual([
      `'=HYPERLINK("http://evil.example/","open")`,
      "'+81 3 1234 5678",
      "'-40% off",
      "'@home",
      "'\tTabbed",
      "Box",
      "Box",
    ]);
    expect(rows[6].customer_email).toBe("'=cmd|' /C calc'!A0");
    expect(rows.slice(0, 6).map((r) => r.status)).toEqual(Array(6).fill("succeeded"));
    const { content } = await ops.client.downloadCsvBatchResult({ batchId });
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(content);
    expect(text.startsWith("\uFEFFcustomer_email,")).toBe(true);
    expect(text).not.toMatch(/(^|,)"?[=+\-@]/m);
  });
});

describe("on PostgreSQL", () => {
  it("runs a batch from upload to result, and charges nobody twice when the file comes again", async () => {
    const pg = await startTestServer({ dialect: "postgres", env: { WORKERS: "off" } });
    try {
      const user = await signedInUser(pg);
      const pgSecret = await enrolTotp(pg, user);
      const [ok, poor] = await Promise.all([
        seedActiveCustomer(pg, { email: "ok@example.jp" }),
        seedActiveCustomer(pg, { email: "poor@example.jp", balance: 10 }),
      ]);
      const file = Buffer.from(
        [
          "customer_email,customer_id,price,description,metadata",
          "ok@example.jp,,1200,Box,plan=gold",
          `poor@example.jp,${poor.customerId},1200,Box,`,
          "nobody@example.jp,,1200,Box,",
          "ok2@example.jp,,0,Box,",
        ].join("\n"),
      );
      const runOnce = async () => {
        const batch = await user.client.uploadCsvBatch({ fileName: "pg.csv", content: file });
        await user.client.confirmCsvBatch({
          batchId: batch.batchId,
          challengeId: batch.challengeId,
          code: nextTotpCode(pg, pgSecret),
        });
        await pg.jobs.drain();
        const { content } = await user.client.downloadCsvBatchResult({ batchId: batch.batchId });
        return (parse(Buffer.from(content), { bom: true, columns: true }) as ResultRow[]).map((r) => [
          r.status,
          r.Reason,
        ]);
      };
      const expected = [
        ["succeeded", ""],
        ["failed", "Customer has insufficient funds"],
        ["failed", csvRowReasons.emailNotLinked],
        ["failed", csvRowReasons.priceOutOfBounds],
      ];
      expect(await runOnce()).toEqual(expected);
      expect(await runOnce()).toEqual(expected);
      expect((await user.client.listCharges({ customerId: ok.customerId })).charges).toHaveLength(1);
    } finally {
      await pg.stop();
    }
  });
});
