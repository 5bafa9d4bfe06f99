import { describe, expect, it } from "vitest";
import { emailPrefixKey, kanaKey, nameKey } from "./customer-search.js";

describe("customer search keys", () => {
  it("folds hiragana, half-width kana and spaces into full-width katakana", () => {
    expect(kanaKey("さとう はなこ")).toBe("サトウハナコ");
    expect(kanaKey("ｻﾄｳ　ﾊﾅｺ")).toBe("サトウハナコ");
    expect(kanaKey("ガッコウ")).toBe("ガッコウ");
  });

  it("compares e-mail prefixes and names case-insensitively", () => {
    expect(emailPrefixKey("  Hana ")).toBe("hana");
    expect(nameKey(" Ｓａｔｏ Hanako ")).toBe("sato hanako");
  });
});
