/** The bank's side of a Zengin exchange in the benches (bench/zengin-files.ts, bench/debit-day.ts). */
import { readFileSync, writeFileSync } from "node:fs";
import { debitTrailerRecord } from "../src/domain/zengin-debit-file.js";

/** Writes the bank's answer to a request file; returns the request's size. */
export function writeAnswer(requestPath: string, answerPath: string): number {
  const request = readFileSync(requestPath);
  writeFileSync(answerPath, answerOf(request));
  return request.length;
}

/**
 * The bank's answer, made from the request's bytes as a bank would (every 10th debit 資金不足):
 * each record's 振替結果コード set in place and the trailer's totals, never 100,000 objects
 * alive while the import is measured.
 */
function answerOf(request: Buffer): Buffer {
  const stride = 122;
  const answer = Buffer.from(request);
  const records = answer.length / stride;
  const totals = { count: 0, total: 0, debitedCount: 0, debitedAmount: 0, failedCount: 0, failedAmount: 0 };
  for (let index = 1; index < records - 2; index++) {
    const at = index * stride;
    const amount = Number(answer.toString("latin1", at + 80, at + 90));
    const failed = (index - 1) % 10 === 0;
    answer.write(failed ? "1" : "0", at + 111, "latin1");
    totals.count++;
    totals.total += amount;
    if (failed) {
      totals.failedCount++;
      totals.failedAmount += amount;
    } else {
      totals.debitedCount++;
      totals.debitedAmount += amount;
    }
  }
  answer.write(debitTrailerRecord(totals), (records - 2) * stride, "latin1");
  return answer;
}
