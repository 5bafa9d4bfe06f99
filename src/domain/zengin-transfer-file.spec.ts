import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  decodeTransferFile,
  encodeTransferFile,
  openTransferBatches,
  type TransferFile,
} from "./zengin-transfer-file.js";
import { encodeRecords } from "./zengin-record.js";

const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/zengin/${name}`, import.meta.url));

const request: TransferFile = {
  requester: {
    code: "1234567890",
    name: "ﾌﾘｺﾐ ｼﾖｳｼﾞ",
    bankCode: "0184",
    bankName: "ﾐﾔｻﾞｷ",
    branchCode: "001",
    branchName: "ﾎﾝﾃﾝ",
    accountType: 1,
    accountNumber: "1234567",
  },
  transferDate: "1201",
  records: [
    {
      bankCode: "0001",
      bankName: "",
      branchCode: "123",
      branchName: "",
      accountType: 1,
      accountNumber: "0012345",
      payee: "ﾔﾏﾀﾞ ﾀﾛｳ",
      amount: 500,
      customerNumber: "00000000010000000002",
      resultCode: undefined,
    },
  ],
};

const blanks = (n: number) => " ".repeat(n);

/**
 * By hand from the published 総合振込 layout: header as the debit file's with 種別 21, data
 * 1+4+15+3+15+4+1+7+30+10+1+10+10+1+1+7, trailer 1+6+12+101, end 1+119.
 */
const data = (result: string) =>
  "2" +
  "0001" +
  blanks(15) +
  "123" +
  blanks(15) +
  "0000" +
  "1" +
  "0012345" +
  "ﾔﾏﾀﾞ ﾀﾛｳ".padEnd(30) +
  "0000000500" +
  "0" +
  "0000000001" +
  "0000000002" +
  "7" +
  " " +
  result +
  blanks(6);
const lines = (result: string) => [
  "1" +
    "21" +
    "0" +
    "1234567890" +
    "ﾌﾘｺﾐ ｼﾖｳｼﾞ".padEnd(40) +
    "1201" +
    "0184" +
    "ﾐﾔｻﾞｷ".padEnd(15) +
    "001" +
    "ﾎﾝﾃﾝ".padEnd(15) +
    "1" +
    "1234567" +
    blanks(17),
  data(result),
  "8" + "000001" + "000000000500" + blanks(101),
  "9" + blanks(119),
];

describe("the credit-transfer file (種別 21)", () => {
  it("writes the request byte for byte as the layout says (golden file)", () => {
    for (const line of lines(" ")) expect(line).toHaveLength(120);
    const bytes = encodeTransferFile(request);
    expect(bytes.equals(encodeRecords(lines(" ")))).toBe(true);
    expect(bytes.equals(fixture("transfer-request.txt"))).toBe(true);
  });

  it("reads the bank's answer: the result in the first byte of the last blank field", () => {
    const answer = decodeTransferFile(encodeRecords(lines("1")));
    expect(answer).toMatchObject({
      ok: true,
      file: { records: [{ customerNumber: "00000000010000000002", resultCode: 1 }] },
    });
    expect(decodeTransferFile(encodeRecords(lines(" ")))).toMatchObject({
      ok: true,
      file: { records: [{ resultCode: undefined }] },
    });
  });

  it("refuses a trailer that does not add up", () => {
    const bad = lines("0");
    bad[2] = `8000001000000000501${blanks(101)}`;
    const decoded = decodeTransferFile(encodeRecords(bad));
    expect(decoded.ok ? "accepted" : decoded.reason).toMatch(/total is 501/);
  });
});

describe("the bank's answer in the wild (docs/operations/zengin.md#result-files-in-the-wild)", () => {
  it("accepts LF-only line ends with a final 0x1A and several batches, and refuses a result that is not a digit", () => {
    const one = lines("0");
    const batches = openTransferBatches(encodeRecords([...one.slice(0, 3), ...one]));
    expect(batches.ok && batches.file.map((batch) => [batch.date, batch.count])).toEqual([
      ["1201", 1],
      ["1201", 1],
    ]);
    const answer = decodeTransferFile(Buffer.concat([encodeRecords(one).subarray(0, -2), Buffer.from("\x1a")]));
    expect(answer).toMatchObject({ ok: true, file: { records: [{ resultCode: 0 }] } });
    const lf = Buffer.from([...encodeRecords(lines("N"))].filter((byte) => byte !== 0x0d));
    const refused = decodeTransferFile(lf);
    expect(refused.ok ? "accepted" : refused.reason).toBe(
      'record 2 (customer code 00000000010000000002): result "N" is unknown',
    );
  });
});
