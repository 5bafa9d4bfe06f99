import { existsSync, readdirSync, readFileSync } from "node:fs";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { importResultFile } from "../../src/flows/zengin-result-import.js";
import { writeAtomically } from "../../src/ports/zengin-transport.js";
import { signedInUser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { api, type TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";

/**
 * Issue 34, point 4 (the import flow): the same result imported twice at once is applied once,
 * archived, and neither quarantined nor alerted; a file in incoming/ with an unexpected name is
 * reported and imported when it is a valid result (docs/operations/zengin.md#unexpected-file-names).
 */

let server: TestServer;
let dir: string;
const notices = { quarantined: [] as string[], unexpected: [] as string[] };

beforeAll(async () => {
  server = await startZenginServer({ consignorCode: "6234567890", simulatedBank: false });
  dir = server.ctx.config.zengin.dir;
});
afterAll(async () => {
  await server?.stop();
});

const exchange = () =>
  zenginExchangeOf(server.ctx, (file) => notices.quarantined.push(file.name), {
    onUnexpectedName: (file) => notices.unexpected.push(file.name),
  });

/** Charges for these customers, then the clock past the file's cutoff: the request file's result, all 0. */
async function requestAndResult(prices: number[]): Promise<{ ids: string[]; result: Buffer }> {
  const ids: string[] = [];
  for (const price of prices) {
    const { customerId } = await seedActiveCustomer(server, { accountNumber: `00${61000 + price}` });
    const res = await api(server, "/v1/payments/off-session/async", {
      method: "POST",
      json: { customer_id: customerId, charge: { price, description: "会費" } },
    });
    ids.push((await res.json()).chargeId);
  }
  const before = new Set(readdirSync(join(dir, "outgoing")));
  for (let hour = 0; hour < 24 * 5; hour++) {
    server.clock.advance(3_600_000);
    await runZenginCycle(server.ctx, exchange());
    const name = readdirSync(join(dir, "outgoing")).find((file) => !before.has(file));
    if (!name) continue;
    const request = decodeDebitFile(readFileSync(join(dir, "outgoing", name)), false);
    if (!request.ok) throw new Error(request.reason);
    const records = request.file.records.map((record) => ({ ...record, resultCode: 0 }));
    return { ids, result: encodeDebitFile({ ...request.file, records }, true) };
  }
  throw new Error("no request file was written");
}

const status = async (id: string) =>
  (await server.ctx.tx.db.selectFrom("charges").select("status").where("id", "=", id).executeTakeFirstOrThrow()).status;

const successEvents = async (ids: string[]) =>
  (
    await server.ctx.tx.db
      .selectFrom("events")
      .select("charge_id")
      .where("charge_id", "in", ids)
      .where("event_type_name", "=", "EVENT_TYPE_CHARGE_SUCCESS")
      .execute()
  ).length;

describe("issue 34 point 4: importing the same result twice at once", () => {
  it("applies it once, archives it, and quarantines nothing", async () => {
    const { ids, result } = await requestAndResult([100, 200, 300]);
    const name = "R91_6234567890_race.txt";
    // The cycle of one instance and an operator's `zengin import` (or a second instance) at once.
    const outcomes = await Promise.all([
      importResultFile(server.ctx, exchange(), name, result),
      importResultFile(server.ctx, exchange(), name, result),
      importResultFile(server.ctx, exchange(), name, result),
    ]);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(outcomes.filter((outcome) => outcome.ok && outcome.applied)).toHaveLength(1);
    expect(notices.quarantined).toEqual([]);
    expect(existsSync(join(dir, "quarantine")) ? readdirSync(join(dir, "quarantine")) : []).toEqual([]);
    expect(readdirSync(join(dir, "archive"))).toEqual([name]);
    const received = await server.ctx.tx.db
      .selectFrom("zengin_files")
      .select("state")
      .where("direction", "=", "in")
      .execute();
    expect(received).toEqual([{ state: "archived" }]);
    for (const id of ids) expect(await status(id)).toBe(ChargeStatus.SUCCESS);
    expect(await successEvents(ids)).toBe(3);
    await expectReconciled(server);
  });
});

describe("issue 34 point 4: files with an unexpected name in incoming/", () => {
  it("reports `kekka (1).txt` and imports it, and reports and quarantines `振替結果.txt` that is no result", async () => {
    const { ids, result } = await requestAndResult([400]);
    await writeAtomically(join(dir, "incoming"), "kekka (1).txt", result);
    await writeAtomically(join(dir, "incoming"), "振替結果.txt", Buffer.from("not a result\r\n"));
    const report = await runZenginCycle(server.ctx, exchange());
    expect(report.unexpected.sort()).toEqual(["kekka (1).txt", "振替結果.txt"].sort());
    expect(notices.unexpected.sort()).toEqual(["kekka (1).txt", "振替結果.txt"].sort());
    expect(report.imported).toEqual(["kekka (1).txt"]);
    expect(report.quarantined.map((file) => file.name)).toEqual(["振替結果.txt"]);
    expect(await status(ids[0])).toBe(ChargeStatus.SUCCESS);
    expect(readdirSync(join(dir, "archive"))).toContain("kekka (1).txt");
    expect(readdirSync(join(dir, "quarantine"))).toContain("振替結果.txt");
    expect(readdirSync(join(dir, "incoming"))).toEqual([]);
    await expectReconciled(server);
  });

  it("shows the merchant's file with an unexpected name on the dashboard's bank files, with when it was first seen", async () => {
    const firstSeen = server.clock.now();
    const ops = await signedInUser(server);
    const shown = async () =>
      (await ops.client.listZenginFiles({})).unexpectedFiles.map((file) => ({
        name: file.name,
        state: file.state,
        firstSeenAt: timestampDate(file.firstSeenAt!).toISOString(),
      }));
    // `振替結果.txt` answered no merchant's file: the operator sees it (zengin files list), no merchant does.
    expect(await shown()).toEqual([{ name: "kekka (1).txt", state: "archived", firstSeenAt: firstSeen.toISOString() }]);
    // The same bytes again, later and under the same name: still first seen then.
    await writeAtomically(join(dir, "incoming"), "kekka (1).txt", readFileSync(join(dir, "archive", "kekka (1).txt")));
    server.clock.advance(60_000);
    expect((await runZenginCycle(server.ctx, exchange())).imported).toEqual(["kekka (1).txt"]);
    expect(await shown()).toEqual([{ name: "kekka (1).txt", state: "archived", firstSeenAt: firstSeen.toISOString() }]);
    const other = await signedInUser(server, { merchantId: (await server.newMerchant()).merchant_id });
    expect((await other.client.listZenginFiles({})).unexpectedFiles).toEqual([]);
  });
});
