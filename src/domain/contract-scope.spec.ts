import { describe, expect, it } from "vitest";
import { contractCovers, contractFor, parseAgentBanks, type ScopedContract } from "./contract-scope.js";

const bank: ScopedContract = { code: "3", scope: "bank", bankCode: "0184", banks: [] };
const listing: ScopedContract = { code: "2", scope: "agent", bankCode: "0001", banks: ["0001", "0005"] };
const every: ScopedContract = { code: "1", scope: "agent", bankCode: "0001", banks: [] };
const yucho: ScopedContract = { code: "4", scope: "yucho", bankCode: "9900", banks: [] };

describe("contract scope", () => {
  it("a bank contract covers its own bank only, ゆうちょ only the yucho contract, an agent what it lists or every other bank", () => {
    expect(["0184", "0005", "9900"].map((code) => contractCovers(bank, code))).toEqual([true, false, false]);
    expect(["0005", "0009", "9900"].map((code) => contractCovers(listing, code))).toEqual([true, false, false]);
    expect(["0005", "0009", "9900"].map((code) => contractCovers(every, code))).toEqual([true, true, false]);
    expect(["0005", "9900"].map((code) => contractCovers(yucho, code))).toEqual([false, true]);
  });

  it("chooses the bank's own contract, then a listing agent, then an agent for every bank", () => {
    const all = [every, listing, bank, yucho];
    expect(["0184", "0005", "0009", "9900", "0397"].map((code) => contractFor(all, code)?.code)).toEqual([
      "3",
      "2",
      "1",
      "4",
      "1",
    ]);
    expect(contractFor([bank], "0005")).toBeUndefined();
  });

  it("reads an agent's bank list and refuses ゆうちょ and non-codes in it", () => {
    expect(parseAgentBanks("0005, 0001 0005")).toEqual({ ok: true, banks: ["0001", "0005"] });
    expect(parseAgentBanks("")).toEqual({ ok: true, banks: [] });
    expect(parseAgentBanks("0001,9900")).toMatchObject({ ok: false, reason: expect.stringMatching(/ゆうちょ/) });
    expect(parseAgentBanks("12")).toMatchObject({ ok: false, reason: "12 is not a 4-digit bank code" });
  });
});
