import { describe, expect, it } from "vitest";
import { requireSupportContact } from "./support-contact.js";

describe("a merchant's support contact", () => {
  it("accepts an e-mail, a phone number and an https URL, trimmed, or none", () => {
    expect(
      requireSupportContact({
        email: " help@shop.example.jp ",
        phone: "03-1234-5678",
        url: "https://shop.example.jp/help",
      }),
    ).toEqual({
      email: "help@shop.example.jp",
      phone: "03-1234-5678",
      url: "https://shop.example.jp/help",
    });
    expect(requireSupportContact({ email: "", phone: "", url: "" })).toEqual({ email: "", phone: "", url: "" });
  });

  it("refuses what a customer could not use, naming the field", () => {
    expect(() => requireSupportContact({ email: "help", phone: "", url: "" })).toThrow(/^email: /);
    expect(() => requireSupportContact({ email: "", phone: "call us", url: "" })).toThrow(/^phone: /);
    expect(() => requireSupportContact({ email: "", phone: "", url: "http://shop.example.jp" })).toThrow(/^url: /);
  });
});
