import { describe, expect, it } from "vitest";
import { bankAuthenticationRules, judgeBankAuthentication } from "./bank-authentication.js";

const correct = {
  pin: bankAuthenticationRules.sandboxPin,
  oneTimePassword: bankAuthenticationRules.sandboxOneTimePassword,
};

describe("judgeBankAuthentication", () => {
  it("passes the right PIN and password, asks for missing ones, counts down wrong ones", () => {
    expect(judgeBankAuthentication(correct, 0)).toEqual({ kind: "passed" });
    expect(judgeBankAuthentication({ pin: "", oneTimePassword: "123456" }, 0)).toEqual({ kind: "missing" });
    expect(judgeBankAuthentication({ ...correct, pin: "0000" }, 0)).toEqual({ kind: "wrong", attemptsLeft: 2 });
    expect(judgeBankAuthentication({ ...correct, oneTimePassword: "000000" }, 2)).toEqual({
      kind: "wrong",
      attemptsLeft: 0,
    });
  });

  it("is locked after three wrong entries, whatever is entered", () => {
    expect(judgeBankAuthentication(correct, 3)).toEqual({ kind: "locked" });
  });
});
