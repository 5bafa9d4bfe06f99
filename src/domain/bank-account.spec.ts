import { describe, expect, it } from "vitest";
import { BankAccountType } from "../../gen/payments/v1/enums_pb.js";
import {
  accountIdentity,
  canonicalAccount,
  maskAccountNumber,
  parseAccount,
  serialiseAccount,
  summariseAccount,
} from "./bank-account.js";

const account = {
  bankCode: "0001",
  branchCode: "210",
  accountType: BankAccountType.ORDINARY,
  accountNumber: "1234567",
  accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ",
};

describe("the account as it leaves the service", () => {
  it("is masked to its last three digits, with the bank's and branch's names in full", () => {
    expect(maskAccountNumber("1234567")).toBe("****567");
    expect(summariseAccount(account, { bankName: "みずほ銀行", branchName: "渋谷支店" })).toEqual({
      bankCode: "0001",
      bankName: "みずほ銀行",
      branchCode: "210",
      branchName: "渋谷支店",
      accountType: BankAccountType.ORDINARY,
      maskedAccountNumber: "****567",
      display: "みずほ銀行 渋谷支店 普通 ****567",
    });
    const current = { ...account, accountType: BankAccountType.CURRENT };
    expect(summariseAccount(current, { bankName: "ゆうちょ銀行", branchName: "〇五九店" }).display).toBe(
      "ゆうちょ銀行 〇五九店 当座 ****567",
    );
    // Unspecified is ordinary; a code stands in for a name the master does not have.
    const plain = { ...account, accountType: BankAccountType.UNSPECIFIED, bankCode: "9901", branchCode: "001" };
    expect(summariseAccount(plain, { bankName: "", branchName: "" }).display).toBe("9901 001 普通 ****567");
  });

  it("is spelled one way for its hash: every detail changes it, the spelling of the type does not", () => {
    const hash = canonicalAccount(account);
    expect(canonicalAccount({ ...account, accountType: BankAccountType.UNSPECIFIED })).toBe(hash);
    for (const change of [
      { bankCode: "0005" },
      { branchCode: "211" },
      { accountType: BankAccountType.SAVINGS },
      { accountNumber: "1234568" },
      { accountHolder: "ﾔﾏﾀﾞ ﾊﾅｺ" },
    ])
      expect(canonicalAccount({ ...account, ...change })).not.toBe(hash);
  });

  it("is the same account at the bank whatever the holder's spelling, the type or the number's zero padding", () => {
    const identity = accountIdentity(account);
    expect(accountIdentity({ ...account, accountNumber: "123456" })).toBe(
      accountIdentity({ ...account, accountNumber: "0123456" }),
    );
    const renamed = { ...account, accountHolder: "ﾍﾞﾂ ﾒｲｷﾞ" };
    expect(accountIdentity(renamed)).toBe(identity);
    expect(accountIdentity({ ...account, accountNumber: "1234568" })).not.toBe(identity);
    expect(accountIdentity({ ...account, branchCode: "211" })).not.toBe(identity);
  });

  it("round-trips through its sealed form", () => {
    expect(parseAccount(serialiseAccount(account))).toEqual(account);
  });
});
