import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { createPayment, freshEmail, tokenOf } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The payment page's bank picker over HTTP (HostedPageService.SearchBanks / SearchBranches, issue
// #31 finding 12): readings for people in hiragana, the sandbox banks as さんどぼっくす, and the
// common names and abbreviations customers type.

let server: TestServer;
let token = "";

beforeAll(async () => {
  server = await startTestServer({ env: { WORKERS: "off" } });
  token = tokenOf((await createPayment(server, { buyer: { email: freshEmail() } })).paymentLink!.url);
});
afterAll(async () => server?.stop());

const page = () => server.client(HostedPageService);
const banks = async (query: string) => (await page().searchBanks({ token, query, limit: 8 })).banks;

describe("the bank picker's readings and common names", () => {
  it("reads 三菱UFJ as people do, not as the master writes it", async () => {
    const [mufg] = await banks("三菱UFJ");
    expect(mufg).toMatchObject({ code: "0005", name: "三菱UFJ銀行", kana: "みつびしゆーえふじぇい" });
    expect((await banks("ゆうちょ"))[0]).toMatchObject({ code: "9900", kana: "ゆうちょ" });
  });

  it("finds banks by their common names and abbreviations", async () => {
    expect((await banks("しずぎん")).map((b) => b.code)).toEqual(["0149"]);
    expect((await banks("みずほ"))[0].code).toBe("0001");
    expect((await banks("MUFG")).map((b) => b.code)).toEqual(["0005"]);
  });

  it("the sandbox banks read さんどぼっくす, and a branch's reading has no master dash", async () => {
    const sandbox = await banks("さんどぼっくす");
    expect(sandbox.length).toBeGreaterThan(0);
    expect(new Set(sandbox.map((b) => b.kana))).toEqual(new Set(["さんどぼっくす"]));
    const { branches } = await page().searchBranches({ token, bankCode: "0005", query: "とうきょう", limit: 50 });
    expect(branches.length).toBeGreaterThan(0);
    for (const branch of branches) expect(branch.kana).not.toMatch(/[－ァ-ン]/);
  });
});
