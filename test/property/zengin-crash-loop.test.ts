import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteDatabase as Database } from "../../src/storage/sqlite-driver.js";
import { afterAll, describe, expect, it } from "vitest";
import { ChargeStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { bankCalendar } from "../../src/domain/bank-calendar.js";
import { newPendingCharge } from "../../src/domain/charge.js";
import { jstInstant } from "../../src/domain/jst.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { debitDateOf, fileCutoffOf } from "../../src/domain/zengin-schedule.js";
import { updateConsignor } from "../../src/flows/merchants.js";
import { japaneseNationalHolidays } from "../../src/ports/national-holidays.js";
import { chargeToRow } from "../../src/storage/records.js";
import { sealedItemAccount } from "../../src/storage/zengin.js";
import { bundleServer } from "../helpers/bundled-server.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { spawnServer, type ServerProcess } from "../helpers/process-server.js";
import { provisionDatabase } from "../helpers/provision.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";

/**
 * A real server process (BANK_CONNECTOR=zengin, a manual clock moved through
 * SandboxService.AdvanceClock) is killed with -9 at a random moment while its zengin-cycle job
 * writes request files (a new debit date's file each round), then while it imports their result
 * files. After each kill: the database is intact, each date's debits are in no file or all in its
 * one file, a file on disk is whole and always the same bytes (the ones recorded), and a result is
 * applied all or not at all, each settled charge announced once. After the last restart every
 * debit is settled once, as its result says.
 */
const kills = Number(process.env.ZENGIN_CRASH_KILLS ?? 8);
const writingRounds = Math.max(1, Math.floor(kills / 2));
const perFile = 600;
const customers = 20;
const consignorCode = "7234567890";

// The server's manual clock starts at the real time: the debit dates follow from it, one a round.
const calendar = bankCalendar(japaneseNationalHolidays);
const timetable = { leadDays: 2, fileCutoff: "15:00", resultDeadlineDays: 5 };
const dates = [debitDateOf(new Date(), timetable, calendar)];
while (dates.length < writingRounds) dates.push(calendar.nextBusinessDay(dates[dates.length - 1]));
const requestName = (date: string) => `Z91_${consignorCode}_${date.replaceAll("-", "")}.txt`;
const debits = perFile * dates.length;

async function provision(databaseUrl: string) {
  return provisionDatabase(databaseUrl, "Zengin Crash Shop", async (setup) => {
    const merchantId = setup.merchant.merchant_id;
    await updateConsignor(setup.ctx, merchantId, {
      code: consignorCode,
      name: "ｸﾗﾂｼﾕ ﾙｰﾌﾟ",
      bankCode: "0001",
      branchCode: "001",
      accountType: "1",
      accountNumber: "1234567",
    });
    const accounts: { customerId: string; contractId: string; accountNumber: string }[] = [];
    for (let i = 0; i < customers; i++) {
      const accountNumber = String(i + 1).padStart(7, "0");
      accounts.push({ ...(await seedActiveCustomer(setup, { accountNumber })), accountNumber });
    }
    // PENDING charges scheduled for the debit dates, as ZenginBank schedules them.
    const now = setup.clock.now();
    await setup.ctx.tx.write(async (trx) => {
      for (let start = 0; start < debits; start += 250) {
        const charges = [];
        const items = [];
        for (let i = start; i < Math.min(start + 250, debits); i++) {
          const account = accounts[i % customers];
          const date = dates[Math.floor(i / perFile)];
          const id = `trx-crash${String(i).padStart(8, "0")}`;
          const amount = 1000 + (i % 500);
          const charge = newPendingCharge(
            {
              id,
              merchantId,
              customerId: account.customerId,
              contractId: account.contractId,
              onSessionId: null,
              requestId: null,
              apiSource: 1,
              amount,
              description: "crash loop",
              metadata: {},
            },
            now,
          );
          charges.push(chargeToRow(charge));
          items.push({
            reference: id,
            merchant_id: merchantId,
            contract_code: consignorCode,
            date,
            state: "scheduled",
            file_id: null,
            customer_number: null,
            amount,
            new_code: 0,
            ...sealedItemAccount({
              bankCode: "0001",
              branchCode: "001",
              accountType: 1,
              accountNumber: account.accountNumber,
              accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ",
            }),
            result_code: null,
            created_at: now.toISOString(),
            updated_at: now.toISOString(),
          });
        }
        await trx.insertInto("charges").values(charges).execute();
        await trx.insertInto("zengin_debits").values(items).execute();
      }
    });
    return {};
  });
}

/** What a killed process left of one debit date, read straight from the SQLite file. */
function stateOf(file: string, date: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      integrity: (db.pragma("integrity_check") as { integrity_check: string }[])[0].integrity_check,
      files: db
        .prepare("select id, state, sha256, record_count from zengin_files where direction = 'out' and date = ?")
        .all(date) as { id: string; state: string; sha256: string; record_count: number }[],
      items: db
        .prepare(
          "select coalesce(file_id, '') as file_id, state, count(*) as n from zengin_debits where date = ? group by 1, 2",
        )
        .all(date) as { file_id: string; state: string; n: number }[],
      charges: db
        .prepare(
          `select c.status, count(e.id) as events from charges c join zengin_debits d on d.reference = c.id
           left join events e on e.charge_id = c.id and e.event_type in (${EventType.CHARGE_SUCCESS}, ${EventType.CHARGE_FAIL})
           where d.date = ? group by c.id`,
        )
        .all(date) as { status: number; events: number }[],
    };
  } finally {
    db.close();
  }
}

