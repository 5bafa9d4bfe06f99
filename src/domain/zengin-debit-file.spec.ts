import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type DebitFile,
  decodeDebitFile,
  decodeFailuresOnlyResult,
  encodeDebitFile,
  openDebitBatches,
  openDebitFile,
  readWhole,
} from "./zengin-debit-file.js";
import { encodeRecords, openRecords } from "./zengin-record.js";

const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/zengin/${name}`, import.meta.url));

const consignor = {
  code: "1234567890",
  name: "ﾌﾘｺﾐ ｼﾖｳｼﾞ",
  bankCode: "0184",
  bankName: "ﾐﾔｻﾞｷ",
  branchCode: "001",
  branchName: "ﾎﾝﾃﾝ",
  accountType: 1,
  accountNumber: "1234567",
};

const request: DebitFile = {
  consignor,
  debitDate: "1127",
  records: [
    {
      bankCode: "0001",
      bankName: "ﾐｽﾞﾎ",
      branchCode: "123",
      branchName: "ｼﾌﾞﾔ",
      accountType: 1,
      accountNumber: "0012345",
      holder: "ﾔﾏﾀﾞ ﾀﾛｳ",
      amount: 1500,
      newCode: 1,
      customerNumber: "00000000000000000001",
      resultCode: 0,
    },
    {
      bankCode: "0005",
      bankName: "",
      branchCode: "010",
      branchName: "",
      accountType: 2,
      accountNumber: "7654321",
      holder: "ｽｽﾞｷ ﾊﾅｺ",
      amount: 98765,
      newCode: 0,
      customerNumber: "00000000000000000002",
      resultCode: 0,
    },
  ],
};

const answered: DebitFile = {
  ...request,
  records: [request.records[0], { ...request.records[1], resultCode: 1 }],
};

const blanks = (n: number) => " ".repeat(n);

/**
 * The records written out by hand, field by field, from the published 預金口座振替 layout (the
 * 全銀協規定形式 tables in banks' EB manuals: header 1+2+1+10+40+4+4+15+3+15+1+7+17, data
 * 1+4+15+3+15+4+1+7+30+10+1+20+1+8, trailer 1+6+12+6+12+6+12+65, end 1+119).
 */
const handWritten = {
  header:
    "1" +
    "91" +
    "0" +
    "1234567890" +
    "ﾌﾘｺﾐ ｼﾖｳｼﾞ".padEnd(40) +
    "1127" +
    "0184" +
    "ﾐﾔｻﾞｷ".padEnd(15) +
    "001" +
    "ﾎﾝﾃﾝ".padEnd(15) +
    "1" +
    "1234567" +
    blanks(17),
  first:
    "2" +
    "0001" +
    "ﾐｽﾞﾎ".padEnd(15) +
    "123" +
    "ｼﾌﾞﾔ".padEnd(15) +
    blanks(4) +
    "1" +
    "0012345" +
    "ﾔﾏﾀﾞ ﾀﾛｳ".padEnd(30) +
    "0000001500" +
    "1" +
    "00000000000000000001" +
    "0" +
    blanks(8),
  second: (result: string) =>
    "2" +
    "0005" +
    blanks(15) +
    "010" +
    blanks(15) +
    blanks(4) +
    "2" +
    "7654321" +
    "ｽｽﾞｷ ﾊﾅｺ".padEnd(30) +
    "0000098765" +
    "0" +
    "00000000000000000002" +
    result +
    blanks(8),
  requestTrailer: "8" + "000002" + "000000100265" + "000000" + "000000000000" + "000000" + "000000000000" + blanks(65),
  resultTrailer: "8" + "000002" + "000000100265" + "000001" + "000000001500" + "000001" + "000000098765" + blanks(65),
  end: "9" + blanks(119),
};

describe("the account-debit file (種別 91)", () => {
  it("writes the request byte for byte as the layout says (golden file)", () => {
    const lines = [
      handWritten.header,
      handWritten.first,
      handWritten.second("0"),
      handWritten.requestTrailer,
      handWritten.end,
    ];
    for (const line of lines) expect(line).toHaveLength(120);
    const bytes = encodeDebitFile(request);
    expect(bytes.equals(encodeRecords(lines))).toBe(true);
    expect(bytes.equals(fixture("debit-request.txt"))).toBe(true);
    expect(bytes).toHaveLength(5 * 122);
    // Half-width kana are one Shift_JIS byte each: ﾌ is 0xCC, ﾞ 0xDE; records end in CR LF.
    expect(bytes.subarray(14, 16)).toEqual(Buffer.from([0xcc, 0xd8]));
    expect(bytes[120]).toBe(0x0d);
    expect(bytes[121]).toBe(0x0a);
  });

  it("writes a result with its codes and the 振替済/振替不能 totals (golden file)", () => {
    const bytes = encodeDebitFile(answered, true);
    const lines = [
      handWritten.header,
      handWritten.first,
      handWritten.second("1"),
      handWritten.resultTrailer,
      handWritten.end,
    ];
    expect(bytes.equals(encodeRecords(lines))).toBe(true);
    expect(bytes.equals(fixture("debit-result.txt"))).toBe(true);
  });

  it("writes a failures-only result: the failed records alone, under the trailer of the whole request (golden)", () => {
    const bytes = encodeDebitFile(answered, true, "failures_only");
    const lines = [handWritten.header, handWritten.second("1"), handWritten.resultTrailer, handWritten.end];
    expect(bytes.equals(encodeRecords(lines))).toBe(true);
  });

  it("checks a failures-only trailer against the listed records and the debits not listed", () => {
    const opened = openDebitFile(encodeDebitFile(answered, true, "failures_only"), true);
    if (!opened.ok) throw new Error(opened.reason);
    const tally = opened.file.tally();
    const listed = opened.file.record(0);
    if (!listed.ok) throw new Error(listed.reason);
    tally.add(listed.record);
    expect(tally.mismatch({ count: 1, amount: 1500 })).toBeUndefined();
    // Read as a file that lists every debit, the trailer's 2 debits are 1 record.
    expect(tally.mismatch()).toBe("the trailer's count is 2, the records make 1");
    expect(tally.mismatch({ count: 1, amount: 1499 })).toBe(
      "the trailer's total is 100265, the listed records and the 1 debits not listed make 100264",
    );
  });

  it("reads a failures-only result back without its request, the debits not listed taken from the trailer", () => {
    const bytes = encodeDebitFile(answered, true, "failures_only");
    expect(decodeFailuresOnlyResult(bytes)).toEqual({
      ok: true,
      file: { ...answered, records: [answered.records[1]], unlisted: { count: 1, amount: 1500 } },
    });
    // Read as a result that lists every debit, its trailer does not match.
    expect(decodeDebitFile(bytes, true)).toEqual({ ok: false, reason: "the trailer's count is 2, the records make 1" });
    // A trailer whose 振替済 is not the debits left out is refused.
    const noneDebited = `8000002000000100265${"0".repeat(18)}000001000000098765${blanks(65)}`;
    const lines = [handWritten.header, handWritten.second("1"), noneDebited, handWritten.end];
    expect(decodeFailuresOnlyResult(encodeRecords(lines))).toEqual({
      ok: false,
      reason: "the trailer's debitedCount is 0, the listed records and the 1 debits not listed make 1",
    });
  });

  it("reads back what it wrote", () => {
    expect(decodeDebitFile(fixture("debit-request.txt"), false)).toEqual({ ok: true, file: request });
    expect(decodeDebitFile(fixture("debit-result.txt"), true)).toEqual({ ok: true, file: answered });
  });

  it("accepts records with no separator, as banks do", () => {
    const unseparated = Buffer.from([...fixture("debit-result.txt")].filter((_, index) => index % 122 < 120));
    expect(decodeDebitFile(unseparated, true)).toEqual({ ok: true, file: answered });
  });

  it("refuses what a bank could not have meant", () => {
    const result = fixture("debit-result.txt");
    const reasonOf = (bytes: Uint8Array) => {
      const decoded = decodeDebitFile(bytes, true);
      return decoded.ok ? "accepted" : decoded.reason;
    };
    // A short record.
    expect(reasonOf(Buffer.concat([result.subarray(0, 121), result.subarray(122)]))).toMatch(
      /not a whole number|CR LF/,
    );
    // Truncated after the data records.
    expect(reasonOf(result.subarray(0, 3 * 122))).toMatch(/truncated/);
    // A double-byte Shift_JIS character (ア = 0x83 0x41) in a name.
    const sjis = Buffer.from(result);
    sjis[14] = 0x83;
    sjis[15] = 0x41;
    expect(reasonOf(sjis)).toMatch(/byte 15 \(0x83\) is not a JIS X 0201 character/);
    // A lone LF in place of CR LF.
    const lf = Buffer.from(result);
    lf[120] = 0x20;
    expect(reasonOf(lf)).toMatch(/CR LF/);
    // Trailer totals that do not add up.
    const opened = openRecords(result);
    if (!opened.ok) throw new Error(opened.reason);
    const badTotal = Array.from({ length: opened.records.count }, (_, i) => opened.records.record(i));
    badTotal[3] = `8000002000000100266${badTotal[3].slice(19)}`;
    expect(reasonOf(encodeRecords(badTotal))).toMatch(/trailer's total is 100266/);
    // A data record where the trailer should be, and a header of another kind.
    expect(
      reasonOf(Buffer.concat([result.subarray(0, 3 * 122), result.subarray(122, 244), result.subarray(4 * 122)])),
    ).toMatch(/not a trailer/);
    const kind21 = Buffer.from(result);
    kind21.write("21", 1, "latin1");
    expect(reasonOf(kind21)).toMatch(/種別コード is 21/);
    // A letter in an amount.
    const letters = Buffer.from(result);
    letters.write("A", 122 + 85, "latin1");
    expect(reasonOf(letters)).toMatch(/amount/);
    expect(reasonOf(Buffer.alloc(0))).toMatch(/empty/);
  });

  it("opens a file without decoding its records, then reads them one at a time", () => {
    const opened = openDebitFile(fixture("debit-result.txt"), true);
    if (!opened.ok) throw new Error(opened.reason);
    const file = opened.file;
    expect([file.consignor, file.date, file.count]).toEqual([consignor, "1127", 2]);
    expect(file.record(1)).toEqual({ ok: true, record: answered.records[1] });
    const tally = file.tally();
    tally.add(answered.records[0]);
    // The trailer counts two records, one of them 振替不能: one record read is not enough.
    expect(tally.mismatch()).toMatch(/the trailer's count is 2, the records make 1/);
    tally.add(answered.records[1]);
    expect(tally.mismatch()).toBeUndefined();
  });

  it("refuses to write what the Zengin character set cannot carry", () => {
    expect(() => encodeDebitFile({ ...request, consignor: { ...consignor, name: "ﾌﾘｺﾐ・ｼﾖｳｼﾞ" } })).toThrow(
      /character set/,
    );
    expect(() => encodeDebitFile({ ...request, consignor: { ...consignor, name: "ふりこみ" } })).toThrow(
      /character set/,
    );
    expect(() => encodeDebitFile({ ...request, records: [{ ...request.records[0], amount: 12_345_678_901 }] })).toThrow(
      /at most 10 digits/,
    );
  });
});

describe("result files in the wild (docs/operations/zengin.md#result-files-in-the-wild)", () => {
  const result = fixture("debit-result.txt");
  const lfOnly = Buffer.from([...result].filter((byte) => byte !== 0x0d));
  const reasonOf = (bytes: Uint8Array) => {
    const decoded = decodeDebitFile(bytes, true);
    return decoded.ok ? "accepted" : decoded.reason;
  };

  it.each([
    ["a final EOF byte 0x1A", Buffer.concat([result, Buffer.from([0x1a])])],
    ["no CR LF after the end record", result.subarray(0, result.length - 2)],
    ["no CR LF after the end record, then 0x1A", Buffer.concat([result.subarray(0, -2), Buffer.from([0x1a])])],
    ["LF-only line ends", lfOnly],
    ["LF-only line ends, the last one missing", lfOnly.subarray(0, -1)],
    ["trailing blank lines", Buffer.concat([result, Buffer.from("\r\n\r\n")])],
    ["trailing blank LF lines and 0x1A", Buffer.concat([lfOnly, Buffer.from("\n\n\x1a")])],
  ])("accepts %s", (_, bytes) => {
    expect(decodeDebitFile(bytes, true)).toEqual({ ok: true, file: answered });
  });

  it("refuses only what is wrong: a blank line between records, a lone CR, a 0x1A before the end", () => {
    const blankInside = Buffer.concat([result.subarray(0, 122), Buffer.from("\r\n"), result.subarray(122)]);
    expect(reasonOf(blankInside)).toMatch(/a blank line follows record 1/);
    const loneCr = Buffer.from([...result].filter((byte, index) => !(byte === 0x0a && index === 121)));
    expect(reasonOf(loneCr)).toMatch(/record 1 is not 120 bytes followed by CR LF/);
    const eofInside = Buffer.concat([result.subarray(0, 122), Buffer.from([0x1a]), result.subarray(122)]);
    expect(reasonOf(eofInside)).not.toBe("accepted");
    expect(reasonOf(Buffer.from("\r\n\x1a"))).toMatch(/empty/);
    const short = Buffer.concat([result.subarray(0, 200), result.subarray(201)]);
    expect(reasonOf(short)).toBe("record 2 is 119 bytes, not 120");
  });

  it("refuses a result code outside the published list (an agent's `N`), naming the record", () => {
    for (const code of ["N", "5", " "]) {
      const bytes = Buffer.from(result);
      bytes.write(code, 2 * 122 + 111, "latin1");
      expect(reasonOf(bytes)).toBe(`record 3: 振替結果コード "${code}" is unknown`);
    }
  });

  it("opens several header–trailer groups (batches) in one file, each with its consignor and date", () => {
    const opened = openRecords(result);
    if (!opened.ok) throw new Error(opened.reason);
    const lines = Array.from({ length: opened.records.count }, (_, i) => opened.records.record(i));
    const second = [`${lines[0].slice(0, 54)}1204${lines[0].slice(58)}`, lines[1], lines[3]].map((line, index) =>
      index === 2 ? `8000001000000001500000001000000001500000000000000000000${line.slice(55)}` : line,
    );
    const twoBatches = encodeRecords([...lines.slice(0, 4), ...second, lines[4]]);
    const batches = openDebitBatches(twoBatches, true);
    if (!batches.ok) throw new Error(batches.reason);
    expect(batches.file.map((batch) => [batch.consignor.code, batch.date, batch.count])).toEqual([
      ["1234567890", "1127", 2],
      ["1234567890", "1204", 1],
    ]);
    expect(readWhole(batches.file[1])).toEqual({ ok: true, records: [answered.records[0]] });
    // An end record after each trailer, as some writers do, is the same file.
    const endEach = encodeRecords([...lines.slice(0, 5), ...second, lines[4]]);
    const again = openDebitBatches(endEach, true);
    expect(again.ok && again.file.length).toBe(2);
    // The second batch's records are numbered in the whole file.
    const bad = [
      ...lines.slice(0, 4),
      second[0],
      `${second[1].slice(0, 111)}N${second[1].slice(112)}`,
      second[2],
      lines[4],
    ];
    const badBatches = openDebitBatches(encodeRecords(bad), true);
    if (!badBatches.ok) throw new Error(badBatches.reason);
    expect(readWhole(badBatches.file[1])).toEqual({ ok: false, reason: 'record 6: 振替結果コード "N" is unknown' });
    // One batch is what the single-batch readers take; a header with no trailer is refused.
    expect(reasonOf(twoBatches)).toMatch(/holds 2 batches/);
    expect(reasonOf(encodeRecords([...lines.slice(0, 4), second[0], second[1], lines[4]]))).toMatch(
      /record 7 is not a trailer/,
    );
  });
});
