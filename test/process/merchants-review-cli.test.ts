import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStorage, type Storage } from "../../src/storage/database.js";
import { runCli } from "../helpers/process-server.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";

// `npx furikomi merchants review …` (docs/operations/merchant-review.md): the operator's decisions,
// each audited. One database for the file, one CLI run per test.

const database = freshDatabaseUrl();
const env = { DATABASE_URL: database.url };
let storage: Storage;
let merchantId: string;

interface Review {
  merchant_id: string;
  state: string;
  missing: string[];
  sent_back_reason: string;
}

const review = (...args: string[]) => runCli<Review>(["merchants", "review", ...args], env);

async function auditActions(): Promise<string[]> {
  const rows = await storage.db
    .selectFrom("audit_log")
    .select("action")
    .where("merchant_id", "=", merchantId)
    .orderBy("seq")
    .execute();
  return rows.map((row) => row.action);
}

beforeAll(async () => {
  ({ merchant_id: merchantId } = await runCli<{ merchant_id: string }>(
    ["merchants", "create", "--name", "Review Shop"],
    env,
  ));
  storage = await openStorage(database.url);
  // As if its owner had signed up and submitted: in review, the checklist not finished.
  await storage.db
    .updateTable("merchants")
    .set({ onboarding_state: "in_review" })
    .where("id", "=", merchantId)
    .execute();
});
afterAll(async () => {
  await storage?.close();
  await database.cleanup();
});

describe("furikomi merchants review", () => {
  it("lists the merchants waiting, with what their checklist misses", async () => {
    const queue = await runCli<Review[]>(["merchants", "review"], env);
    expect(queue).toMatchObject([
      { merchant_id: merchantId, state: "in_review", missing: ["business", "zengin_contract", "webhook", "terms"] },
    ]);
  });

  it("refuses to approve an unfinished checklist", async () => {
    await expect(review("approve", "--id", merchantId)).rejects.toThrow(/the checklist is not finished: business/);
  });

  it("sends it back with a reason, audited; a reason is required", async () => {
    await expect(review("send-back", "--id", merchantId)).rejects.toThrow(/--reason is required/);
    const sentBack = await review("send-back", "--id", merchantId, "--reason", "法人番号が見つかりません");
    expect(sentBack).toMatchObject({ state: "incomplete", sent_back_reason: "法人番号が見つかりません" });
    expect(await auditActions()).toEqual(["onboarding.send_back"]);
  });

  it("suspends and reinstates, audited", async () => {
    expect((await review("suspend", "--id", merchantId, "--reason", "fraud report")).state).toBe("suspended");
    expect((await review("reinstate", "--id", merchantId)).state).toBe("complete");
    expect(await auditActions()).toEqual(["onboarding.send_back", "onboarding.suspend", "onboarding.reinstate"]);
    await expect(review("reinstate", "--id", merchantId)).rejects.toThrow(/the merchant is complete, not suspended/);
  });
});