/** The bank's answer to a request file: every fifth debit 資金不足, the trailer's totals to match. */
function answerOf(request: Buffer): Buffer {
  const decoded = decodeDebitFile(request, false);
  if (!decoded.ok) throw new Error(decoded.reason);
  const records = decoded.file.records.map((record, i) => ({ ...record, resultCode: i % 5 === 0 ? 1 : 0 }));
  return encodeDebitFile({ ...decoded.file, records }, true);
}

describe("crash loop around Zengin files: kill -9 while writing a request file and importing its result", () => {
  const fresh = freshDatabaseUrl("sqlite");
  const file = fresh.url.replace(/^file:/, "");
  const dir = mkdtempSync(join(tmpdir(), "zengin-crash-loop-"));
  let current: ServerProcess | undefined;
  afterAll(async () => {
    await current?.kill("SIGKILL");
    await fresh.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`writes each file once and applies each result once over ${kills} kills`, async () => {
    const { merchant } = await provision(fresh.url);
    const entry = await bundleServer();
    const env = {
      DATABASE_URL: fresh.url,
      BANK_CONNECTOR: "zengin",
      ZENGIN_DIR: dir,
      ZENGIN_SIMULATED_BANK: "off",
      SANDBOX_CLOCK: "manual",
      JOB_LEASE_MS: "300",
    };
    /** The furthest instant a process's clock was moved to: a later process starts past it. */
    let latest = 0;
    const postAdvance = async (server: ServerProcess, seconds: number): Promise<number> => {
      const res = await fetch(`${server.url}/v1/sandbox/clock/advance`, {
        method: "POST",
        headers: { authorization: `Bearer ${merchant.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ seconds }),
      });
      expect(res.status).toBe(200);
      return Date.parse(((await res.json()) as { now: string }).now);
    };
    /** Moves the process's clock (which runs from the real time) on to `at`, never back; what is due runs. */
    const advanceTo = async (server: ServerProcess, at: Date) => {
      const now = await postAdvance(server, 0);
      if (at.getTime() > now) await postAdvance(server, Math.ceil((at.getTime() - now) / 1000));
      latest = Math.max(latest, at.getTime());
    };
    /**
     * Waits for the live process to get there, moving its clock a minute on every two seconds: a job
     * the kills left to retry later in the process's time is not waited for in real time.
     */
    const waitAdvancing = async (server: ServerProcess, condition: () => boolean, what: string) => {
      const deadline = Date.now() + 120_000;
      for (let polls = 1; !condition(); polls++) {
        if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (polls % 20 === 0) await advanceTo(server, new Date(latest + 61_000));
      }
    };
    const requestBytes = new Map<string, Buffer>();
    const seen: string[] = [];
    const check = () => {
      const summary: string[] = [];
      for (const date of dates) {
        const state = stateOf(file, date);
        expect(state.integrity).toBe("ok");
        // The date's debits are in no file, or all in its one file.
        expect(state.files.length).toBeLessThanOrEqual(1);
        const [recorded] = state.files;
        expect(state.items.map(({ file_id }) => file_id)).toEqual([recorded?.id ?? ""]);
        expect(state.items[0].n).toBe(perFile);
        if (recorded) expect(recorded.record_count).toBe(perFile);
        // On disk the file is whole, the same bytes every time, and the ones recorded when it was sent.
        const onDisk = join(dir, "outgoing", requestName(date));
        if (existsSync(onDisk)) {
          const bytes = readFileSync(onDisk);
          expect(bytes.length).toBe((perFile + 3) * 122);
          if (!requestBytes.has(date)) requestBytes.set(date, bytes);
          expect(bytes.equals(requestBytes.get(date)!)).toBe(true);
          if (recorded?.state !== "writing")
            expect(createHash("sha256").update(bytes).digest("hex")).toBe(recorded?.sha256);
        }
        // The result is applied all or nothing, and with it its file's state; each settled charge announced once.
        const pending = state.charges.filter(({ status }) => status === ChargeStatus.PENDING).length;
        expect([0, perFile]).toContain(pending);
        expect(pending === 0).toBe(recorded?.state === "answered");
        for (const { status, events } of state.charges) expect(events).toBe(status === ChargeStatus.PENDING ? 0 : 1);
        summary.push(recorded?.state ?? "none");
      }
      seen.push(summary.join("/"));
    };
    const killAtRandom = async (server: ServerProcess, withinMs: number) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * withinMs));
      await server.kill("SIGKILL");
      current = undefined;
      check();
    };

    // Around the request files: each round the cutoff of the next debit date.
    for (let round = 0; round < writingRounds; round++) {
      current = await spawnServer(env, { entry });
      await advanceTo(current, new Date(fileCutoffOf(dates[round], timetable, calendar).getTime() + 61_000));
      await killAtRandom(current, 100);
    }
    // Every file sent (a restart finishes what a kill left).
    const last = jstInstant(dates[dates.length - 1], "17:00");
    current = await spawnServer(env, { entry });
    await advanceTo(current, last);
    await waitAdvancing(
      current,
      () => dates.every((date) => stateOf(file, date).files[0]?.state === "sent"),
      "every file is sent",
    );
    await current.kill("SIGKILL");
    current = undefined;
    // Around the imports: each round the bank's answer to one more file appears in incoming/, and
    // the clock moves a minute on (past the dead process's lease and the job's next run).
    const answer = (date: string) =>
      writeFileSync(
        join(dir, "incoming", `R${requestName(date).slice(1)}`),
        answerOf(readFileSync(join(dir, "outgoing", requestName(date)))),
      );
    const sentBy = latest;
    for (let round = writingRounds; round < kills; round++) {
      const date = dates[round - writingRounds];
      if (date) answer(date);
      current = await spawnServer(env, { entry });
      await advanceTo(current, new Date(sentBy + (round + 1) * 61_000));
      await killAtRandom(current, 400);
    }
    for (const date of dates.slice(kills - writingRounds)) answer(date);

    current = await spawnServer(env, { entry });
    await advanceTo(current, new Date(sentBy + (kills + 1) * 61_000));
    await waitAdvancing(
      current,
      () => dates.every((date) => stateOf(file, date).files[0]?.state === "answered"),
      "every result is imported",
    );
    check();
    for (const date of dates) {
      expect(existsSync(join(dir, "archive", `R${requestName(date).slice(1)}`))).toBe(true);
      const failed = stateOf(file, date).charges.filter(({ status }) => status === ChargeStatus.FAILURE).length;
      expect(failed).toBe(perFile / 5);
    }
    console.log(`zengin crash loop: ${kills} kills; the files' states after each: ${seen.join(", ")}`);
  }, 600_000);
});
