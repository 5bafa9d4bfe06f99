import { Code } from "@connectrpc/connect";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import type { UploadSubscriptionImportResponse } from "../../gen/payments/v1/dashboard_service_pb.js";
import { FirstPeriodRule, IntervalUnit, SubscriptionStatus } from "../../gen/payments/v1/subscription_service_pb.js";
import { csvRowReasons } from "../../src/domain/csv-row.js";
import { limits } from "../../src/domain/limits.js";
import { importReasons } from "../../src/domain/subscription-import.js";
import {
  type DashboardBrowser,
  enrolTotp,
  nextTotpCode,
  refusal,
  signedInUser,
  wrongTotpCodes,
} from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

/**
 * The CSV import of subscriptions (docs/guide/recurring-billing.md#importing-subscriptions-from-a-csv-file):
 * upload, a preview of each row as it will be applied, confirmation with a TOTP code that applies
 * the valid rows once, and the result file with the subscription ids.
 */

let server: TestServer;
let operator: DashboardBrowser;
let secret: string;
let viewer: DashboardBrowser;
let planId = "";
let otherPlanId = "";

beforeAll(async () => {
  server = await startTestServer({ clockStart: new Date("2026-01-10T00:00:00Z"), env: { SANDBOX_CLOCK: "manual" } });
  operator = await signedInUser(server, { role: "operator" });
  secret = await enrolTotp(server, operator);
  viewer = await signedInUser(server, { role: "viewer" });
  const plan = (discount?: { off: { case: "percent"; value: number }; periods: number }) =>
    operator.client.createBillingPlan({
      plan: {
        name: discount ? "月額会費" : "年会費",
        amount: discount ? 3300 : 12000,
        intervalUnit: discount ? IntervalUnit.MONTH : IntervalUnit.YEAR,
        intervalCount: 1,
        debitDay: 27,
        firstPeriod: FirstPeriodRule.FULL,
        discount,
      },
    });
  planId = (await plan({ off: { case: "percent", value: 50 }, periods: 1 })).plan!.planId;
  otherPlanId = (await plan()).plan!.planId;
});
afterAll(async () => {
  await server?.stop();
});

let run = 0;
const header = "customer_email,customer_id,plan_id,start_period,amount";
const file = (...rows: string[]) => new TextEncoder().encode([header, ...rows].join("\r\n") + "\r\n");
const upload = (content: Uint8Array, as = operator) =>
  as.client.uploadSubscriptionImport({ fileName: "members.csv", content });
const confirm = (uploaded: UploadSubscriptionImportResponse, code = nextTotpCode(server, secret)) =>
  operator.client.confirmSubscriptionImport({
    importId: uploaded.subscriptionImport!.importId,
    challengeId: uploaded.challengeId,
    code,
  });

async function customers(count: number): Promise<Array<{ email: string; customerId: string; contractId: string }>> {
  run += 1;
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const email = `import${run}-${i}@example.jp`;
      return { email, ...(await seedActiveCustomer(server, { email })) };
    }),
  );
}

async function subscriptionsOf(customerId: string) {
  const { subscriptions } = await viewer.client.listBillingSubscriptions({ query: { customerId } });
  return subscriptions.map((s) => s.subscription!);
}

