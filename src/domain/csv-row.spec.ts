import { describe, expect, it } from "vitest";
import {
  checkCsvRow,
  checkCsvRows,
  csvRowReasons,
  csvRowReasonsJa,
  parseCsvMetadata,
  rowsSharingCustomer,
} from "./csv-row.js";

const row = (
  overrides: Partial<Record<"email" | "id" | "price" | "description" | "metadata" | "key", string>> = {},
) => [
  overrides.email ?? "taro@example.jp",
  overrides.id ?? "",
  overrides.price ?? "1200",
  overrides.description ?? "Monthly box",
  overrides.metadata ?? "",
  overrides.key ?? "",
];
const reasonOf = (cells: string[], columns = 6) => {
  const check = checkCsvRow(cells, columns);
  return check.valid ? undefined : check.reason;
};

describe("checkCsvRow", () => {
  it("accepts a complete row, trimming cells", () => {
    const check = checkCsvRow(
      [" taro@example.jp ", " cus-abc ", " 1200 ", " Box ", " plan = gold ; size=L; ", " order-1 "],
      6,
    );
    expect(check).toEqual({
      valid: true,
      row: {
        email: "taro@example.jp",
        customerId: "cus-abc",
        price: 1200,
        description: "Box",
        metadata: { plan: "gold", size: "L" },
        idempotencyKey: "order-1",
      },
    });
    expect(checkCsvRow(row().slice(0, 5), 5)).toMatchObject({
      valid: true,
      row: { customerId: undefined, idempotencyKey: undefined },
    });
  });

  it.each([
    ["a missing cell", row().slice(0, 5), csvRowReasons.columnCount(6, 5)],
    ["an extra cell", [...row(), "x"], csvRowReasons.columnCount(6, 7)],
    ["no e-mail", row({ email: " " }), csvRowReasons.emailRequired],
    ["a malformed e-mail", row({ email: "taro@" }), csvRowReasons.emailInvalid],
    ["an e-mail with a space", row({ email: "ta ro@example.jp" }), csvRowReasons.emailInvalid],
    ["a customer_id without cus-", row({ id: "con-123" }), csvRowReasons.customerIdPrefix],
    ["a decimal price", row({ price: "12.5" }), csvRowReasons.priceNotInteger],
    ["a price with a separator", row({ price: "1,200" }), csvRowReasons.priceNotInteger],
    ["a negative price", row({ price: "-5" }), csvRowReasons.priceNotInteger],
    ["an empty price", row({ price: "" }), csvRowReasons.priceNotInteger],
    ["a zero price", row({ price: "0" }), csvRowReasons.priceOutOfBounds],
    ["a price above 10,000,000", row({ price: "10000001" }), csvRowReasons.priceOutOfBounds],
    ["no description", row({ description: "" }), csvRowReasons.descriptionRequired],
    ["a description of 256 characters", row({ description: "あ".repeat(256) }), csvRowReasons.descriptionTooLong],
    ["metadata without =", row({ metadata: "gold" }), csvRowReasons.metadataFormat],
    ["metadata with an empty key", row({ metadata: "=gold" }), csvRowReasons.metadataEmptyKey],
    ["metadata with = in a value", row({ metadata: "plan=a=b" }), csvRowReasons.metadataEquals],
    ["metadata with a key twice", row({ metadata: "plan=a;plan=b" }), csvRowReasons.metadataDuplicateKey("plan")],
    ["metadata with a 41-character key", row({ metadata: `${"k".repeat(41)}=v` }), csvRowReasons.metadataTooLarge],
    ["an idempotency_key with a space", row({ key: "order 1" }), csvRowReasons.idempotencyKeyPattern],
    ["an idempotency_key of 256 characters", row({ key: "k".repeat(256) }), csvRowReasons.idempotencyKeyPattern],
  ])("refuses %s", (_name, cells, reason) => {
    expect(reasonOf(cells)).toBe(reason);
  });

  it("accepts the bounds themselves", () => {
    expect(reasonOf(row({ price: "1" }))).toBeUndefined();
    expect(reasonOf(row({ price: "10000000" }))).toBeUndefined();
    expect(reasonOf(row({ description: "あ".repeat(255) }))).toBeUndefined();
    expect(reasonOf(row({ key: "k".repeat(255) }))).toBeUndefined();
  });

  it("reports every problem of a row", () => {
    expect(reasonOf(row({ email: "", price: "abc" }))).toBe(
      `${csvRowReasons.emailRequired}; ${csvRowReasons.priceNotInteger}`,
    );
  });
});

