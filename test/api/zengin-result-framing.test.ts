import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import type { TestServer } from "../helpers/test-server.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { merchantWithCharges, startZenginServer } from "../helpers/zengin-server.js";

/**
 * Result files as banks and agents send them (docs/operations/zengin.md#result-files-in-the-wild):
 * each framing answers one merchant's request file of the same debit date, written here as bytes
 * from the request we sent. Every charge answered 0 succeeds, the one answered 1 fails.
 */
let server: TestServer;
let dir: string;
const quarantined: { name: string; reason: string }[] = [];

/** The merchants by framing, each with its own consignor code and two charges (1,000 debited, 2,000 資金不足). */
const framings = ["eof", "no-final-crlf", "lf-only", "blank-lines", "batch-a", "batch-b", "unknown-a", "unknown-b"];
const merchants: Record<string, { merchantId: string; code: string; charges: string[] }> = {};

beforeAll(async () => {
  server = await startZenginServer({ consignorCode: "7000000000", simulatedBank: false });
  dir = server.ctx.config.zengin.dir;
  for (const [index, framing] of framings.entries())
    merchants[framing] = await merchantWithCharges(server, {
      name: framing,
      code: `71000000${String(index).padStart(2, "0")}`,
      prices: [1000, 2000],
    });
  await server.jobs.drain();
  // Past the cutoff (15:00 JST on the 25th): one request file per merchant for the 26th.
  server.clock.advance(Date.parse("2026-11-25T06:00:00Z") - server.clock.now().getTime());
  const written = (await cycle()).written;
  expect(written).toHaveLength(framings.length);
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
    zenginExchangeOf(server.ctx, (file) => quarantined.push(file)),
  );

/** The answer to a merchant's request, CR LF after each record: the 1,000 yen debited, the 2,000 yen 資金不足 (1). */
function answerOf(framing: string, code = "1"): Buffer {
  const name = `Z91_${merchants[framing].code}_20261126.txt`;
  const sent = decodeDebitFile(readFileSync(join(dir, "outgoing", name)), false);
  if (!sent.ok) throw new Error(sent.reason);
  const answered = encodeDebitFile(
    {
      ...sent.file,
      records: sent.file.records.map((record) => ({ ...record, resultCode: record.amount === 2000 ? 1 : 0 })),
    },
    true,
  );
  if (code === "1") return answered;
  // The 2,000 yen record answered with a code outside the published list.
  const records = answered.toString("latin1").split("\r\n");
  const at = records.findIndex((record) => record.startsWith("2") && record.slice(80, 90) === "0000002000");
  records[at] = `${records[at].slice(0, 111)}${code}${records[at].slice(112)}`;
  return Buffer.from(records.join("\r\n"), "latin1");
}

/** The records of an answer without their line ends. */
const recordsOf = (bytes: Buffer) => bytes.toString("latin1").split("\r\n").filter(Boolean);

async function statusOf(chargeId: string) {
  const row = await server.ctx.tx.db
    .selectFrom("charges")
    .select("status")
    .where("id", "=", chargeId)
    .executeTakeFirstOrThrow();
  return row.status;
}

async function expectSettled(framing: string) {
  const [debited, failed] = merchants[framing].charges;
  expect([await statusOf(debited), await statusOf(failed)]).toEqual([ChargeStatus.SUCCESS, ChargeStatus.FAILURE]);
}

async function expectPending(framing: string) {
  for (const chargeId of merchants[framing].charges) expect(await statusOf(chargeId)).toBe(ChargeStatus.PENDING);
}

describe("result files in every framing banks send, imported end to end", () => {
  it("imports a final 0x1A, no CR LF after the end record, LF-only line ends and trailing blank lines", async () => {
    const files: Record<string, Buffer> = {
      "R91_eof.txt": Buffer.concat([answerOf("eof"), Buffer.from([0x1a])]),
      "R91_no-final-crlf.txt": answerOf("no-final-crlf").subarray(0, -2),
      "R91_lf-only.txt": Buffer.from(recordsOf(answerOf("lf-only")).join("\n"), "latin1"),
      "R91_blank-lines.txt": Buffer.concat([answerOf("blank-lines"), Buffer.from("\r\n\r\n\r\n")]),
    };
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, "incoming", name), bytes);
    const report = await cycle();
    expect(report.quarantined).toEqual([]);
    expect(report.imported.sort()).toEqual(Object.keys(files).sort());
    for (const framing of ["eof", "no-final-crlf", "lf-only", "blank-lines"]) await expectSettled(framing);
    for (const name of Object.keys(files)) expect(existsSync(join(dir, "archive", name))).toBe(true);
  });

  it("refuses a file with an unknown result code (N), naming the record, and applies none of its batches", async () => {
    const a = recordsOf(answerOf("unknown-a"));
    const b = recordsOf(answerOf("unknown-b", "N"));
    // Two batches, the second answering a debit with `N`: its 2,000 yen record is record 7 or 8 of the file.
    const bytes = Buffer.from(`${[...a.slice(0, 4), ...b].join("\r\n")}\r\n`, "latin1");
    const numberOfN = 5 + b.findIndex((record) => record[111] === "N");
    writeFileSync(join(dir, "incoming", "R91_unknown.txt"), bytes);
    const report = await cycle();
    expect(report.imported).toEqual([]);
    expect(report.quarantined).toEqual([
      {
        name: "R91_unknown.txt",
        reason: `batch 2 of 2 (consignor ${merchants["unknown-b"].code}, 1126): record ${numberOfN}: 振替結果コード "N" is unknown`,
      },
    ]);
    expect(quarantined.map((file) => file.name)).toEqual(["R91_unknown.txt"]);
    expect(readFileSync(join(dir, "quarantine", "R91_unknown.txt.reason.txt"), "utf8")).toMatch(
      new RegExp(`record ${numberOfN}: 振替結果コード "N" is unknown`),
    );
    await expectPending("unknown-a");
    await expectPending("unknown-b");
  });

  it("imports several header–trailer groups (one per contract) in one file, LF-only with a final 0x1A", async () => {
    const a = recordsOf(answerOf("batch-a"));
    const b = recordsOf(answerOf("batch-b"));
    const bytes = Buffer.from(`${[...a.slice(0, 4), ...b].join("\n")}\n\x1a`, "latin1");
    writeFileSync(join(dir, "incoming", "R91_batches.txt"), bytes);
    const report = await cycle();
    expect(report).toMatchObject({ imported: ["R91_batches.txt"], quarantined: [] });
    await expectSettled("batch-a");
    await expectSettled("batch-b");
    const files = await server.ctx.tx.db
      .selectFrom("zengin_files")
      .select(["name", "merchant_id", "state", "done_count", "failed_count"])
      .where("name", "in", [
        "R91_batches.txt",
        ...["batch-a", "batch-b"].map((f) => `Z91_${merchants[f].code}_20261126.txt`),
      ])
      .orderBy("name")
      .execute();
    const row = (name: string, framing: string, state: string) => ({
      name,
      merchant_id: merchants[framing].merchantId,
      state,
      done_count: 1,
      failed_count: 1,
    });
    expect(files).toHaveLength(4);
    expect(files).toEqual(
      expect.arrayContaining([
        row("R91_batches.txt", "batch-a", "archived"),
        row("R91_batches.txt", "batch-b", "archived"),
        row(`Z91_${merchants["batch-a"].code}_20261126.txt`, "batch-a", "answered"),
        row(`Z91_${merchants["batch-b"].code}_20261126.txt`, "batch-b", "answered"),
      ]),
    );
    // The same bytes again change nothing.
    writeFileSync(join(dir, "incoming", "R91_batches-again.txt"), bytes);
    const events = await server.ctx.tx.db.selectFrom("events").select("id").execute();
    expect(await cycle()).toMatchObject({ imported: ["R91_batches-again.txt"], quarantined: [] });
    expect(await server.ctx.tx.db.selectFrom("events").select("id").execute()).toHaveLength(events.length);
  });
});
