import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { type DebitFile, decodeDebitFile, encodeDebitFile, openDebitFile } from "../../src/domain/zengin-debit-file.js";
import { consignorView, showZenginFile } from "../../src/flows/zengin-cli-views.js";
import { addContract, contractInputOf, merchantContracts, updateContract } from "../../src/flows/zengin-contracts.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { api, type TestServer } from "../helpers/test-server.js";
import { advanceAndDrain, eventTypesOf, merchantWithCharges, startZenginServer } from "../helpers/zengin-server.js";

/**
 * A contract whose bank answers only the failed debits (result style failures_only,
 * docs/guide/direct-debit-files.md#result-styles): each case is a merchant of its own with three
 * charges (1,000, 2,000 and 3,000 yen) in one request file, answered by a file written here.
 */
let server: TestServer;
let dir: string;

const cases = ["settles", "none-failed", "wrong-count", "unknown-record"] as const;
type Case = (typeof cases)[number];
const merchants = {} as Record<Case, { merchantId: string; code: string; charges: string[] }>;

beforeAll(async () => {
  server = await startZenginServer({ consignorCode: "7200000000", simulatedBank: false });
  dir = server.ctx.config.zengin.dir;
  for (const [index, name] of cases.entries())
    merchants[name] = await merchantWithCharges(server, {
      name,
      code: `72000000${String(index + 1).padStart(2, "0")}`,
      prices: [1000, 2000, 3000],
      contract: { resultStyle: "failures_only" },
    });
  await server.jobs.drain();
  // Past the cutoff (15:00 JST on the 25th): one request file per merchant for the 26th.
  server.clock.advance(Date.parse("2026-11-25T06:00:00Z") - server.clock.now().getTime());
  expect((await cycle()).written).toHaveLength(cases.length);
  server.clock.advance(2 * 86_400_000);
});
afterAll(async () => {
  try {
    await expectReconciled(server);
  } finally {
    await server?.stop();
  }
});

const cycle = () =>
  runZenginCycle(
    server.ctx,
    zenginExchangeOf(server.ctx, () => {}),
  );

/** The request we sent the case's contract, with the 2,000 yen debit answered 1 (資金不足) unless `failed` says otherwise. */
function answered(name: Case, failed = new Map([[2000, 1]])): DebitFile {
  const sent = decodeDebitFile(readFileSync(join(dir, "outgoing", `Z91_${merchants[name].code}_20261126.txt`)), false);
  if (!sent.ok) throw new Error(sent.reason);
  return {
    ...sent.file,
    records: sent.file.records.map((record) => ({ ...record, resultCode: failed.get(record.amount) ?? 0 })),
  };
}

