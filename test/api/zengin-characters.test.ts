import { Code, ConnectError } from "@connectrpc/connect";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BankAccountType, ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { decodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { consignorSettings, updateConsignor } from "../../src/flows/merchants.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { createPayment, freshEmail, latestCode, tokenOf } from "../helpers/on-session.js";
import { api, type TestServer } from "../helpers/test-server.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { startZenginServer } from "../helpers/zengin-server.js";

/**
 * Names and account types to the 全銀協 rules where they enter (docs/guide/direct-debit-files.md#characters-in-names,
 * #account-types): the hosted page's LinkBankAccount, the consignor settings (CLI and dashboard),
 * and accounts already stored.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startZenginServer({ consignorCode: "8100000001", simulatedBank: false });
});
afterAll(async () => {
  try {
    await expectReconciled(server);
  } finally {
    await server?.stop();
  }
});

const page = () => server.client(HostedPageService);
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => ConnectError.from(error),
  );

const consignor = {
  code: "8100000001",
  name: "ﾃｽﾄ ｼﾖﾂﾌﾟ",
  bankCode: "0001",
  branchCode: "001",
  accountType: "1",
  accountNumber: "1234567",
};

/** A new customer's link, past the two-factor step, at the bank step. */
async function atBankStep() {
  const email = freshEmail();
  const created = await createPayment(server, { buyer: { email } });
  const token = tokenOf(created.paymentLink!.url);
  await page().sendTwoFactorCode({ token });
  await page().verifyTwoFactorCode({ token, code: await latestCode(server, email) });
  return token;
}

const link = (token: string, accountHolder: string, accountType = BankAccountType.ORDINARY) =>
  page().linkBankAccount({
    token,
    bankCode: "0001",
    branchCode: "210",
    accountNumber: "1234567",
    accountHolder,
    accountType,
  });

describe("names to the 全銀協 rules, where they enter", () => {
  it("links a holder typed in hiragana (ふりこみ しょうじ), as the guide says", async () => {
    const chosen = await link(await atBankStep(), "ふりこみ しょうじ");
    expect(chosen.account?.maskedAccountNumber).toBe("****567");
  });

  it("refuses / and ・ in a holder naming the character, and takes / once the consignor's bank accepts it", async () => {
    const slash = await caught(link(await atBankStep(), "ヤマダ／タロウ"));
    expect(slash?.code).toBe(Code.InvalidArgument);
    expect(slash?.rawMessage).toMatch(/^account_holder: "\/" cannot be used in a name in a Zengin file/);
    const dot = await caught(link(await atBankStep(), "ヤマダ・タロウ"));
    expect(dot?.code).toBe(Code.InvalidArgument);
    await updateConsignor(server.ctx, server.merchant.merchant_id, { ...consignor, nameCharacters: "/" });
    expect((await link(await atBankStep(), "ヤマダ／タロウ")).account?.maskedAccountNumber).toBe("****567");
    await updateConsignor(server.ctx, server.merchant.merchant_id, { ...consignor, nameCharacters: "" });
  });

  it("refuses to link a 貯蓄 (4) account for 口座振替, with the reason", async () => {
    const savings = await caught(link(await atBankStep(), "ヤマダ タロウ", BankAccountType.SAVINGS));
    expect(savings?.code).toBe(Code.InvalidArgument);
    expect(savings?.rawMessage).toBe(
      "account_type: 貯蓄預金 (4) cannot be debited by 口座振替: choose 普通 (1) or 当座 (2)",
    );
    expect((await link(await atBankStep(), "ヤマダ タロウ", BankAccountType.CURRENT)).account?.accountType).toBe(
      BankAccountType.CURRENT,
    );
  });

  it("converts a consignor name in hiragana, writes bank and branch names with - only, and widens names on request", async () => {
    const saved = await updateConsignor(server.ctx, server.merchant.merchant_id, {
      ...consignor,
      name: "ふりこみ しょうじ",
      bankName: "ミズホ",
      branchName: "ホンテン（エイギョウブ）",
    });
    expect(saved).toMatchObject({ name: "ﾌﾘｺﾐ ｼﾖｳｼﾞ", branchName: "ﾎﾝﾃﾝ-ｴｲｷﾞﾖｳﾌﾞ", nameCharacters: "" });
    await expect(
      updateConsignor(server.ctx, server.merchant.merchant_id, { ...consignor, name: "ﾌﾘｺﾐ/ｼﾖｳｼﾞ" }),
    ).rejects.toThrow(/consignor-name: "\/" cannot be used/);
    await expect(
      updateConsignor(server.ctx, server.merchant.merchant_id, { ...consignor, branchName: "ｼﾌﾞﾔ ﾆｼ" }),
    ).rejects.toThrow(/consignor-branch-name: " " cannot be used in a bank or branch name/);
    await expect(
      updateConsignor(server.ctx, server.merchant.merchant_id, { ...consignor, nameCharacters: "&" }),
    ).rejects.toThrow(/consignor-name-characters: "&" is not one of \( \) - \. \//);
    await updateConsignor(server.ctx, server.merchant.merchant_id, {
      ...consignor,
      name: "ﾌﾘｺﾐ/ｼﾖｳｼﾞ",
      nameCharacters: "/",
    });
    // Absent keeps what is set (the dashboard's form does not carry it).
    await updateConsignor(server.ctx, server.merchant.merchant_id, { ...consignor, name: "ﾌﾘｺﾐ/ｼﾖｳｼﾞ" });
    expect(await consignorSettings(server.ctx, server.merchant.merchant_id)).toMatchObject({
      name: "ﾌﾘｺﾐ/ｼﾖｳｼﾞ",
      nameCharacters: "/",
    });
    await updateConsignor(server.ctx, server.merchant.merchant_id, { ...consignor, nameCharacters: "" });
  });
});

describe("accounts stored before the rules", () => {
  it("refuses a debit of a stored 貯蓄 account at acceptance, and writes a stored ｦ holder as ｵ", async () => {
    const savings = await seedActiveCustomer(server, {
      accountType: BankAccountType.SAVINGS,
      accountNumber: "0044444",
    });
    const old = await seedActiveCustomer(server, { accountHolder: "ｦｶﾞﾜ ﾋﾛﾕｷ", accountNumber: "0055555" });
    const charge = async (customer_id: string) => {
      const res = await api(server, "/v1/payments/off-session/async", {
        method: "POST",
        json: { customer_id, charge: { price: 1000, description: "box" } },
      });
      return (await res.json()).chargeId as string;
    };
    const refused = await charge(savings.customerId);
    await charge(old.customerId);
    await server.jobs.drain();
    const row = await server.ctx.tx.db
      .selectFrom("charges")
      .select(["status", "error_message"])
      .where("id", "=", refused)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: ChargeStatus.FAILURE,
      error_message: expect.stringMatching(/貯蓄預金 \(4\) cannot be debited by 口座振替/),
    });
    server.clock.advance(Date.parse("2026-11-25T06:00:00Z") - server.clock.now().getTime());
    const cycle = await runZenginCycle(
      server.ctx,
      zenginExchangeOf(server.ctx, () => {}),
    );
    expect(cycle.written).toEqual(["Z91_8100000001_20261126.txt"]);
    const sent = decodeDebitFile(readFileSync(join(server.ctx.config.zengin.dir, "outgoing", cycle.written[0])), false);
    if (!sent.ok) throw new Error(sent.reason);
    expect(sent.file.records.map((record) => [record.accountNumber, record.holder, record.accountType])).toEqual([
      ["0055555", "ｵｶﾞﾜ ﾋﾛﾕｷ", 1],
    ]);
  });
});