describe("parseCsvMetadata", () => {
  it("reads key=value pairs separated by ; and ignores blank pairs", () => {
    expect(parseCsvMetadata("")).toEqual({ metadata: {} });
    expect(parseCsvMetadata("a=1;;b=;")).toEqual({ metadata: { a: "1", b: "" } });
    expect(parseCsvMetadata("triggerError=ERROR_TYPE_PAYMENT_CHARGE_FAILED")).toEqual({
      metadata: { triggerError: "ERROR_TYPE_PAYMENT_CHARGE_FAILED" },
    });
  });
});

describe("checkCsvRows", () => {
  it("fails every row of an idempotency_key used twice", () => {
    const checks = checkCsvRows(
      [
        row({ email: "a@example.jp", key: "k1" }),
        row({ email: "b@example.jp", key: "k1" }),
        row({ email: "c@example.jp", key: "k2" }),
      ],
      6,
    );
    expect(checks.map((c) => (c.valid ? "ok" : c.reason))).toEqual([
      csvRowReasons.idempotencyKeyDuplicate,
      csvRowReasons.idempotencyKeyDuplicate,
      "ok",
    ]);
  });

  it("fails every row naming the same customer, by customer_id or by e-mail (any case)", () => {
    const checks = checkCsvRows(
      [
        row({ email: "a@example.jp" }),
        row({ email: "A@Example.jp " }),
        row({ email: "x@example.jp", id: "cus-1" }),
        row({ email: "y@example.jp", id: "cus-1" }),
        row({ email: "a@example.jp", id: "cus-2" }),
      ],
      6,
    );
    expect(checks.map((c) => (c.valid ? "ok" : c.reason))).toEqual([
      csvRowReasons.sameAccount,
      csvRowReasons.sameAccount,
      csvRowReasons.sameAccount,
      csvRowReasons.sameAccount,
      "ok",
    ]);
  });

  it("adds the cross-row reason to a row's own problems", () => {
    const [first] = checkCsvRows([row({ price: "0", key: "k" }), row({ email: "b@example.jp", key: "k" })], 6);
    expect(first).toEqual({
      valid: false,
      reason: `${csvRowReasons.priceOutOfBounds}; ${csvRowReasons.idempotencyKeyDuplicate}`,
      reasonJa: `${csvRowReasonsJa.priceOutOfBounds}。${csvRowReasonsJa.idempotencyKeyDuplicate}`,
    });
  });

  it("has every reason in Japanese too", () => {
    const [invalid] = checkCsvRows([row({ email: "", price: "1.5", metadata: "a=1;a=2" })], 6);
    expect(invalid).toEqual({
      valid: false,
      reason: [
        csvRowReasons.emailRequired,
        csvRowReasons.priceNotInteger,
        csvRowReasons.metadataDuplicateKey("a"),
      ].join("; "),
      reasonJa:
        "customer_email が空です。price は円単位の整数(数字のみ)で書いてください。metadata のキー「a」が重複しています",
    });
    expect(Object.keys(csvRowReasonsJa)).toEqual(Object.keys(csvRowReasons));
  });
});

describe("rowsSharingCustomer", () => {
  it("names the rows that resolved to a customer another row also resolved to", () => {
    expect(
      rowsSharingCustomer([
        { index: 0, customerId: "cus-a" },
        { index: 2, customerId: "cus-b" },
        { index: 5, customerId: "cus-a" },
      ]),
    ).toEqual(new Set([0, 5]));
  });
});
