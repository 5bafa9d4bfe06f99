import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import { ChargeExportLayout } from "../../gen/payments/v1/dashboard_service_pb.js";
import { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { chargeExportColumns, chargeExportColumnsJa } from "../../src/domain/charge-export.js";
import { zenginFailureMessage, zenginResultOfCode } from "../../src/domain/zengin-result.js";
import { seedCharge } from "../helpers/charges.js";
import { signedInUser, type DashboardBrowser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// Issue #31, finding 4: at 08:50 JST on 11/28 the export is that day's file, its times in JST, its
// headers, statuses and reasons in Japanese, with the machine-readable columns kept; the old
// English/UTC layout is one option away for the scripts written against it.

let server: TestServer;
let ops: DashboardBrowser;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // 23:41:59 UTC on 11/27 is 08:41:59 JST on 11/28.
  server = await startTestServer({ clockStart: new Date("2026-11-27T23:41:59.311Z") });
  ops = await signedInUser(server);
  const merchantId = server.merchant.merchant_id;
  const { customerId } = await seedActiveCustomer(server, {
    email: "hanako@example.jp",
    name: "佐藤 花子",
    kana: ["サトウ", "ハナコ"],
  });
  ids.insufficient = await seedCharge(server, {
    merchantId,
    customerId,
    amount: 2200,
    description: "コーヒーメーカー",
    status: ChargeStatus.FAILURE,
    failure: { errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS, message: "Customer has insufficient funds" },
  });
  server.clock.advance(60_000);
  const stopped = zenginResultOfCode(3)!;
  ids.stopped = await seedCharge(server, {
    merchantId,
    customerId,
    amount: 3300,
    status: ChargeStatus.FAILURE,
    failure: { errorType: stopped.errorType, message: zenginFailureMessage(stopped) },
  });
  server.clock.advance(7 * 60_000);
});
afterAll(async () => server?.stop());

async function exported(request: object) {
  const chunks: Uint8Array[] = [];
  let fileName = "";
  for await (const piece of ops.client.exportCharges(request)) {
    fileName ||= piece.fileName;
    chunks.push(piece.chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return { fileName, text, rows: parse(text, { bom: true, columns: true }) as Array<Record<string, string>> };
}

describe("the charges export for a merchant in Japan", () => {
  it("by default: named by the JST date, Japanese headers, JST times, Japanese words, machine columns kept", async () => {
    const { fileName, text, rows } = await exported({});
    expect(fileName).toBe("charges-2026-11-28.csv");
    expect(text.startsWith("\uFEFF決済ID,作成日時,ステータス,")).toBe(true);
    expect(Object.keys(rows[0])).toEqual([...chargeExportColumnsJa]);
    expect(rows.map((r) => [r.決済ID, r.作成日時, r.ステータス, r.金額, r.失敗理由])).toEqual([
      [ids.stopped, "2026/11/28 08:42:59", "失敗", "3300", "振替結果コード 3: 預金者の都合による振替停止"],
      [ids.insufficient, "2026/11/28 08:41:59", "失敗", "2200", "口座の残高が不足しています"],
    ]);
    expect(rows[1]).toMatchObject({
      created_at: "2026-11-28T08:41:59.311+09:00",
      status: "FAILURE",
      error_type: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS",
      メールアドレス: "hanako@example.jp",
      フリガナ: "サトウ ハナコ",
    });
    expect(Date.parse(rows[1].created_at)).toBe(Date.parse("2026-11-27T23:41:59.311Z"));
  });

  it("with layout MACHINE: the documented English/UTC columns, still named by the JST date", async () => {
    const { fileName, rows } = await exported({ layout: ChargeExportLayout.MACHINE });
    expect(fileName).toBe("charges-2026-11-28.csv");
    expect(Object.keys(rows[0])).toEqual([...chargeExportColumns]);
    expect(rows[1]).toMatchObject({
      charge_id: ids.insufficient,
      created_at: "2026-11-27T23:41:59.311Z",
      status: "FAILURE",
      error_type: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS",
      error_message: "Customer has insufficient funds",
    });
  });
});
