import { describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import {
  bankDisplayName,
  bankReading,
  branchDisplayName,
  branchReading,
  searchBanks,
  searchBranches,
  searchKey,
  type BankMaster,
} from "./bank-directory.js";

const entry = (code: string, name: string, kana: string, hira: string, roma: string) => ({
  code,
  name,
  kana,
  hira,
  roma,
});

// A slice of the Zengin master as the zengin-code package writes it.
const master: BankMaster = {
  "0001": {
    ...entry("0001", "みずほ", "ミズホ", "みずほ", "mizuho"),
    branches: {
      "001": entry("001", "東京営業部", "トウキヨウ", "とうきよう", "toukiyou"),
      "162": entry("162", "渋谷中央", "シブヤチユウオウ", "しぶやちゆうおう", "shibuyachiyuuou"),
      "210": entry("210", "渋谷", "シブヤ", "しぶや", "shibuya"),
    },
  },
  "0005": {
    ...entry("0005", "三菱ＵＦＪ", "ミツビシユ－エフジエイ", "みつびしゆ－えふじえい", "mitsubishiyu-efujiei"),
    branches: {},
  },
  "0009": { ...entry("0009", "三井住友", "ミツイスミトモ", "みついすみとも", "mitsuisumitomo"), branches: {} },
  "1001": {
    ...entry("1001", "北海道信金", "ホツカイドウシンキン", "ほつかいどうしんきん", "hotsukaidoushinkin"),
    branches: {},
  },
  "9900": {
    ...entry("9900", "ゆうちょ", "ユウチヨ", "ゆうちよ", "yuuchiyo"),
    branches: { "058": entry("058", "〇五八", "ゼロゴハチ", "ぜろごはち", "zerogohachi") },
  },
};

const codes = (found: { code: string }[]) => found.map((bank) => bank.code);

describe("searching the bank master as the customer types", () => {
  it("finds a bank by kanji, hiragana, katakana, half-width kana, romaji or code", () => {
    expect(codes(searchBanks(master, "三菱"))).toEqual(["0005"]);
    expect(codes(searchBanks(master, "みずほ"))).toEqual(["0001"]);
    expect(codes(searchBanks(master, "ミツイ"))).toEqual(["0009"]);
    expect(codes(searchBanks(master, "ﾐﾂｲ"))).toEqual(["0009"]);
    expect(codes(searchBanks(master, "mizu"))).toEqual(["0001"]);
    expect(codes(searchBanks(master, "0005"))).toEqual(["0005"]);
    expect(codes(searchBanks(master, "000"))).toEqual(["0001", "0005", "0009"]);
    // Full-width letters as typed with a Japanese keyboard; small kana against the master's large ones.
    expect(codes(searchBanks(master, "ufj"))).toEqual(["0005"]);
    expect(codes(searchBanks(master, "ゆうちょ"))).toEqual(["9900"]);
    expect(codes(searchBanks(master, "ほっかいどう"))).toEqual(["1001"]);
  });

  it("puts the exact and starting matches first, and answers nothing for an empty query", () => {
    expect(codes(searchBranches(master["0001"], "しぶや"))).toEqual(["210", "162"]);
    expect(codes(searchBranches(master["0001"], "210"))).toEqual(["210"]);
    expect(searchBanks(master, "  ")).toEqual([]);
    expect(searchBanks(master, "存在しない")).toEqual([]);
    expect(searchBanks(master, "み", 1)).toHaveLength(1);
  });

  it("spells one key for every way of writing a reading", () => {
    expect(searchKey("ちょう")).toBe(searchKey("チヨウ"));
    expect(searchKey("ユーエフジェイ")).toBe(searchKey("ユ－エフジエイ"));
  });

  it("shows names in full, as customers know them", () => {
    expect(bankDisplayName(master["0001"])).toBe("みずほ銀行");
    expect(bankDisplayName(master["9900"])).toBe("ゆうちょ銀行");
    expect(bankDisplayName(master["1001"])).toBe("北海道信金");
    expect(branchDisplayName("0001", master["0001"].branches["210"])).toBe("渋谷支店");
    expect(branchDisplayName("0001", master["0001"].branches["001"])).toBe("東京営業部");
    expect(branchDisplayName("9900", master["9900"].branches["058"])).toBe("〇五八店");
  });
});

describe("readings and common names (issue #31, finding 12)", () => {
  it("reads a bank as people do, not as the master writes it", () => {
    expect(bankReading(master["0005"])).toBe("みつびしゆーえふじぇい");
    expect(bankReading(master["9900"])).toBe("ゆうちょ");
    // Not curated: the master's own hiragana, its dash written ー.
    expect(bankReading(master["1001"])).toBe("ほつかいどうしんきん");
    expect(bankReading({ code: "1999", hira: "てすと－" })).toBe("てすとー");
    expect(branchReading({ code: "001", hira: "ゆ－" })).toBe("ゆー");
  });

  it("finds a bank by its common name or abbreviation in the real master", () => {
    const real = createRequire(import.meta.url)("zengin-code") as BankMaster;
    expect(codes(searchBanks(real, "しずぎん"))).toEqual(["0149"]);
    expect(codes(searchBanks(real, "シズギン"))).toEqual(["0149"]);
    expect(codes(searchBanks(real, "はまぎん"))).toEqual(["0138"]);
    expect(codes(searchBanks(real, "三菱UFJ"))[0]).toBe("0005");
    expect(codes(searchBanks(real, "MUFG"))).toEqual(["0005"]);
    expect(codes(searchBanks(real, "みずほ"))[0]).toBe("0001");
    expect(codes(searchBanks(real, "ゆうちょ"))[0]).toBe("9900");
    expect(codes(searchBanks(real, "郵便局"))).toEqual(["9900"]);
    expect(bankReading(real["0005"])).toBe("みつびしゆーえふじぇい");
    expect(bankReading(real["0149"])).toBe("しずおか");
    // No reading keeps the master's － or a half-/full-width letter.
    for (const bank of Object.values(real)) expect(bankReading(bank)).not.toMatch(/[－Ａ-Ｚａ-ｚ]/);
  });
});
