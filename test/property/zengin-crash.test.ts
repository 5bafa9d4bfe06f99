import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { updateConsignor } from "../../src/flows/merchants.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { type ZenginExchange, zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { importResultFile } from "../../src/flows/zengin-result-import.js";
import { answerRequestFiles, resultNameOf } from "../../src/ports/zengin-simulated-bank.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";
import pino from "pino";
import { loadConfig } from "../../src/config.js";
import { startService } from "../../src/composition-root.js";
import { expectReconciled } from "../helpers/reconcile.js";

/**
 * Crashes around the file exchange, injected at each step (the transport or the archive copy
 * throwing, as a process dying there would leave things): every turn after it finishes the same
 * file with the same bytes, and a result applied before the crash is never applied twice.
 */
let server: TestServer;
let dir: string;
const charges: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "zengin-crash-"));
  server = await startTestServer({
    clockStart: new Date("2026-11-24T01:00:00Z"),
    env: { BANK_CONNECTOR: "zengin", ZENGIN_DIR: dir, ZENGIN_SIMULATED_BANK: "off", WORKERS: "off" },
  });
  await updateConsignor(server.ctx, server.merchant.merchant_id, {
    code: "6234567890",
    name: "ｸﾗﾂｼﾕ",
    bankCode: "0001",
    branchCode: "001",
    accountType: "1",
    accountNumber: "1234567",
  });
  for (let i = 0; i < 5; i++) {
    const { customerId } = await seedActiveCustomer(server, {
      balance: 5000,
      accountNumber: String(i + 1).padStart(7, "0"),
    });
    const res = await api(server, "/v1/payments/off-session/async", {
      method: "POST",
      json: { customer_id: customerId, charge: { price: 1000 * (i + 1), description: "c" } },
    });
    charges.push((await res.json()).chargeId);
  }
  await server.jobs.drain();
});
afterAll(async () => {
  try {
    await expectReconciled(server);
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

const crashing = (exchange: ZenginExchange, step: "send" | "remove"): ZenginExchange => ({
  ...exchange,
  transport: {
    ...exchange.transport,
    send:
      step === "send"
        ? async () => Promise.reject(new Error("crash"))
        : exchange.transport.send.bind(exchange.transport),
    received: () => exchange.transport.received(),
    read: (name) => exchange.transport.read(name),
    remove:
      step === "remove"
        ? async () => Promise.reject(new Error("crash"))
        : exchange.transport.remove.bind(exchange.transport),
  },
});

describe("crashes around Zengin files", () => {
  it("a crash between recording a file and writing it: the next turns write it once, same name, same bytes", async () => {
    const exchange = zenginExchangeOf(server.ctx, () => {});
    server.clock.advance(Date.parse("2026-11-25T06:00:00Z") - server.clock.now().getTime());
    for (let crash = 0; crash < 3; crash++)
      await expect(runZenginCycle(server.ctx, crashing(exchange, "send"))).rejects.toThrow("crash");
    expect(readdirSync(join(dir, "outgoing"))).toEqual([]);
    expect((await runZenginCycle(server.ctx, exchange)).written).toEqual(["Z91_6234567890_20261126.txt"]);
    const bytes = readFileSync(join(dir, "outgoing", "Z91_6234567890_20261126.txt"));
    expect(bytes.length).toBe((5 + 3) * 122);
    // Marked sent: a later turn does not write it again; redone by hand, the bytes are the same.
    expect((await runZenginCycle(server.ctx, exchange)).written).toEqual([]);
    await server.ctx.tx.write((trx) => trx.updateTable("zengin_files").set({ state: "writing" }).execute());
    expect((await runZenginCycle(server.ctx, exchange)).written).toEqual(["Z91_6234567890_20261126.txt"]);
    expect(readFileSync(join(dir, "outgoing", "Z91_6234567890_20261126.txt")).equals(bytes)).toBe(true);
    expect(readdirSync(join(dir, "outgoing"))).toEqual(["Z91_6234567890_20261126.txt"]);
  });

  it("a crash after a result was applied, before it left incoming/: applied once", async () => {
    const exchange = zenginExchangeOf(server.ctx, () => {});
    server.clock.advance(Date.parse("2026-11-26T08:00:00Z") - server.clock.now().getTime());
    await answerRequestFiles(server.ctx.tx, dir, server.clock.now());
    await expect(runZenginCycle(server.ctx, crashing(exchange, "remove"))).rejects.toThrow("crash");
    const events = async () => (await server.ctx.tx.db.selectFrom("events").select("id").execute()).length;
    const after = await events();
    for (let again = 0; again < 3; again++) {
      const name = resultNameOf("Z91_6234567890_20261126.txt");
      const bytes = readFileSync(join(dir, "incoming", name));
      expect(await importResultFile(server.ctx, exchange, name, bytes)).toEqual({ ok: true, applied: false });
    }
    expect((await runZenginCycle(server.ctx, exchange)).imported).toEqual(["R91_6234567890_20261126.txt"]);
    expect(readdirSync(join(dir, "incoming"))).toEqual([]);
    expect(await events()).toBe(after);
    const statuses = await server.ctx.tx.db.selectFrom("charges").select(["id", "status"]).execute();
    // Balances of 5000: the debits of 1000–5000 succeed.
    expect(statuses.filter((row) => charges.includes(row.id)).map((row) => row.status)).toEqual(
      charges.map(() => ChargeStatus.SUCCESS),
    );
  });
});

describe("two instances on one database", () => {
  it("write each file once: the charges of a debit date are in exactly one file", async () => {
    const second = await startService(
      loadConfig({
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: server.databaseUrl,
        LOG_LEVEL: "silent",
        WORKERS: "off",
        BANK_CONNECTOR: "zengin",
        ZENGIN_DIR: dir,
        ZENGIN_SIMULATED_BANK: "off",
      }),
      { clock: server.clock, logger: pino({ level: "silent" }) },
    );
    try {
      const first = zenginExchangeOf(server.ctx, () => {});
      const other = zenginExchangeOf(second.ctx, () => {});
      // Both race at the cutoff of a new debit date.
      const { customerId } = await seedActiveCustomer(server, { balance: 5000, accountNumber: "0099999" });
      const res = await api(server, "/v1/payments/off-session/async", {
        method: "POST",
        json: { customer_id: customerId, charge: { price: 100, description: "race" } },
      });
      const { chargeId } = await res.json();
      await server.jobs.drain();
      const debit = await server.ctx.tx.db
        .selectFrom("zengin_debits")
        .select("date")
        .where("reference", "=", chargeId)
        .executeTakeFirstOrThrow();
      server.clock.advance(Date.parse(`${debit.date}T06:00:00Z`) - server.clock.now().getTime());
      const reports = await Promise.all([runZenginCycle(server.ctx, first), runZenginCycle(second.ctx, other)]);
      const name = `Z91_6234567890_${debit.date?.replaceAll("-", "")}.txt`;
      expect(reports.flatMap((report) => report.written).filter((written) => written === name).length).toBeGreaterThan(
        0,
      );
      const files = await server.ctx.tx.db.selectFrom("zengin_files").selectAll().where("name", "=", name).execute();
      expect(files).toHaveLength(1);
      expect(files[0]).toMatchObject({ record_count: 1, state: "sent" });
      const filed = await server.ctx.tx.db
        .selectFrom("zengin_debits")
        .select(["file_id", "state"])
        .where("reference", "=", chargeId)
        .executeTakeFirstOrThrow();
      expect(filed).toEqual({ file_id: files[0].id, state: "filed" });
    } finally {
      await second.close();
    }
  });
});