async function charge(id: string) {
  return server.ctx.tx.db.selectFrom("charges").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

const eventTypes = (chargeId: string) => eventTypesOf(server, chargeId);

async function statuses(name: Case) {
  return Promise.all(merchants[name].charges.map(async (id) => (await charge(id)).status));
}

describe("result style failures_only (不能分のみ)", () => {
  it("is stored with the contract and shown by zengin contracts list", async () => {
    const [contract] = await merchantContracts(server.ctx, merchants.settles.merchantId);
    expect(consignorView(contract)).toMatchObject({ code: merchants.settles.code, result_style: "failures_only" });
    await expect(
      addContract(server.ctx, merchants.settles.merchantId, {
        code: "7299999999",
        scope: "agent",
        name: "ﾃｽﾄ",
        bankCode: "0001",
        branchCode: "001",
        accountType: "1",
        accountNumber: "1234567",
        resultStyle: "failed",
      }),
    ).rejects.toThrow(/result-style: must be all or failures_only/);
  });

  it("settles the debits the result does not list as debited, and the listed ones failed with their codes", async () => {
    writeFileSync(
      join(dir, "incoming", "R91_settles.txt"),
      encodeDebitFile(answered("settles"), true, "failures_only"),
    );
    expect(await cycle()).toMatchObject({ imported: ["R91_settles.txt"], quarantined: [] });
    const [a, b, c] = merchants.settles.charges;
    expect(await statuses("settles")).toEqual([ChargeStatus.SUCCESS, ChargeStatus.FAILURE, ChargeStatus.SUCCESS]);
    expect(await eventTypes(a)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
    expect(await eventTypes(b)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
    expect(await eventTypes(c)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
    expect(await charge(b)).toMatchObject({ error_type: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS });
    const files = await server.ctx.tx.db
      .selectFrom("zengin_files")
      .select(["name", "state", "record_count", "done_count", "done_amount", "failed_count", "failed_amount"])
      .where("merchant_id", "=", merchants.settles.merchantId)
      .orderBy("name")
      .execute();
    const totals = { record_count: 3, done_count: 2, done_amount: 4000, failed_count: 1, failed_amount: 2000 };
    expect(
      files.map((file) => ({
        ...file,
        done_amount: Number(file.done_amount),
        failed_amount: Number(file.failed_amount),
      })),
    ).toEqual([
      { name: "R91_settles.txt", state: "archived", ...totals },
      { name: `Z91_${merchants.settles.code}_20261126.txt`, state: "answered", ...totals },
    ]);
    const items = await server.ctx.tx.db
      .selectFrom("zengin_debits")
      .select(["amount", "result_code", "state"])
      .where("merchant_id", "=", merchants.settles.merchantId)
      .orderBy("amount")
      .execute();
    // zengin files show reads it as it is: the failed debit listed, the two others from its trailer.
    expect(await showZenginFile(dir, "R91_settles.txt")).toMatchObject({
      valid: true,
      result_style: "failures_only",
      records: [expect.objectContaining({ amount: 2000, resultCode: 1 })],
      unlisted: { count: 2, amount: 4000 },
    });
    expect(items.map((item) => [Number(item.amount), item.result_code, item.state])).toEqual([
      [1000, 0, "answered"],
      [2000, 1, "answered"],
      [3000, 0, "answered"],
    ]);
  });

  it("settles every debit when the result lists none (a header, a trailer, an end)", async () => {
    const bytes = encodeDebitFile(answered("none-failed", new Map()), true, "failures_only");
    expect(bytes).toHaveLength(3 * 122);
    writeFileSync(join(dir, "incoming", "R91_none-failed.txt"), bytes);
    expect(await cycle()).toMatchObject({ imported: ["R91_none-failed.txt"], quarantined: [] });
    expect(await statuses("none-failed")).toEqual(Array(3).fill(ChargeStatus.SUCCESS));
  });

  it("quarantines a trailer that counts only the listed records, settling nothing", async () => {
    const onlyFailed = answered("wrong-count");
    const bytes = encodeDebitFile(
      { ...onlyFailed, records: onlyFailed.records.filter((record) => record.resultCode !== 0) },
      true,
    );
    writeFileSync(join(dir, "incoming", "R91_wrong-count.txt"), bytes);
    expect(await cycle()).toMatchObject({
      imported: [],
      quarantined: [
        {
          name: "R91_wrong-count.txt",
          reason: "the trailer's count is 1, the listed records and the 2 debits not listed make 3",
        },
      ],
    });
    expect(await statuses("wrong-count")).toEqual(Array(3).fill(ChargeStatus.PENDING));
  });

  it("quarantines a listed record that is not in the request", async () => {
    const file = answered("unknown-record");
    const records = file.records.map((record) =>
      record.resultCode ? { ...record, customerNumber: `${record.customerNumber.slice(0, -3)}999` } : record,
    );
    writeFileSync(
      join(dir, "incoming", "R91_unknown-record.txt"),
      encodeDebitFile({ ...file, records }, true, "failures_only"),
    );
    const report = await cycle();
    expect(report.imported).toEqual([]);
    expect(report.quarantined[0].reason).toMatch(/customer number 20261126000000000999 was not in the request/);
    expect(await statuses("unknown-record")).toEqual(Array(3).fill(ChargeStatus.PENDING));
  });
});

describe("the simulated bank, for a failures_only contract", () => {
  let sandbox: TestServer;
  beforeAll(async () => {
    sandbox = await startZenginServer({ consignorCode: "7300000000", simulatedBank: true });
  });
  afterAll(async () => {
    try {
      await expectReconciled(sandbox);
    } finally {
      await sandbox?.stop();
    }
  });

  const advanceTo = (iso: string) => advanceAndDrain(sandbox, iso);

  it("answers with the failed debits alone, and the import settles both", async () => {
    const merchantId = sandbox.merchant.merchant_id;
    const [contract] = await merchantContracts(sandbox.ctx, merchantId);
    await updateContract(sandbox.ctx, merchantId, contract.code, {
      ...contractInputOf(contract),
      resultStyle: "failures_only",
    });
    const charges: string[] = [];
    // 9999991: the simulated bank answers 1 (資金不足).
    for (const accountNumber of ["0012345", "9999991"]) {
      const { customerId } = await seedActiveCustomer(sandbox, { accountNumber });
      const res = await api(sandbox, "/v1/payments/off-session/async", {
        method: "POST",
        json: { customer_id: customerId, charge: { price: 1800 } },
      });
      charges.push((await res.json()).chargeId);
    }
    await advanceTo("2026-11-25T06:00:00Z");
    await advanceTo("2026-11-26T08:00:00Z");
    const answer = openDebitFile(
      readFileSync(join(sandbox.ctx.config.zengin.dir, "archive", "R91_7300000000_20261126.txt")),
      true,
    );
    if (!answer.ok) throw new Error(answer.reason);
    expect(answer.file.count).toBe(1);
    const rows = await sandbox.ctx.tx.db
      .selectFrom("charges")
      .select(["id", "status"])
      .where("id", "in", charges)
      .execute();
    expect(new Map(rows.map((row) => [row.id, row.status]))).toEqual(
      new Map([
        [charges[0], ChargeStatus.SUCCESS],
        [charges[1], ChargeStatus.FAILURE],
      ]),
    );
  });
});
