import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeDebitFile, encodeDebitFile } from "../domain/zengin-debit-file.js";
import { jstInstant } from "../domain/jst.js";
import { sandboxForcesRefundFailure } from "../domain/refund.js";
import { decodeTransferFile, encodeTransferFile } from "../domain/zengin-transfer-file.js";
import { zenginResultOfAccount } from "../domain/zengin-result.js";
import { findRefund } from "../storage/refunds.js";
import type { Transactor } from "../storage/transactor.js";
import {
  bookSimulatedTransfer,
  findContract,
  findSentFileByName,
  itemsOfFile,
  simulatedResultMinutes,
} from "../storage/zengin.js";
import { isExchangeFileName, writeAtomically } from "./zengin-transport.js";
import { minutesMs } from "../domain/duration.js";

/** The result file's name for a request file: Z91_… → R91_…. */
export function resultNameOf(requestName: string): string {
  return `R${requestName.slice(1)}`;
}

/**
 * ZENGIN_SIMULATED_BANK=on (sandbox): reads the request files in outgoing/ and, once the clock
 * reaches their date's settlement time (17:00 JST unless SandboxService.ConfigureZenginBank
 * moved it), writes each one's result into incoming/. Debits are booked on
 * the simulated accounts: no account 2 (取引なし), the magic numbers 999999N result N, a
 * rejecting account 9, too small a balance 1 (資金不足), else 0 and the balance goes down; a
 * contract in the failures_only result style is answered with the failed debits alone.
 * Transfers (refunds) are credited, 0; a refund with metadata sandboxRefundOutcome=fail, or to an
 * account that no longer exists, is answered 9 / 2 and fails. Returns the names written.
 */
export async function answerRequestFiles(tx: Transactor, dir: string, now: Date): Promise<string[]> {
  const names = await readdir(join(dir, "outgoing")).catch(() => [] as string[]);
  const written: string[] = [];
  for (const name of names.filter(isExchangeFileName)) {
    const resultName = resultNameOf(name);
    if (["incoming", "archive", "quarantine"].some((folder) => existsSync(join(dir, folder, resultName)))) continue;
    const sent = await findSentFileByName(tx.db, name);
    if (!sent || sent.state !== "sent") continue;
    const delayMs = minutesMs(await simulatedResultMinutes(tx.db, sent.merchantId));
    if (now.getTime() < jstInstant(sent.date).getTime() + delayMs) continue;
    const bytes = await readFile(join(dir, "outgoing", name));
    const at = now.toISOString();
    // Booked under our reference (trx-*, rfd-*), as the instant simulated bank books: reconcile reads one ledger.
    const items = new Map(
      (await itemsOfFile(tx.db, sent.kind === "91" ? "zengin_debits" : "zengin_transfers", sent.id)).map((item) => [
        item.customerNumber,
        item,
      ]),
    );
    const book = (
      record: { bankCode: string; branchCode: string; accountNumber: string; customerNumber: string },
      signedAmount: number,
      decide: Parameters<typeof bookSimulatedTransfer>[1]["decide"],
    ) =>
      bookSimulatedTransfer(tx, {
        merchantId: sent.merchantId,
        bankCode: record.bankCode,
        branchCode: record.branchCode,
        accountNumber: record.accountNumber,
        signedAmount,
        reference: items.get(record.customerNumber)?.reference ?? `zengin:${name}:${record.customerNumber}`,
        at,
        decide,
      });
    let answer: Buffer;
    if (sent.kind === "91") {
      const request = decodeDebitFile(bytes, false);
      if (!request.ok) continue;
      const records = [];
      for (const record of request.file.records) {
        const resultCode = await book(record, -record.amount, (account) => {
          const magic = zenginResultOfAccount(account.details.accountNumber);
          if (magic) return magic.code;
          if (account.reject) return 9;
          return Number(account.balance) < record.amount ? 1 : 0;
        });
        records.push({ ...record, resultCode });
      }
      // In the style of the contract's bank: every debit, or only the failed ones.
      const style = (await findContract(tx.db, sent.contractCode))?.resultStyle;
      answer = encodeDebitFile({ ...request.file, records }, true, style);
    } else {
      const request = decodeTransferFile(bytes);
      if (!request.ok) continue;
      const records = [];
      for (const record of request.file.records) {
        const refund = await findRefund(tx.db, items.get(record.customerNumber)?.reference ?? "");
        const resultCode =
          refund && sandboxForcesRefundFailure(refund.metadata) ? 9 : await book(record, record.amount, () => 0);
        records.push({ ...record, resultCode });
      }
      answer = encodeTransferFile({ ...request.file, records });
    }
    await writeAtomically(join(dir, "incoming"), resultName, answer);
    written.push(resultName);
  }
  return written;
}
