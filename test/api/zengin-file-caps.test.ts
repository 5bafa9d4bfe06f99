import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BankAccountType } from "../../gen/payments/v1/enums_pb.js";
import type { ZenginItemRecord } from "../../src/domain/zengin-records.js";
import { fileItems, insertItems } from "../../src/storage/zengin.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

/**
 * A request file holds what its trailer can count (合計件数 N6, 合計金額 N12): the items past
 * either stay scheduled, for the next debit date (docs/guide/direct-debit-files.md#the-life-of-a-charge).
 * The caps are given small here; the service uses 999,999 records and 999,999,999,999 yen.
 */
describe.each(dialects)("a request file's caps, on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  const merchantId = "mer-file-caps";
  const group = { merchantId, contractCode: "9999999991", date: "2026-12-28" };
  const item = (n: number, amount: number): ZenginItemRecord => {
    const at = new Date(Date.UTC(2026, 11, 1, 0, 0, n));
    return {
      reference: `trx-caps-${n}`,
      merchantId,
      contractCode: group.contractCode,
      date: group.date,
      state: "scheduled",
      fileId: null,
      customerNumber: null,
      amount,
      newCode: 1,
      account: {
        bankCode: "0005",
        branchCode: "001",
        accountType: BankAccountType.ORDINARY,
        accountNumber: String(1_000_000 + n),
        accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ",
      },
      resultCode: null,
      createdAt: at,
      updatedAt: at,
    };
  };
  const states = async () =>
    (
      await server.ctx.tx.db
        .selectFrom("zengin_debits")
        .select(["reference", "state", "file_id", "customer_number"])
        .where("merchant_id", "=", merchantId)
        .orderBy("created_at")
        .execute()
    ).map((row) => [row.reference, row.state, row.file_id, row.customer_number]);

  it("files the items in order up to the records and the yen its trailer can count; the rest stay scheduled", async () => {
    // Inserted out of order: the file numbers them by creation time.
    const items = [item(3, 3_000), item(1, 1_000), item(5, 5_000), item(2, 2_000), item(4, 4_000)];
    await server.ctx.tx.write((trx) =>
      insertItems(
        trx,
        "zengin_debits",
        items.map((one) => ({ item: one })),
      ),
    );
    const now = new Date().toISOString();
    await server.ctx.tx.write((trx) =>
      fileItems(trx, "zengin_debits", { ...group, fileId: "zf-caps-1", now }, { records: 3, amountYen: 10 ** 12 }),
    );
    expect(await states()).toEqual([
      ["trx-caps-1", "filed", "zf-caps-1", "20261228000000000001"],
      ["trx-caps-2", "filed", "zf-caps-1", "20261228000000000002"],
      ["trx-caps-3", "filed", "zf-caps-1", "20261228000000000003"],
      ["trx-caps-4", "scheduled", null, null],
      ["trx-caps-5", "scheduled", null, null],
    ]);

    // 4,000 fits under 4,000 yen, 4,000 + 5,000 does not.
    await server.ctx.tx.write((trx) =>
      fileItems(trx, "zengin_debits", { ...group, fileId: "zf-caps-2", now }, { records: 999_999, amountYen: 4_000 }),
    );
    expect((await states()).slice(3)).toEqual([
      ["trx-caps-4", "filed", "zf-caps-2", "20261228000000000001"],
      ["trx-caps-5", "scheduled", null, null],
    ]);
  });
});
