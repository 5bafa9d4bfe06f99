import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { ChargeStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { decodeTransferFile } from "../../src/domain/zengin-transfer-file.js";
import { addContract, deleteContract, merchantContracts, updateConsignor } from "../../src/flows/zengin-contracts.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { answerRequestFiles } from "../../src/ports/zengin-simulated-bank.js";
import { signedInUser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { createPayment, freshEmail, latestCode, tokenOf } from "../helpers/on-session.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";
import { zenginTuesday } from "../helpers/zengin-server.js";

/**
 * Consignor contracts with a scope (docs/guide/direct-debit-files.md#contracts): a merchant with a
 * bank's own contract, a collection agent's and a ゆうちょ one gets one request file per contract
 * and date, each byte for byte the golden file; results come back to their contract by code; the
 * refund transfer file carries the 振込依頼人コード.
 */

let server: TestServer;
let dir: string;
const quarantined: { name: string; reason: string }[] = [];
const fixture = (name: string) => readFileSync(new URL(`../fixtures/zengin/${name}`, import.meta.url));

const contract = (scope: string, code: string, transferCode: string, bank: string, extra: object = {}) => ({
  scope,
  code,
  transferCode,
  name: "ｹｲﾔｸ ｼﾖｳｼﾞ",
  bankCode: bank,
  branchCode: bank === "9900" ? "019" : "001",
  accountType: "1",
  accountNumber: "1234567",
  ...extra,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "zengin-contracts-"));
  server = await startTestServer({
    clockStart: zenginTuesday,
    env: { BANK_CONNECTOR: "zengin", ZENGIN_DIR: dir, ZENGIN_SIMULATED_BANK: "off", WORKERS: "off" },
  });
  const merchantId = server.merchant.merchant_id;
  await addContract(server.ctx, merchantId, contract("bank", "3000000001", "3100000001", "0184", { bankName: "ﾐﾔｻﾞｷ" }));
  await addContract(
    server.ctx,
    merchantId,
    contract("agent", "3000000002", "3100000002", "0001", { banks: "0005 0001" }),
  );
  await addContract(server.ctx, merchantId, contract("yucho", "3000000003", "3100000003", "9900"));
});
afterAll(async () => {
  try {
    await expectReconciled(server);
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

const cycle = () =>
  runZenginCycle(
    server.ctx,
    zenginExchangeOf(server.ctx, (file) => quarantined.push(file)),
  );

async function post(path: string, json: object) {
  const res = await api(server, path, { method: "POST", json });
  return { status: res.status, body: await res.json() };
}

const statusOf = async (id: string) =>
  (await server.ctx.tx.db.selectFrom("charges").select("status").where("id", "=", id).executeTakeFirstOrThrow()).status;

describe("contracts with a scope: one request file per contract and date", () => {
  const charges: Record<string, string> = {};

  it("keeps the contracts with their scope, banks and 振込依頼人コード, and refuses a code another contract holds", async () => {
    const merchantId = server.merchant.merchant_id;
    const listed = await merchantContracts(server.ctx, merchantId);
    expect(listed.map((c) => [c.code, c.scope, c.banks, c.transferCode])).toEqual([
      ["3000000001", "bank", [], "3100000001"],
      ["3000000002", "agent", ["0001", "0005"], "3100000002"],
      ["3000000003", "yucho", [], "3100000003"],
    ]);
    await expect(
      addContract(server.ctx, merchantId, contract("bank", "3000000001", "3100000009", "0005")),
    ).rejects.toThrow(/consignor-code: 3000000001 is already one of this merchant's contracts/);
    await expect(
      addContract(server.ctx, merchantId, contract("bank", "3000000009", "3100000002", "0005")),
    ).rejects.toThrow(/transfer-code: 3100000002 is already another contract's transfer requester code/);
    await expect(
      addContract(server.ctx, merchantId, contract("agent", "3000000009", "3100000009", "0001", { banks: "9900" })),
    ).rejects.toThrow(/banks: ゆうちょ銀行 \(9900\) needs a contract of its own/);
    await expect(
      addContract(server.ctx, merchantId, contract("yucho", "3000000009", "3100000009", "0001")),
    ).rejects.toThrow(/consignor-bank: a yucho contract's own account is at ゆうちょ銀行/);
    // The single-agent command is refused for a merchant with several contracts.
    await expect(updateConsignor(server.ctx, merchantId, contract("agent", "3000000009", "", "0001"))).rejects.toThrow(
      /several contracts: use zengin contracts update/,
    );
  });

  it("writes each debit into the file of the contract covering its bank, byte for byte the golden files", async () => {
    const seeded = {
      regional: await seedActiveCustomer(server, { bankCode: "0184", accountNumber: "0000001", balance: 50_000 }),
      agentListed: await seedActiveCustomer(server, { bankCode: "0005", accountNumber: "0000002", balance: 50_000 }),
      agentOwn: await seedActiveCustomer(server, { bankCode: "0001", accountNumber: "0000003", balance: 50_000 }),
      yucho: await seedActiveCustomer(server, { bankCode: "9900", accountNumber: "0000004", balance: 50_000 }),
      outside: await seedActiveCustomer(server, { bankCode: "0009", accountNumber: "0000005", balance: 50_000 }),
    };
    const amounts = { regional: 1100, agentListed: 2200, agentOwn: 3300, yucho: 4400, outside: 5500 };
    for (const [name, customer] of Object.entries(seeded)) {
      const created = await post("/v1/payments/off-session/async", {
        customer_id: customer.customerId,
        charge: { price: amounts[name as keyof typeof amounts], description: "box" },
      });
      expect(created.status).toBe(200);
      charges[name] = created.body.chargeId;
      // One second apart: a file numbers its debits in the order they were scheduled.
      await server.jobs.drain();
      server.clock.advance(1000);
    }
    await server.jobs.drain();
    // An account linked before its bank left every contract is refused at acceptance, not in a file.
    expect(await statusOf(charges.outside)).toBe(ChargeStatus.FAILURE);
    const failure = await server.ctx.tx.db
      .selectFrom("charges")
      .select("error_message")
      .where("id", "=", charges.outside)
      .executeTakeFirstOrThrow();
    expect(failure.error_message).toMatch(/none of the merchant's consignor contracts covers bank 0009/);

    server.clock.advance(Date.parse("2026-11-25T06:01:00Z") - server.clock.now().getTime());
    const report = await cycle();
    expect(report.written.sort()).toEqual([
      "Z91_3000000001_20261126.txt",
      "Z91_3000000002_20261126.txt",
      "Z91_3000000003_20261126.txt",
    ]);
    const outgoing = (name: string) => readFileSync(join(dir, "outgoing", name));
    expect(outgoing("Z91_3000000001_20261126.txt").equals(fixture("contract-bank-request.txt"))).toBe(true);
    expect(outgoing("Z91_3000000002_20261126.txt").equals(fixture("contract-agent-request.txt"))).toBe(true);
    expect(outgoing("Z91_3000000003_20261126.txt").equals(fixture("contract-yucho-request.txt"))).toBe(true);
  });

  it("imports each contract's result by its 委託者コード and settles its charges", async () => {
    server.clock.advance(Date.parse("2026-11-26T08:00:00Z") - server.clock.now().getTime());
    expect((await answerRequestFiles(server.ctx.tx, dir, server.clock.now())).sort()).toEqual([
      "R91_3000000001_20261126.txt",
      "R91_3000000002_20261126.txt",
      "R91_3000000003_20261126.txt",
    ]);
    const report = await cycle();
    expect(report.quarantined).toEqual([]);
    expect(report.imported.sort()).toHaveLength(3);
    for (const name of ["regional", "agentListed", "agentOwn", "yucho"])
      expect(await statusOf(charges[name])).toBe(ChargeStatus.SUCCESS);
  });

  it("writes a refund's 総合振込 file under the contract, its header carrying the 振込依頼人コード", async () => {
    const refund = await post("/v1/refund", { charge_id: charges.regional, amount: 600 });
    expect(refund.status).toBe(200);
    await server.jobs.drain();
    // Six days in 3-hour steps: the refund's job, its file at the cutoff, the bank's answer.
    for (let step = 0; step < 48; step++) {
      server.clock.advance(3 * 3_600_000);
      await server.jobs.drain();
      await answerRequestFiles(server.ctx.tx, dir, server.clock.now());
      expect((await cycle()).quarantined).toEqual([]);
    }
    const written = readdirSync(join(dir, "outgoing")).filter((name) => name.startsWith("Z21"));
    expect(written).toEqual([expect.stringMatching(/^Z21_3000000001_202611\d\d\.txt$/)]);
    const decoded = decodeTransferFile(readFileSync(join(dir, "outgoing", written[0])));
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.file.requester.code).toBe("3100000001");
    // The bank's answer comes back under the 振込依頼人コード and is matched to the contract's file.
    expect(readdirSync(join(dir, "archive"))).toContain(written[0].replace("Z21", "R21"));
    const stored = await server.ctx.tx.db
      .selectFrom("refunds")
      .select("status")
      .where("id", "=", refund.body.refund.refundId)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe(RefundStatus.SUCCEEDED);
  });

  it("keeps a single contract's scope, banks and 振込依頼人コード when merchants update changes the rest", async () => {
    const single = await startTestServer({ env: { WORKERS: "off" } });
    try {
      const merchantId = single.merchant.merchant_id;
      await addContract(single.ctx, merchantId, contract("bank", "3800000001", "3810000001", "0184"));
      const { scope: _, transferCode: __, ...form } = contract("bank", "3800000002", "", "0184");
      await updateConsignor(single.ctx, merchantId, { ...form, debitDay: "27" });
      const [kept, ...others] = await merchantContracts(single.ctx, merchantId);
      expect(others).toEqual([]);
      expect(kept).toMatchObject({ code: "3800000002", scope: "bank", transferCode: "3810000001", debitDay: 27 });
    } finally {
      await single.stop();
    }
  });

  it("removes a contract only when nothing waits for its file", async () => {
    const merchantId = server.merchant.merchant_id;
    await deleteContract(server.ctx, merchantId, "3000000003");
    expect((await merchantContracts(server.ctx, merchantId)).map((c) => c.code)).toEqual(["3000000001", "3000000002"]);
    await addContract(server.ctx, merchantId, contract("yucho", "3000000003", "3100000003", "9900"));
  });
});

describe("linking: an account outside every contract of the merchant is refused when it is linked", () => {
  /** The hosted page's steps up to the bank step, then LinkBankAccount with an account at `bankCode`. */
  async function link(target: TestServer, bankCode: string) {
    const email = freshEmail("contracts");
    const created = await createPayment(target, { buyer: { email } });
    const token = tokenOf(created.paymentLink!.url);
    const page = target.client(HostedPageService);
    await page.initiatePayment({ token });
    await page.sendTwoFactorCode({ token });
    await page.verifyTwoFactorCode({ token, code: await latestCode(target, email) });
    return page.linkBankAccount({
      token,
      bankCode,
      branchCode: "001",
      accountNumber: "1357913",
      accountHolder: "ヤマダ タロウ",
    });
  }

  it("offers in the bank search only banks a contract covers, listing the others apart", async () => {
    const email = freshEmail("search");
    const created = await createPayment(server, { buyer: { email } });
    const token = tokenOf(created.paymentLink!.url);
    const page = server.client(HostedPageService);
    const covered = await page.searchBanks({ token, query: "みずほ", limit: 5 });
    expect(covered.banks.map((bank) => bank.code)).toContain("0001");
    const outside = await page.searchBanks({ token, query: "三井住友", limit: 5 });
    expect(outside.banks.map((bank) => bank.code)).not.toContain("0009");
    expect(outside.outsideContracts.map((bank) => bank.code)).toContain("0009");
  });

  it("refuses a bank none of the contracts covers with BANK_OUTSIDE_CONTRACTS, and links one they cover", async () => {
    const refused = await link(server, "0009").catch((error: unknown) => ConnectError.from(error));
    expect(refused).toBeInstanceOf(ConnectError);
    const error = refused as ConnectError;
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.rawMessage).toMatch(/do not cover bank 0009/);
    expect(error.findDetails(ErrorInfoSchema).map((info) => info.reason)).toContain("BANK_OUTSIDE_CONTRACTS");
    expect((await link(server, "0005")).linked).toBe(true);
  });

  it("changes nothing under the simulated connector, contracts or not", async () => {
    const simulated = await startTestServer({ env: { WORKERS: "off" } });
    try {
      await addContract(
        simulated.ctx,
        simulated.merchant.merchant_id,
        contract("bank", "3900000001", "3910000001", "0005"),
      );
      expect((await link(simulated, "0009")).linked).toBe(true);
    } finally {
      await simulated.stop();
    }
  });
});

describe("the dashboard: every contract listed, any of them edited (DashboardService)", () => {
  it("lists each contract with its kind, banks, result style and name characters, and edits the second", async () => {
    const { merchant_id: merchantId } = await server.newMerchant("Two contracts");
    await addContract(server.ctx, merchantId, contract("bank", "3900000001", "3910000001", "0184"));
    await addContract(
      server.ctx,
      merchantId,
      contract("agent", "3900000002", "3910000002", "0001", { banks: "0001", nameCharacters: "/" }),
    );
    const owner = await signedInUser(server, { merchantId });
    const { contracts } = await owner.client.listConsignorContracts({});
    expect(contracts.map((c) => [c.code, c.scope, c.banks, c.transferCode, c.resultStyle, c.nameCharacters])).toEqual([
      ["3900000001", "bank", [], "3910000001", "all", ""],
      ["3900000002", "agent", ["0001"], "3910000002", "all", "/"],
    ]);
    const saved = await owner.client.updateConsignorContract({
      code: "3900000002",
      settings: { ...contracts[1], name: "けいやく しようじ", banks: ["0001", "0005"], resultStyle: "failures_only" },
    });
    expect(saved.settings).toMatchObject({ code: "3900000002", name: "ｹｲﾔｸ ｼﾖｳｼﾞ", resultStyle: "failures_only" });
    const [first, second] = await merchantContracts(server.ctx, merchantId);
    expect(first).toMatchObject({ code: "3900000001", scope: "bank", resultStyle: "all" });
    expect(second).toMatchObject({ code: "3900000002", banks: ["0001", "0005"], resultStyle: "failures_only" });

    // The same checks as the command line; another merchant's contract is not found; viewers only read.
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => undefined,
        (error) => ConnectError.from(error).code,
      );
    const update = (code: string, changes: object) =>
      owner.client.updateConsignorContract({ code, settings: { ...contracts[1], ...changes } });
    expect(await refusal(update("3900000002", { resultStyle: "sometimes" }))).toBe(Code.InvalidArgument);
    expect(await refusal(update("3900000002", { code: "3900000001" }))).toBe(Code.InvalidArgument);
    expect(await refusal(update("3000000001", {}))).toBe(Code.NotFound);
    const viewer = await signedInUser(server, { merchantId, role: "viewer" });
    expect((await viewer.client.listConsignorContracts({})).contracts).toHaveLength(2);
    expect(await refusal(viewer.client.updateConsignorContract({ code: "3900000002", settings: contracts[1] }))).toBe(
      Code.PermissionDenied,
    );
  });
});
