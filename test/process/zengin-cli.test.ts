import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { runCli } from "../helpers/process-server.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "zengin-cli-"));
  const zengin = { BANK_CONNECTOR: "zengin", ZENGIN_DIR: dir, ZENGIN_SIMULATED_BANK: "off" };
  server = await startTestServer({ env: { ...zengin, WORKERS: "off" } });
  env = { ...zengin, DATABASE_URL: server.databaseUrl };
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cliFails = (args: string[]) =>
  runCli(args, env).then(
    () => "succeeded",
    (error: Error) => error.message,
  );

describe("zengin from the command line", () => {
  it("sets the consignor with merchants update, refusing what a Zengin file cannot carry", async () => {
    const id = server.merchant.merchant_id;
    const flags = [
      "--id",
      id,
      "--consignor-code",
      "3234567890",
      "--consignor-name",
      "カ)フリコミ",
      "--consignor-bank",
      "0005",
      "--consignor-branch",
      "123",
      "--consignor-account-type",
      "1",
      "--consignor-account",
      "0000001",
    ];
    const updated = await runCli<{ consignor: { code: string; name: string } }>(["merchants", "update", ...flags], env);
    expect(updated.consignor).toMatchObject({ code: "3234567890", name: "ｶ)ﾌﾘｺﾐ" });
    const bad = [...flags];
    bad[bad.indexOf("--consignor-name") + 1] = "株式会社";
    expect(await cliFails(["merchants", "update", ...bad])).toMatch(/consignor-name/);
    expect(await cliFails(["merchants", "update", "--id", id])).toMatch(/--consignor-code/);
  });

  it("runs a cycle, lists and shows the file, imports a result downloaded by hand", async () => {
    const { customerId } = await seedActiveCustomer(server, { accountNumber: "0022222" });
    const res = await api(server, "/v1/payments/off-session/async", {
      method: "POST",
      json: { customer_id: customerId, charge: { price: 4200, description: "box" } },
    });
    const { chargeId } = await res.json();
    await server.jobs.drain();
    // A debit date whose cutoff has passed by the system clock the CLI runs on.
    await server.ctx.tx.write((trx) =>
      trx.updateTable("zengin_debits").set({ date: "2026-01-06" }).where("reference", "=", chargeId).execute(),
    );
    const run = await runCli<{ written: string[] }>(["zengin", "run"], env);
    expect(run.written).toEqual(["Z91_3234567890_20260106.txt"]);

    const listed = await runCli<{ name: string; state: string; records: number; total: number }[]>(
      ["zengin", "files", "list"],
      env,
    );
    expect(listed).toEqual([
      expect.objectContaining({ name: "Z91_3234567890_20260106.txt", state: "sent", records: 1, total: 4200 }),
    ]);
    const shown = await runCli<{ valid: boolean; records: { amount: number; accountNumber: string }[] }>(
      ["zengin", "files", "show", "Z91_3234567890_20260106.txt"],
      env,
    );
    expect(shown).toMatchObject({ valid: true, records: [{ amount: 4200, accountNumber: "0022222" }] });

    const sent = decodeDebitFile(readFileSync(join(dir, "outgoing", "Z91_3234567890_20260106.txt")), false);
    if (!sent.ok) throw new Error(sent.reason);
    const downloaded = join(dir, "downloaded-result.txt");
    writeFileSync(
      downloaded,
      encodeDebitFile({ ...sent.file, records: sent.file.records.map((r) => ({ ...r, resultCode: 1 })) }, true),
    );
    expect(await runCli(["zengin", "import", downloaded], env)).toEqual({ ok: true, applied: true });
    const charge = await server.ctx.tx.db
      .selectFrom("charges")
      .selectAll()
      .where("id", "=", chargeId)
      .executeTakeFirstOrThrow();
    expect(charge.status).toBe(ChargeStatus.FAILURE);
    expect(charge.error_message).toMatch(/Zengin result 1: insufficient funds, 資金不足/);
    expect(await runCli(["zengin", "import", downloaded], env)).toEqual({ ok: true, applied: false });

    // Issue 34: a quarantined file is a failed import: exit 1 and why, on standard error.
    writeFileSync(downloaded, "not a zengin file\r\n");
    const quarantined = spawnSync(process.execPath, ["bin/furikomi.js", "zengin", "import", downloaded], {
      env: { ...process.env, MODE: "sandbox", ...env },
      encoding: "utf8",
    });
    expect(quarantined.status).toBe(1);
    expect(quarantined.stderr).toMatch(/quarantined downloaded-result\.txt: not a 種別 91 or 21 file/);
    expect(quarantined.stdout).toBe("");
  });
  it("lists, adds, updates and removes contracts with zengin contracts", async () => {
    const merchant = server.merchant.merchant_id;
    type Listed = {
      code: string;
      scope: string;
      banks: string[];
      transfer_code: string;
      debit_day: number;
      result_style: string;
    }[];
    const before = await runCli<Listed>(["zengin", "contracts", "list", "--merchant", merchant], env);
    // The contract merchants update set: an agent for every bank, its transfer code its consignor code.
    expect(before).toEqual([
      expect.objectContaining({ code: "3234567890", scope: "agent", banks: [], transfer_code: "3234567890" }),
    ]);
    const yucho = ["--scope", "yucho", "--transfer-code", "3934567891", "--name", "ｶ)ﾌﾘｺﾐ", "--bank", "9900"];
    const account = ["--branch", "019", "--account-type", "1", "--account", "7654321"];
    const added = await runCli<{ code: string; scope: string }>(
      ["zengin", "contracts", "add", "--merchant", merchant, "--code", "3934567890", ...yucho, ...account],
      env,
    );
    expect(added).toMatchObject({ code: "3934567890", scope: "yucho" });
    expect(
      await cliFails([
        "zengin",
        "contracts",
        "add",
        "--merchant",
        merchant,
        "--code",
        "3934567899",
        ...yucho,
        ...account,
      ]),
    ).toMatch(/transfer-code: 3934567891 is already another contract's/);
    const updated = await runCli<{ debit_day: number; transfer_code: string; result_style: string }>(
      [
        ...["zengin", "contracts", "update", "--merchant", merchant, "--code", "3934567890", "--debit-day", "27"],
        ...["--result-style", "failures_only"],
      ],
      env,
    );
    expect(updated).toMatchObject({ debit_day: 27, transfer_code: "3934567891", result_style: "failures_only" });
    const listed = await runCli<Listed>(["zengin", "contracts", "list", "--merchant", merchant], env);
    expect(listed.map((contract) => [contract.code, contract.result_style])).toEqual([
      ["3234567890", "all"],
      ["3934567890", "failures_only"],
    ]);
    // merchants update is for the single-contract case only.
    expect(
      await cliFails([
        "merchants",
        "update",
        "--id",
        merchant,
        "--consignor-code",
        "3234567890",
        "--consignor-name",
        "ｶ)ﾌﾘｺﾐ",
        "--consignor-bank",
        "0005",
        "--consignor-branch",
        "123",
        "--consignor-account-type",
        "1",
        "--consignor-account",
        "0000001",
      ]),
    ).toMatch(/several contracts/);
    expect(
      await runCli(["zengin", "contracts", "remove", "--merchant", merchant, "--code", "3934567890"], env),
    ).toEqual({ merchant_id: merchant, code: "3934567890", removed: true });
    const after = await runCli<Listed>(["zengin", "contracts", "list", "--merchant", merchant], env);
    expect(after.map((contract) => contract.code)).toEqual(["3234567890"]);
  }, 120_000);
});
