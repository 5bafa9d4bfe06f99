import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { parse } from "csv-parse/sync";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ChargeExportLayout } from "../../gen/payments/v1/dashboard_service_pb.js";
import { ChargeStatus, DeliveryStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { chargeExportColumns } from "../../src/domain/charge-export.js";
import { recordEvents } from "../../src/storage/events.js";
import { chargeRow, seedCharge } from "../helpers/charges.js";
import {
  enrolTotp,
  nextTotpCode,
  refusal,
  signedInUser,
  wrongTotpCodes,
  type DashboardBrowser,
} from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { ConnectError } from "@connectrpc/connect";

// The dashboard's finding and exporting (docs/guide/dashboard.md#finding-things) over HTTP, on
// both databases: the filters, keyset paging through everything, the streamed export, a batch's
// rows with their Japanese reasons, and that a session sees only its own merchant.

let server: TestServer;
let ops: DashboardBrowser & { email: string };
let other: DashboardBrowser & { email: string };
let otherMerchantId: string;

beforeAll(async () => {
  server = await startTestServer({ env: { WORKERS: "off" } });
  ops = await signedInUser(server);
  otherMerchantId = (await server.newMerchant("Finding Other")).merchant_id;
  other = await signedInUser(server, { merchantId: otherMerchantId });
});
afterAll(async () => server?.stop());

const merchantId = () => server.merchant.merchant_id;

/** Every page of a keyset listing, `pageSize` at a time. */
async function allPages<T>(
  fetchPage: (pageToken: string) => Promise<{ items: T[]; nextPageToken: string }>,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let token = "";
  let pages = 0;
  do {
    const page = await fetchPage(token);
    items.push(...page.items);
    token = page.nextPageToken;
    pages++;
  } while (token);
  return { items, pages };
}

describe("SearchCustomers", () => {
  const people: Record<string, string> = {};

  beforeAll(async () => {
    const seed = async (key: string, email: string, name: string, kana: [string, string]) => {
      people[key] = (await seedActiveCustomer(server, { email, name, kana })).customerId;
      server.clock.advance(1000);
    };
    await seed("hanako", "Hanako.Sato@example.jp", "佐藤 花子", ["サトウ", "ハナコ"]);
    await seed("hanae", "hanae@example.jp", "Hanae Suzuki", ["スズキ", "ハナエ"]);
    await seed("kenta", "kenta@shop.example.jp", "山田 健太", ["ヤマダ", "ケンタ"]);
    await seed("percent", "100%_off@example.jp", "割引 太郎", ["ワリビキ", "タロウ"]);
    await seedActiveCustomer(server, { merchantId: otherMerchantId, email: "hana-other@example.jp" });
  });

  const found = async (query: { email?: string; name?: string }, user = ops) =>
    (await user.client.searchCustomers({ ...query, pageSize: 100 })).customers.map((c) => c.id);

  it("finds by the start of the e-mail, in any case, and only the merchant's own customers", async () => {
    expect(await found({ email: "HANA" })).toEqual([people.hanae, people.hanako]);
    expect(await found({ email: "hanako.sato@" })).toEqual([people.hanako]);
    expect(await found({ email: "example.jp" })).toEqual([]);
    // % and _ are letters here, not patterns.
    expect(await found({ email: "100%_" })).toEqual([people.percent]);
    expect(await found({ email: "1%" })).toEqual([]);
    expect(await found({ email: "hana" }, other)).not.toContain(people.hanako);
    expect((await found({ email: "hana" }, other)).length).toBe(1);
  });

  it("finds by part of the name, or of the kana in katakana, hiragana or half-width", async () => {
    expect(await found({ name: "花子" })).toEqual([people.hanako]);
    expect(await found({ name: "suzuki" })).toEqual([people.hanae]);
    expect(await found({ name: "さとう はなこ" })).toEqual([people.hanako]);
    expect(await found({ name: "ｻﾄｳ" })).toEqual([people.hanako]);
    expect(await found({ name: "ハナ" })).toEqual([people.hanae, people.hanako]);
    expect(await found({ name: "ヤマダ", email: "kenta@" })).toEqual([people.kenta]);
    expect(await found({ name: "存在しない名前" })).toEqual([]);
  });

  it("answers who each customer is, and pages through all of them without a repeat", async () => {
    const page = await ops.client.searchCustomers({ email: "hanako", pageSize: 10 });
    expect(page.payers).toEqual([
      expect.objectContaining({
        customerId: people.hanako,
        email: "Hanako.Sato@example.jp",
        name: "佐藤 花子",
        kana: "サトウ ハナコ",
      }),
    ]);
    const { items, pages } = await allPages(async (pageToken) => {
      const p = await ops.client.searchCustomers({ pageSize: 2, pageToken });
      return { items: p.customers.map((c) => c.id), nextPageToken: p.nextPageToken };
    });
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(items).size).toBe(items.length);
    expect(items).toEqual(expect.arrayContaining(Object.values(people)));
  });

  it("shows the masked account of a customer's mandate", async () => {
    const email = "mandated@example.jp";
    const created = await server.client(PaymentService).createOnSessionPayment({
      buyer: { email },
      charge: { description: "Monthly plan" },
      redirect: { successUrl: "https://shop.example.jp/ok", failureUrl: "https://shop.example.jp/ng" },
    });
    await server
      .client(SandboxService)
      .completePayment({ paymentLinkUrl: created.paymentLink!.url, bankCode: "9901", accountNumber: "7654567" });
    const { payers } = await ops.client.searchCustomers({ email });
    expect(payers[0].maskedAccount).toContain("****567");
    expect(payers[0].maskedAccount).not.toContain("7654567");
  });
});

