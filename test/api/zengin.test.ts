import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AsyncStatus, ChargeStatus, ContractStatus, ErrorType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { type DebitRecord, decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { updateConsignor } from "../../src/flows/merchants.js";
import { reconcile } from "../../src/flows/reconcile.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { answerRequestFiles } from "../../src/ports/zengin-simulated-bank.js";
import { signedInUser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { eventTypesOf } from "../helpers/zengin-server.js";

let server: TestServer;
let dir: string;
const quarantined: { name: string; reason: string }[] = [];

// Tuesday 2026-11-24 10:00 JST: debits accepted now are made on Thursday 26th, their file is due
// at 15:00 JST on Wednesday 25th.
const start = new Date("2026-11-24T01:00:00Z");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "zengin-"));
  server = await startTestServer({
    clockStart: start,
    env: { BANK_CONNECTOR: "zengin", ZENGIN_DIR: dir, ZENGIN_SIMULATED_BANK: "off", WORKERS: "off" },
  });
  await updateConsignor(server.ctx, server.merchant.merchant_id, {
    code: "1234567890",
    name: "テスト ショップ",
    bankCode: "0184",
    bankName: "ﾐﾔｻﾞｷ",
    branchCode: "001",
    branchName: "ﾎﾝﾃﾝ",
    accountType: "1",
    accountNumber: "1234567",
  });
});
afterAll(async () => {
  try {
    await expectReconciled(server);
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

const exchange = () => zenginExchangeOf(server.ctx, (file) => quarantined.push(file));
const cycle = () => runZenginCycle(server.ctx, exchange());

async function post(path: string, json: object) {
  const res = await api(server, path, { method: "POST", json });
  return { status: res.status, body: await res.json() };
}

async function charge(id: string) {
  return server.ctx.tx.db.selectFrom("charges").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

const eventTypes = (chargeId: string) => eventTypesOf(server, chargeId);

describe("BANK_CONNECTOR=zengin: request file, result file, settlement", () => {
  const ids: Record<string, string> = {};
  let contractOfB = "";

  it("refuses consignor settings a Zengin file cannot carry", async () => {
    await expect(
      updateConsignor(server.ctx, server.merchant.merchant_id, {
        code: "12345",
        name: "ｼﾖｯﾌﾟ",
        bankCode: "0184",
        branchCode: "001",
        accountType: "1",
        accountNumber: "1234567",
      }),
    ).rejects.toThrow(/consignor-code: must be 10 digits/);
    await expect(
      updateConsignor(server.ctx, server.merchant.merchant_id, {
        code: "1234567890",
        name: "Shop・漢字",
        bankCode: "0184",
        branchCode: "001",
        accountType: "1",
        accountNumber: "1234567",
      }),
    ).rejects.toThrow(/consignor-name/);
  });

  it("accepts charges as PENDING (async RUNNING) with a debit date, and cancels one refunded before its file", async () => {
    const a = await seedActiveCustomer(server, { balance: 100_000, accountNumber: "0012345" });
    const b = await seedActiveCustomer(server, { balance: 100_000, accountNumber: "9999994" });
    const c = await seedActiveCustomer(server, { balance: 100_000, accountNumber: "0054321" });
    contractOfB = b.contractId;
    const body = (customer_id: string, price: number) => ({ customer_id, charge: { price, description: "box" } });
    const first = await post("/v1/payments/off-session/async", body(a.customerId, 1500));
    const second = await post("/v1/payments/off-session/async", body(b.customerId, 2500));
    const third = await post("/v1/payments/off-session", body(c.customerId, 700));
    const d = await seedActiveCustomer(server, { balance: 100_000, accountNumber: "0066666" });
    const fourth = await post("/v1/payments/off-session/async", body(d.customerId, 900));
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    await server.jobs.drain();
    ids.a = first.body.chargeId;
    ids.b = second.body.chargeId;
    ids.c = third.body.charge.chargeId;
    expect(third.body.charge.chargeStatus).toBe("CHARGE_STATUS_PENDING");
    expect((await charge(ids.a)).status).toBe(ChargeStatus.PENDING);
    expect((await charge(ids.c)).status).toBe(ChargeStatus.PENDING);
    const request = await server.ctx.tx.db
      .selectFrom("async_requests")
      .select("status")
      .where("charge_id", "=", ids.a)
      .executeTakeFirstOrThrow();
    expect(request.status).toBe(AsyncStatus.RUNNING);
    const debit = await server.ctx.tx.db
      .selectFrom("zengin_debits")
      .selectAll()
      .where("reference", "=", ids.a)
      .executeTakeFirstOrThrow();
    expect(debit).toMatchObject({ date: "2026-11-26", state: "scheduled", new_code: 1 });

    const refund = await post("/v1/refund", { charge_id: ids.c });
    expect(refund.status).toBe(200);
    expect((await charge(ids.c)).status).toBe(ChargeStatus.CANCELLED);
    expect(await eventTypes(ids.c)).toEqual(["EVENT_TYPE_REFUND_SUCCEEDED"]);
    // An async charge cancelled before its file: its request ends SUCCEEDED with the CANCELLED charge.
    expect((await post("/v1/refund", { charge_id: fourth.body.chargeId })).status).toBe(200);
    const cancelledRequest = await server.ctx.tx.db
      .selectFrom("async_requests")
      .select("status")
      .where("charge_id", "=", fourth.body.chargeId)
      .executeTakeFirstOrThrow();
    expect(cancelledRequest.status).toBe(AsyncStatus.SUCCEEDED);
  });

  it("writes no file before the cutoff, then one file with every charge at 15:00 JST the business day before", async () => {
    expect((await cycle()).written).toEqual([]);
    server.clock.advance(Date.parse("2026-11-25T06:00:00Z") - server.clock.now().getTime());
    const report = await cycle();
    expect(report.written).toEqual(["Z91_1234567890_20261126.txt"]);
    const bytes = readFileSync(join(dir, "outgoing", "Z91_1234567890_20261126.txt"));
    const decoded = decodeDebitFile(bytes, false);
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.file.consignor).toMatchObject({ code: "1234567890", name: "ﾃｽﾄ ｼﾖﾂﾌﾟ" });
    expect(decoded.file.debitDate).toBe("1126");
    const records = [...decoded.file.records].sort((x, y) => x.amount - y.amount);
    expect(records.map((r) => [r.accountNumber, r.amount, r.newCode, r.holder])).toEqual([
      ["0012345", 1500, 1, "ﾔﾏﾀﾞ ﾀﾛｳ"],
      ["9999994", 2500, 1, "ﾔﾏﾀﾞ ﾀﾛｳ"],
    ]);
    expect(records.map((r) => r.customerNumber).sort()).toEqual(["20261126000000000001", "20261126000000000002"]);
    // No temporary file is left, and a second turn writes nothing again.
    expect(readdirSync(join(dir, "outgoing"))).toEqual(["Z91_1234567890_20261126.txt"]);
    // The file carries accounts in clear: the service user's alone.
    expect(statSync(join(dir, "outgoing")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "outgoing", "Z91_1234567890_20261126.txt")).mode & 0o777).toBe(0o600);
    expect((await cycle()).written).toEqual([]);
    expect(readFileSync(join(dir, "outgoing", "Z91_1234567890_20261126.txt")).equals(bytes)).toBe(true);
  });

  it("quarantines a result that does not match the request, applying nothing", async () => {
    const sent = decodeDebitFile(readFileSync(join(dir, "outgoing", "Z91_1234567890_20261126.txt")), false);
    if (!sent.ok) throw new Error(sent.reason);
    const wrongAmount = encodeDebitFile(
      { ...sent.file, records: sent.file.records.map((r) => (r.amount === 1500 ? { ...r, amount: 1499 } : r)) },
      true,
    );
    writeFileSync(join(dir, "incoming", "R91_bad.txt"), wrongAmount);
    const report = await cycle();
    expect(report.quarantined).toEqual([
      { name: "R91_bad.txt", reason: expect.stringMatching(/amount 1499 is not 1500/) },
    ]);
    expect(quarantined).toHaveLength(1);
    expect(existsSync(join(dir, "quarantine", "R91_bad.txt"))).toBe(true);
    expect(readFileSync(join(dir, "quarantine", "R91_bad.txt.reason.txt"), "utf8")).toMatch(/amount 1499/);
    expect(existsSync(join(dir, "incoming", "R91_bad.txt"))).toBe(false);
    expect((await charge(ids.a)).status).toBe(ChargeStatus.PENDING);
  });

  it("quarantines every kind of malformed result file, applying nothing of any", async () => {
    const sentBytes = readFileSync(join(dir, "outgoing", "Z91_1234567890_20261126.txt"));
    const sent = decodeDebitFile(sentBytes, false);
    if (!sent.ok) throw new Error(sent.reason);
    const file = sent.file;
    const answered = encodeDebitFile(file, true);
    const withRecords = (change: (r: DebitRecord) => Partial<DebitRecord>) =>
      encodeDebitFile({ ...file, records: file.records.map((r) => ({ ...r, ...change(r) })) }, true);
    const sjis = Buffer.from(answered);
    sjis.set([0x83, 0x41], 122 + 50);
    const badTotal = Buffer.from(answered);
    badTotal.write("9", 3 * 122 + 18, "latin1");
    const cases: [string, Buffer, RegExp][] = [
      [
        "short-record",
        Buffer.concat([answered.subarray(0, 200), answered.subarray(201)]),
        /record 2 is 119 bytes, not 120/,
      ],
      ["bad-totals", badTotal, /trailer's total/],
      [
        "unknown-customer",
        withRecords((r) => ({ customerNumber: r.customerNumber.replace(/.$/, "9") })),
        /not in the request/,
      ],
      // Compared with the item's account by its keyed hash (the items keep the account sealed).
      [
        "wrong-account",
        withRecords((r) => (r.amount === 2500 ? { accountNumber: "9999995" } : {})),
        /account is not the one requested/,
      ],
      ["wrong-date", encodeDebitFile({ ...file, debitDate: "1127" }, true), /no 種別 91 file .* dated 1127/],
      ["invalid-sjis", sjis, /not a JIS X 0201 character/],
      ["truncated", answered.subarray(0, 3 * 122), /truncated/],
      ["empty", Buffer.alloc(0), /not a 種別 91 or 21 file/],
    ];
    for (const [name, bytes] of cases) writeFileSync(join(dir, "incoming", `R91_${name}.txt`), bytes);
    const report = await cycle();
    for (const [name, , reason] of cases)
      expect(report.quarantined.find((file) => file.name === `R91_${name}.txt`)?.reason).toMatch(reason);
    expect(report.imported).toEqual([]);
    expect((await charge(ids.a)).status).toBe(ChargeStatus.PENDING);
    expect((await charge(ids.b)).status).toBe(ChargeStatus.PENDING);
  });

  it("settles every charge from the simulated bank's result, deactivating the contract of a 依頼書なし", async () => {
    server.clock.advance(Date.parse("2026-11-26T07:59:00Z") - server.clock.now().getTime());
    expect(await answerRequestFiles(server.ctx.tx, dir, server.clock.now())).toEqual([]);
    server.clock.advance(60_000);
    expect(await answerRequestFiles(server.ctx.tx, dir, server.clock.now())).toEqual(["R91_1234567890_20261126.txt"]);
    const report = await cycle();
    expect(report.imported).toEqual(["R91_1234567890_20261126.txt"]);
    expect(await charge(ids.a)).toMatchObject({ status: ChargeStatus.SUCCESS });
    expect(await charge(ids.b)).toMatchObject({
      status: ChargeStatus.FAILURE,
      error_type: ErrorType.PAYMENT_CUSTOMER_INACTIVE,
      error_message: expect.stringMatching(/Zengin result 4/),
    });
    const contract = await server.ctx.tx.db
      .selectFrom("contracts")
      .select("status")
      .where("id", "=", contractOfB)
      .executeTakeFirstOrThrow();
    expect(contract.status).toBe(ContractStatus.DEACTIVATED);
    expect(await eventTypes(ids.a)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
    expect(await eventTypes(ids.b)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
    expect(existsSync(join(dir, "archive", "R91_1234567890_20261126.txt"))).toBe(true);
    const files = await server.ctx.tx.db
      .selectFrom("zengin_files")
      .selectAll()
      .where("direction", "=", "out")
      .execute();
    expect(files[0]).toMatchObject({ state: "answered", done_count: 1, failed_count: 1 });
    expect(Number(files[0].done_amount)).toBe(1500);
  });

  it("shows the dashboard the files, the reconciliation of the debit date and the quarantined files", async () => {
    const ops = await signedInUser(server);
    const view = await ops.client.listZenginFiles({});
    expect(view.debitDates).toEqual([
      expect.objectContaining({
        date: "2026-11-26",
        requestedCount: 2,
        requestedAmount: 4000n,
        answeredCount: 2,
        debitedAmount: 1500n,
        failedAmount: 2500n,
        reconciled: true,
      }),
    ]);
    expect(view.quarantined).toBeGreaterThan(0);
    expect(view.files.find((file) => file.name === "R91_bad.txt")).toMatchObject({
      state: "quarantined",
      reason: expect.stringMatching(/amount 1499/),
    });
    expect(view.files.find((file) => file.name === "Z91_1234567890_20261126.txt")).toMatchObject({
      state: "answered",
      overdue: false,
    });
    // Another merchant's dashboard sees none of it, and sets its own consignor in the settings.
    const other = await signedInUser(server, { merchantId: (await server.newMerchant()).merchant_id });
    expect((await other.client.listZenginFiles({})).files).toEqual([]);
    expect((await other.client.getConsignorSettings({})).settings).toMatchObject({ code: "", accountType: 0 });
    const settings = {
      code: "8234567890",
      name: "ｶﾌﾞｼｷｶﾞｲｼﾔ ｵｱｼｽ",
      bankCode: "0005",
      bankName: "",
      branchCode: "010",
      branchName: "ｼﾌﾞﾔ",
      accountType: 1,
      accountNumber: "7654321",
      debitDay: 27,
    };
    await expect(other.client.updateConsignorSettings({ settings: { ...settings, name: "株式会社" } })).rejects.toThrow(
      /consignor-name/,
    );
    await expect(
      other.client.updateConsignorSettings({ settings: { ...settings, code: "1234567890" } }),
    ).rejects.toThrow(/another merchant's consignor code/);
    const saved = await other.client.updateConsignorSettings({
      settings: { ...settings, name: "カブシキガイシャ オアシス" },
    });
    expect(saved.settings).toMatchObject({ ...settings, name: "ｶﾌﾞｼｷｶﾞｲｼﾔ ｵｱｼｽ" });
    expect((await other.client.getConsignorSettings({})).settings).toMatchObject({ code: "8234567890", debitDay: 27 });
  });

  it("imports the same result again without changing anything", async () => {
    const archived = readFileSync(join(dir, "archive", "R91_1234567890_20261126.txt"));
    writeFileSync(join(dir, "incoming", "R91_1234567890_20261126.txt"), archived);
    const eventsBefore = await server.ctx.tx.db.selectFrom("events").select("id").execute();
    const report = await cycle();
    expect(report.imported).toEqual(["R91_1234567890_20261126.txt"]);
    expect(await server.ctx.tx.db.selectFrom("events").select("id").execute()).toHaveLength(eventsBefore.length);
    // A different answer for a file already answered is a duplicate: quarantined.
    const sent = decodeDebitFile(archived, true);
    if (!sent.ok) throw new Error(sent.reason);
    writeFileSync(
      join(dir, "incoming", "R91_again.txt"),
      encodeDebitFile({ ...sent.file, records: sent.file.records.map((r) => ({ ...r, resultCode: 0 })) }, true),
    );
    expect((await cycle()).quarantined).toEqual([
      { name: "R91_again.txt", reason: expect.stringMatching(/duplicate/) },
    ]);
    expect(await charge(ids.b)).toMatchObject({ status: ChargeStatus.FAILURE });
  });
});

describe("the cycle as a job, with the simulated bank (sandbox default): debits, then refunds by 総合振込", () => {
  let sandbox: TestServer;
  let sandboxDir: string;

  beforeAll(async () => {
    sandboxDir = mkdtempSync(join(tmpdir(), "zengin-"));
    sandbox = await startTestServer({ clockStart: start, env: { BANK_CONNECTOR: "zengin", ZENGIN_DIR: sandboxDir } });
    await updateConsignor(sandbox.ctx, sandbox.merchant.merchant_id, {
      code: "2234567890",
      name: "ｻﾝﾄﾞﾎﾞﾂｸｽ",
      bankCode: "0001",
      branchCode: "001",
      accountType: "1",
      accountNumber: "7654321",
    });
  });
  afterAll(async () => {
    try {
      await expectReconciled(sandbox);
    } finally {
      await sandbox?.stop();
      rmSync(sandboxDir, { recursive: true, force: true });
    }
  });

  /** Moves the manual clock in 3-hour steps, running due jobs at each. */
  async function live(hours: number) {
    for (let hour = 0; hour < hours; hour += 3) {
      sandbox.clock.advance(3 * 3_600_000);
      await sandbox.jobs.drain();
    }
  }

  const balanceOf = async (customerId: string) =>
    Number(
      (
        await sandbox.ctx.tx.db
          .selectFrom("bank_accounts")
          .select("balance")
          .where("customer_id", "=", customerId)
          .executeTakeFirstOrThrow()
      ).balance,
    );

  const refundStatus = async (id: string) =>
    await sandbox.ctx.tx.db
      .selectFrom("refunds")
      .select(["status", "error_message"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  it("debits on the debit date, pays a refund back by a 種別 21 file, and fails one the bank cannot pay", async () => {
    // Answers at 09:00 JST on the file's date instead of 17:00.
    const configured = await sandbox.client(SandboxService).configureZenginBank({ resultDelayMinutes: 540 });
    expect(configured.resultDelayMinutes).toBe(540);
    const { customerId } = await seedActiveCustomer(sandbox, { balance: 10_000, accountNumber: "0011111" });
    const created = await api(sandbox, "/v1/payments/off-session/async", {
      method: "POST",
      json: { customer_id: customerId, charge: { price: 3000, description: "box" } },
    });
    const { chargeId } = await created.json();
    await sandbox.jobs.drain();
    // Up to 07:00 JST on the debit date (the file was sent at the cutoff), then 10:00 JST: the
    // result came at 09:00, not at the default 17:00.
    await live(45);
    expect(readdirSync(join(sandboxDir, "outgoing"))).toEqual(["Z91_2234567890_20261126.txt"]);
    expect(readdirSync(join(sandboxDir, "archive"))).toEqual([]);
    await live(3);
    const settled = await sandbox.ctx.tx.db
      .selectFrom("charges")
      .selectAll()
      .where("id", "=", chargeId)
      .executeTakeFirstOrThrow();
    expect(settled.status).toBe(ChargeStatus.SUCCESS);
    expect(await balanceOf(customerId)).toBe(7000);
    expect(readdirSync(join(sandboxDir, "archive"))).toEqual(["R91_2234567890_20261126.txt"]);

    const refund = async (amount: number, metadata: Record<string, string> = {}) => {
      const res = await api(sandbox, "/v1/refund", { method: "POST", json: { charge_id: chargeId, amount, metadata } });
      expect(res.status).toBe(200);
      return (await res.json()).refund.refundId as string;
    };
    const paid = await refund(1000);
    const failed = await refund(500, { sandboxRefundOutcome: "fail" });
    await live(24 * 6);
    expect(await refundStatus(paid)).toMatchObject({ status: RefundStatus.SUCCEEDED });
    expect((await refundStatus(failed)).error_message).toMatch(/Zengin result 9/);
    expect(await balanceOf(customerId)).toBe(8000);
    expect(await reconcile(sandbox.ctx)).toEqual([]);
    const transferFiles = readdirSync(join(sandboxDir, "outgoing")).filter((name) => name.startsWith("Z21_"));
    expect(transferFiles).toHaveLength(1);
    expect(await eventTypes2(chargeId)).toEqual([
      "EVENT_TYPE_CHARGE_SUCCESS",
      expect.stringMatching(/REFUND_(SUCCEEDED|FAILED)/),
      expect.stringMatching(/REFUND_(SUCCEEDED|FAILED)/),
    ]);
  });

  const eventTypes2 = (chargeId: string) => eventTypesOf(sandbox, chargeId);
});

describe("a merchant-chosen monthly debit day", () => {
  it("debits on that day of the month, and refuses a day past the 28th", async () => {
    const own = await startTestServer({
      clockStart: start,
      env: { BANK_CONNECTOR: "zengin", ZENGIN_SIMULATED_BANK: "off", WORKERS: "off" },
    });
    try {
      const settings = {
        code: "7234567890",
        name: "ﾏﾝｽﾘ-",
        bankCode: "0001",
        branchCode: "001",
        accountType: "1",
        accountNumber: "1234567",
      };
      await expect(updateConsignor(own.ctx, own.merchant.merchant_id, { ...settings, debitDay: "31" })).rejects.toThrow(
        /debit-day: must be 1 to 28/,
      );
      await updateConsignor(own.ctx, own.merchant.merchant_id, { ...settings, debitDay: "10" });
      const { customerId } = await seedActiveCustomer(own, { accountNumber: "0033333" });
      const res = await api(own, "/v1/payments/off-session/async", {
        method: "POST",
        json: { customer_id: customerId, charge: { price: 980, description: "monthly" } },
      });
      const { chargeId } = await res.json();
      await own.jobs.drain();
      const debit = await own.ctx.tx.db
        .selectFrom("zengin_debits")
        .select("date")
        .where("reference", "=", chargeId)
        .executeTakeFirstOrThrow();
      // Accepted on 24 November: the next 10th is 10 December (a Thursday).
      expect(debit.date).toBe("2026-12-10");
    } finally {
      await own.stop();
    }
  });
});
