import { describe, expect, it } from "vitest";
import { BankAccountType } from "../../gen/payments/v1/enums_pb.js";
import { accountIdentity, parseAccount, serialiseAccount } from "../domain/bank-account.js";
import { sealedItemAccount } from "./zengin-rows.js";
import { keyedHash, seal, unseal } from "./sealed.js";

const stored = {
  bankCode: "0005",
  branchCode: "001",
  accountType: BankAccountType.ORDINARY,
  accountNumber: "1234567",
  accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ",
};
const plain = serialiseAccount(stored);
const opened = { sealed: seal(plain), plain, key: keyedHash(accountIdentity(stored)) };

describe("sealedItemAccount", () => {
  it("reuses the account row's sealed text when the item carries the same details", () => {
    expect(sealedItemAccount(stored, opened)).toEqual({ account_sealed: opened.sealed, account_key: opened.key });
  });

  it("seals anew what differs from the row (a number padded, a holder normalised) and still opens to the item's details", () => {
    const short = { ...stored, accountNumber: "234567" };
    const fromRow = serialiseAccount(short);
    const item = { ...short, accountNumber: "0234567" };
    const key = keyedHash(accountIdentity(short));
    const columns = sealedItemAccount(item, { sealed: seal(fromRow), plain: fromRow, key });
    expect(columns.account_sealed).not.toBe(opened.sealed);
    expect(parseAccount(unseal(columns.account_sealed))).toEqual(parseAccount(serialiseAccount(item)));
    expect(columns.account_key).toBe(keyedHash(accountIdentity(item)));
  });

  it("seals and hashes on its own when nothing is known of the account", () => {
    const columns = sealedItemAccount(stored);
    expect(columns.account_sealed).not.toBe(opened.sealed);
    expect(unseal(columns.account_sealed)).toBe(plain);
    expect(columns.account_key).toBe(opened.key);
  });
});