describe("the CSV import of subscriptions", () => {
  it("previews each row as it will be applied; failing rows with their reason, not counted", async () => {
    const [byEmail, byId, inactive, twice] = await customers(4);
    await server.ctx.tx.write((trx) =>
      trx
        .updateTable("contracts")
        .set({ status: ContractStatus.DEACTIVATED })
        .where("id", "=", inactive.contractId)
        .execute(),
    );
    const uploaded = await upload(
      file(
        `${byEmail.email},,${planId},,`,
        `,${byId.customerId},${otherPlanId},2026-03,15000`,
        `${inactive.email},,${planId},2026-02,`,
        `nobody-${run}@example.jp,,${planId},,`,
        `${byEmail.email},,pln-missing,,`,
        `${twice.email},,${planId},2026-02,`,
        `,${twice.customerId},${planId},2026-03,`,
        `,${byId.customerId},${planId},2026-01-27,abc`,
        `,${byId.customerId},${planId},2025-12,`,
      ),
    );
    expect(uploaded.subscriptionImport).toMatchObject({ status: "uploaded", rowCount: 9, created: 0 });
    expect(uploaded.invalidRowCount).toBe(1);

    const preview = await viewer.client.listSubscriptionImportRows({
      importId: uploaded.subscriptionImport!.importId,
    });
    const rows = preview.rows.map((row) => [row.rowNumber, row.status, row.reason]);
    expect(rows).toEqual([
      [1, "valid", ""],
      [2, "valid", ""],
      [3, "failed", csvRowReasons.customerInactive],
      [4, "failed", csvRowReasons.emailNotLinked],
      [5, "failed", importReasons.planNotFound.en],
      // The e-mail and the id of one customer, to one plan: neither is guessed.
      [6, "failed", importReasons.sameSubscription.en],
      [7, "failed", importReasons.sameSubscription.en],
      [8, "failed", `${importReasons.startPeriodFormat.en}; ${importReasons.amountFormat.en}`],
      [9, "failed", importReasons.startPeriodPassed("2025-12", "2025-12-29").en],
    ]);
    expect(preview.rows[2].reasonJa).toBe("顧客が有効ではありません");
    expect([preview.validCount, preview.invalidCount]).toEqual([2, 7]);
    // As it will be applied: an empty start period is the first one not yet due (January's 27th),
    // the plan's first-period discount on its price; an own amount on a yearly plan from March.
    expect(preview.rows[0]).toMatchObject({
      resolvedCustomerId: byEmail.customerId,
      planName: "月額会費",
      resolvedStartPeriod: "2026-01",
      firstPeriod: "2026-01",
      firstDebitDate: "2026-01-27",
      firstAmount: 1650,
    });
    expect(preview.rows[1]).toMatchObject({
      resolvedCustomerId: byId.customerId,
      planName: "年会費",
      resolvedStartPeriod: "2026-03",
      firstDebitDate: "2026-03-27",
      firstAmount: 15000,
    });
    // Nothing applied before confirmation.
    expect(await subscriptionsOf(byEmail.customerId)).toEqual([]);
  });

  it("refuses a wrong code and applies nothing; a right code applies the valid rows once, a replay nothing more", async () => {
    const [first, second] = await customers(2);
    const uploaded = await upload(file(`${first.email},,${planId},,`, `,${second.customerId},${planId},2026-02,`));
    const wrong = await refusal(confirm(uploaded, wrongTotpCodes(server, secret)[0]));
    expect([wrong.code, wrong.reason]).toEqual([Code.InvalidArgument, "TOTP_CODE_INVALID"]);
    expect(await subscriptionsOf(first.customerId)).toEqual([]);
    expect(
      (await viewer.client.getSubscriptionImport({ importId: uploaded.subscriptionImport!.importId }))
        .subscriptionImport?.status,
    ).toBe("uploaded");

    const { subscriptionImport } = await confirm(uploaded);
    expect(subscriptionImport).toMatchObject({ status: "completed", created: 2, failed: 0 });
    const [created] = await subscriptionsOf(first.customerId);
    expect(created).toMatchObject({ planId, status: SubscriptionStatus.ACTIVE, nextDebitDate: "2026-01-27" });
    expect((await subscriptionsOf(second.customerId))[0]?.startPeriod).toBe("2026-02");

    // A second confirmation (a new code) answers the import and creates nothing again.
    const again = await operator.client.confirmSubscriptionImport({
      importId: uploaded.subscriptionImport!.importId,
      challengeId: uploaded.challengeId,
      code: nextTotpCode(server, secret),
    });
    expect(again.subscriptionImport?.created).toBe(2);
    expect(await subscriptionsOf(first.customerId)).toHaveLength(1);

    // The result: every row with its status and subscription id.
    const { fileName, content } = await viewer.client.downloadSubscriptionImportResult({
      importId: uploaded.subscriptionImport!.importId,
    });
    expect(fileName).toBe("members-result.csv");
    const result = parse(Buffer.from(content), { bom: true, columns: true }) as Record<string, string>[];
    expect(result.map((row) => [row.customer_email, row.status, row.subscription_id])).toEqual([
      [first.email, "created", created.subscriptionId],
      ["", "created", (await subscriptionsOf(second.customerId))[0].subscriptionId],
    ]);

    // The same file again: every row's customer already has the plan.
    const reuploaded = await upload(file(`${first.email},,${planId},,`, `,${second.customerId},${planId},2026-02,`));
    const preview = await viewer.client.listSubscriptionImportRows({
      importId: reuploaded.subscriptionImport!.importId,
      failedOnly: true,
    });
    expect(preview.rows.map((row) => row.reason)).toEqual([
      importReasons.alreadySubscribed.en,
      importReasons.alreadySubscribed.en,
    ]);
    expect(preview.validCount).toBe(0);
  });

  it("applies an import once when two confirmations race", async () => {
    const people = await customers(3);
    const uploaded = await upload(file(...people.map((p) => `${p.email},,${otherPlanId},2026-04,`)));
    const code = nextTotpCode(server, secret);
    const answers = await Promise.allSettled([confirm(uploaded, code), confirm(uploaded, code)]);
    expect(answers.filter((a) => a.status === "fulfilled").length).toBeGreaterThanOrEqual(1);
    for (const answer of answers)
      if (answer.status === "fulfilled") expect(answer.value.subscriptionImport?.created).toBe(3);
    for (const person of people) expect(await subscriptionsOf(person.customerId)).toHaveLength(1);
    const { subscriptionImports } = await viewer.client.listSubscriptionImports({});
    const listed = subscriptionImports.find((item) => item.importId === uploaded.subscriptionImport!.importId);
    expect(listed).toMatchObject({ status: "completed", created: 3, failed: 0 });
  });

  it("keeps to its limits and roles: rows, header, a viewer, a user without TOTP, another kind of batch", async () => {
    const [person] = await customers(1);
    const tooMany = Array.from({ length: limits.subscriptionImportRowsMax + 1 }, () => `${person.email},,${planId},,`);
    expect((await refusal(upload(file(...tooMany)))).reason).toBe("CSV_TOO_MANY_ROWS");
    const charges = new TextEncoder().encode(
      "customer_email,customer_id,price,description,metadata\r\na@b.jp,,1,x,\r\n",
    );
    expect((await refusal(upload(charges))).reason).toBe("CSV_HEADER_NAME");
    expect((await refusal(upload(file(`${person.email},,${planId},,`), viewer))).code).toBe(Code.PermissionDenied);
    const noTotp = await signedInUser(server, { role: "operator" });
    expect((await refusal(upload(file(`${person.email},,${planId},,`), noTotp))).reason).toBe("TOTP_NOT_ENABLED");
    // An import is not a charge batch, nor the reverse.
    const uploaded = await upload(file(`${person.email},,${planId},,`));
    const asBatch = await refusal(viewer.client.getCsvBatch({ batchId: uploaded.subscriptionImport!.importId }));
    expect(asBatch.reason).toBe("CSV_BATCH_NOT_FOUND");
    const notYet = await refusal(
      viewer.client.downloadSubscriptionImportResult({ importId: uploaded.subscriptionImport!.importId }),
    );
    expect(notYet.reason).toBe("CSV_BATCH_NOT_CONFIRMED");
  });
});