describe("ListCharges and ExportCharges", () => {
  let aki: string;
  let ben: string;
  const ids: Record<string, string> = {};
  let from: Date;
  let until: Date;

  beforeAll(async () => {
    aki = (
      await seedActiveCustomer(server, { email: "aki@charges.example.jp", name: "秋 一郎", kana: ["アキ", "イチロウ"] })
    ).customerId;
    ben = (await seedActiveCustomer(server, { email: "ben@charges.example.jp" })).customerId;
    const seed = async (key: string, fixture: Parameters<typeof seedCharge>[1]) => {
      ids[key] = await seedCharge(server, fixture);
      server.clock.advance(60_000);
    };
    await seed("oldAki", { merchantId: merchantId(), customerId: aki, amount: 500 });
    from = server.clock.now();
    await seed("akiSmall", { merchantId: merchantId(), customerId: aki, amount: 1000 });
    await seed("akiFailed", { merchantId: merchantId(), customerId: aki, amount: 3000, status: ChargeStatus.FAILURE });
    await seed("benBig", { merchantId: merchantId(), customerId: ben, amount: 50_000 });
    await seed("benPending", { merchantId: merchantId(), customerId: ben, amount: 2000, status: ChargeStatus.PENDING });
    until = server.clock.now();
    await seed("late", { merchantId: merchantId(), customerId: ben, amount: 1000 });
    await seedCharge(server, { merchantId: otherMerchantId, amount: 1000 });
  });

  const listed = async (filter: object, customerId = "") =>
    (await ops.client.listCharges({ filter, customerId, pageSize: 100 })).charges
      .map((c) => c.chargeId)
      .filter((id) => Object.values(ids).includes(id));

  it("filters by status, date range, amount and customer e-mail, newest first", async () => {
    const range = { createdFrom: timestampFromDate(from), createdBefore: timestampFromDate(until) };
    expect(await listed(range)).toEqual([ids.benPending, ids.benBig, ids.akiFailed, ids.akiSmall]);
    expect(await listed({ ...range, statuses: [ChargeStatus.SUCCESS] })).toEqual([ids.benBig, ids.akiSmall]);
    expect(await listed({ statuses: [ChargeStatus.FAILURE, ChargeStatus.PENDING] })).toEqual([
      ids.benPending,
      ids.akiFailed,
    ]);
    expect(await listed({ minAmount: 1000, maxAmount: 3000, ...range })).toEqual([
      ids.benPending,
      ids.akiFailed,
      ids.akiSmall,
    ]);
    expect(await listed({ customerEmail: "AKI@" })).toEqual([ids.akiFailed, ids.akiSmall, ids.oldAki]);
    expect(await listed({}, aki)).toEqual([ids.akiFailed, ids.akiSmall, ids.oldAki]);
    expect(await listed({ customerEmail: "nobody@" })).toEqual([]);
  });

  it("answers the payer of each charge and never another merchant's charges", async () => {
    const page = await ops.client.listCharges({ filter: { customerEmail: "aki@" }, pageSize: 10 });
    expect(page.payers).toEqual([
      expect.objectContaining({
        customerId: aki,
        email: "aki@charges.example.jp",
        name: "秋 一郎",
        kana: "アキ イチロウ",
      }),
    ]);
    expect((await ops.client.getChargeDetail({ chargeId: ids.akiSmall })).payer).toMatchObject({
      customerId: aki,
      kana: "アキ イチロウ",
    });
    const theirs = await other.client.listCharges({ pageSize: 100 });
    expect(theirs.charges.map((c) => c.chargeId)).not.toContain(ids.akiSmall);
    expect(await other.client.listCharges({ customerId: aki, pageSize: 100 })).toMatchObject({ charges: [] });
  });

  it("pages through a filter with keyset tokens, each charge once", async () => {
    const { items, pages } = await allPages(async (pageToken) => {
      const p = await ops.client.listCharges({ filter: { minAmount: 1000 }, pageSize: 2, pageToken });
      return { items: p.charges.map((c) => c.chargeId), nextPageToken: p.nextPageToken };
    });
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(new Set(items).size).toBe(items.length);
    expect(items).toEqual(expect.arrayContaining([ids.akiSmall, ids.akiFailed, ids.benBig, ids.benPending, ids.late]));
    expect(items).not.toContain(ids.oldAki);
  });

  it("refuses a filter the .proto does not allow", async () => {
    expect((await refusal(ops.client.listCharges({ filter: { statuses: [0] } }))).code).toBe(Code.InvalidArgument);
    expect((await refusal(ops.client.listCharges({ filter: { minAmount: -1 } }))).code).toBe(Code.InvalidArgument);
  });

  /** The export's chunks, and its parsed lines. */
  async function exported(user: DashboardBrowser, request: object) {
    const chunks: Uint8Array[] = [];
    let fileName = "";
    for await (const piece of user.client.exportCharges(request)) {
      fileName ||= piece.fileName;
      chunks.push(piece.chunk);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    return {
      fileName,
      chunks: chunks.length,
      text,
      rows: parse(text, { bom: true, columns: true }) as Array<Record<string, string>>,
    };
  }

  it("exports the filtered charges as CSV, with the payer beside each", async () => {
    const { fileName, text, rows } = await exported(ops, {
      filter: { customerEmail: "aki@" },
      layout: ChargeExportLayout.MACHINE,
    });
    expect(fileName).toMatch(/^charges-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(text.startsWith("\uFEFFcharge_id,")).toBe(true);
    expect(text).toContain("\r\n");
    expect(Object.keys(rows[0])).toEqual([...chargeExportColumns]);
    expect(rows.map((r) => [r.charge_id, r.status, r.amount, r.customer_email, r.customer_kana])).toEqual([
      [ids.akiFailed, "FAILURE", "3000", "aki@charges.example.jp", "アキ イチロウ"],
      [ids.akiSmall, "SUCCESS", "1000", "aki@charges.example.jp", "アキ イチロウ"],
      [ids.oldAki, "SUCCESS", "500", "aki@charges.example.jp", "アキ イチロウ"],
    ]);
    expect(rows[0].error_type).toMatch(/^ERROR_TYPE_/);
    const none = await exported(ops, { filter: { customerEmail: "nobody@" }, layout: ChargeExportLayout.MACHINE });
    expect(none.rows).toEqual([]);
    expect(none.text).toBe(`\uFEFF${chargeExportColumns.join(",")}\r\n`);
  });

  it("streams an export of any size in keyset pages: 1,234 charges, each once, newest first", async () => {
    const shop = await server.newMerchant("Big Exporter");
    const big = await signedInUser(server, { merchantId: shop.merchant_id });
    const start = server.clock.now().getTime();
    await server.ctx.tx.write(async (trx) => {
      const rows = Array.from({ length: 1234 }, (_, i) =>
        // Some share a created_at: the id breaks the tie.
        chargeRow({ merchantId: shop.merchant_id, amount: 100 + i }, new Date(start + Math.floor(i / 3) * 1000)),
      );
      for (let at = 0; at < rows.length; at += 200)
        await trx
          .insertInto("charges")
          .values(rows.slice(at, at + 200))
          .execute();
    });
    const { chunks, rows } = await exported(big, { layout: ChargeExportLayout.MACHINE });
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect(rows).toHaveLength(1234);
    expect(new Set(rows.map((r) => r.charge_id)).size).toBe(1234);
    const times = rows.map((r) => r.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect((await exported(big, { filter: { minAmount: 1300 } })).rows).toHaveLength(34);
    expect(
      (await exported(big, { filter: { minAmount: 1300 }, layout: ChargeExportLayout.MACHINE })).rows,
    ).toHaveLength(34);
  });

  it("refuses an export filter the .proto does not allow, and exports nothing of another merchant", async () => {
    expect((await refusal(exported(ops, { filter: { statuses: [0] } }))).code).toBe(Code.InvalidArgument);
    const theirs = await exported(other, { customerId: aki });
    expect(theirs.rows).toEqual([]);
  });
});

describe("ListWebhookEvents", () => {
  it("filters by type and delivery state and pages through all", async () => {
    const now = server.clock.now();
    const events = Array.from({ length: 7 }, (_, i) => ({
      merchantId: merchantId(),
      type: i % 2 ? EventType.CHARGE_FAIL : EventType.CHARGE_SUCCESS,
      chargeId: `trx-finding-${i}`,
      content: { n: i },
      now: new Date(now.getTime() + i),
    }));
    await server.ctx.tx.write((trx) => recordEvents(trx, events));
    await server.ctx.tx.write((trx) =>
      trx
        .updateTable("events")
        .set({ delivery_status: DeliveryStatus.FAILED })
        .where("charge_id", "in", ["trx-finding-1", "trx-finding-3"])
        .execute(),
    );
    const list = async (deliveryStatus: DeliveryStatus, eventType = EventType.UNSPECIFIED) =>
      (await ops.client.listWebhookEvents({ filter: { eventType, pageSize: 100 }, deliveryStatus })).events
        .map((e) => e.chargeId)
        .filter((id) => id.startsWith("trx-finding-"));
    expect(await list(DeliveryStatus.FAILED)).toEqual(["trx-finding-3", "trx-finding-1"]);
    expect(await list(DeliveryStatus.PENDING, EventType.CHARGE_FAIL)).toEqual(["trx-finding-5"]);
    expect(await list(DeliveryStatus.DELIVERED)).toEqual([]);
    const { items, pages } = await allPages(async (pageToken) => {
      const p = await ops.client.listWebhookEvents({ filter: { pageSize: 3, pageToken } });
      return { items: p.events.map((e) => e.chargeId), nextPageToken: p.nextPageToken };
    });
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(items.filter((id) => id.startsWith("trx-finding-"))).toEqual(events.map((e) => e.chargeId).reverse());
    const theirs = await other.client.listWebhookEvents({ filter: { pageSize: 100 } });
    expect(theirs.events.filter((e) => e.chargeId.startsWith("trx-finding-"))).toEqual([]);
  });
});

describe("ListCsvBatchRows and the attempts left", () => {
  let secret = "";
  let batcher: DashboardBrowser & { email: string };

  beforeAll(async () => {
    batcher = await signedInUser(server);
    secret = await enrolTotp(server, batcher);
  });

  it("shows the rows to charge, their total in yen, and the invalid rows with Japanese reasons", async () => {
    await seedActiveCustomer(server, { email: "row-a@example.jp" });
    await seedActiveCustomer(server, { email: "row-b@example.jp", balance: 10 });
    const csv = [
      "customer_email,customer_id,price,description,metadata",
      "row-a@example.jp,,1200,Box,",
      "row-b@example.jp,,3400,Box,",
      ",,12.5,Box,",
      "nobody@example.jp,,1000,Box,",
    ].join("\r\n");
    const uploaded = await batcher.client.uploadCsvBatch({ fileName: "rows.csv", content: Buffer.from(csv) });
    const before = await batcher.client.listCsvBatchRows({ batchId: uploaded.batchId });
    // A row whose e-mail names no customer will fail: shown so now, and not counted in what will be charged.
    expect(before).toMatchObject({ validCount: 2, invalidCount: 2, validAmount: 4600n });
    expect(before.rows.map((r) => [r.rowNumber, r.status, r.price])).toEqual([
      [1, "valid", "1200"],
      [2, "valid", "3400"],
      [3, "failed", "12.5"],
      [4, "failed", "1000"],
    ]);
    expect([before.rows[3].reason, before.rows[3].reasonJa]).toEqual([
      "No customer linked to this email",
      "このメールアドレスに紐づく顧客がいません",
    ]);
    expect(before.rows[2].reason).toBe("customer_email is required; price must be a whole number of yen (digits only)");
    expect(before.rows[2].reasonJa).toBe("customer_email が空です。price は円単位の整数(数字のみ)で書いてください");
    expect((await refusal(other.client.listCsvBatchRows({ batchId: uploaded.batchId }))).reason).toBe(
      "CSV_BATCH_NOT_FOUND",
    );

    // A wrong code says how many are left before the lock.
    const wrong = await callError(
      batcher.client.confirmCsvBatch({
        batchId: uploaded.batchId,
        challengeId: uploaded.challengeId,
        code: wrongTotpCodes(server, secret)[0],
      }),
    );
    expect(wrong.findDetails(ErrorInfoSchema)[0].metadata.attemptsLeft).toBe("2");

    await batcher.client.confirmCsvBatch({
      batchId: uploaded.batchId,
      challengeId: uploaded.challengeId,
      code: nextTotpCode(server, secret),
    });
    await server.jobs.drain();
    const after = await batcher.client.listCsvBatchRows({ batchId: uploaded.batchId, failedOnly: true });
    expect(after.rows.map((r) => [r.rowNumber, r.reason, r.reasonJa])).toEqual([
      [2, "Customer has insufficient funds", "口座の残高が不足しています"],
      [3, before.rows[2].reason, before.rows[2].reasonJa],
      [4, "No customer linked to this email", "このメールアドレスに紐づく顧客がいません"],
    ]);
    expect(after).toMatchObject({ validCount: 1, invalidCount: 3, validAmount: 1200n });
  });

  it("says how many codes are left before a step-up locks", async () => {
    const first = await callError(batcher.client.verifyStepUp({ code: wrongTotpCodes(server, secret)[0] }));
    expect(first.findDetails(ErrorInfoSchema)[0]).toMatchObject({
      reason: "TOTP_CODE_INVALID",
      metadata: { attemptsLeft: "4" },
    });
    const second = await callError(batcher.client.verifyStepUp({ code: wrongTotpCodes(server, secret)[0] }));
    expect(second.findDetails(ErrorInfoSchema)[0].metadata.attemptsLeft).toBe("3");
    await batcher.client.verifyStepUp({ code: nextTotpCode(server, secret) });
  });
});

describe("RefundCharge on the dashboard", () => {
  it("names the refused rule as a reason the page can put in Japanese", async () => {
    const chargeId = await seedCharge(server, { merchantId: merchantId(), amount: 2000 });
    await ops.client.refundCharge({ refund: { chargeId, amount: 500 } });
    expect(await refusal(ops.client.refundCharge({ refund: { chargeId, amount: 1600 } }))).toMatchObject({
      code: Code.FailedPrecondition,
      reason: "REFUND_EXCEEDS_REFUNDABLE",
    });
    expect(await refusal(ops.client.refundCharge({ refund: { chargeId } }))).toMatchObject({
      reason: "REFUND_ALREADY_PARTIALLY_REFUNDED",
    });
    expect(await refusal(other.client.refundCharge({ refund: { chargeId, amount: 1 } }))).toMatchObject({
      code: Code.NotFound,
      reason: "REFUND_NOT_OWNED",
    });
  });
});

async function callError(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call was not refused");
}
