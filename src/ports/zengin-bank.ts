import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import type { Config } from "../config.js";
import { bankCalendar } from "../domain/bank-calendar.js";
import { effectiveAccountType } from "../domain/bank-account.js";
import { japaneseNationalHolidays } from "./national-holidays.js";
import { normaliseBankKana } from "../domain/kana.js";
import { errorTypeMessages } from "../domain/payment-failure.js";
import { debitDateOf, monthlyDebitDateOf, type ZenginTimetable } from "../domain/zengin-schedule.js";
import { findBankAccountById } from "../storage/bank-accounts.js";
import type { Transactor } from "../storage/transactor.js";
import type { ZenginItemKind } from "../domain/zengin-records.js";
import { hasEarlierDebit, hasItem, insertItem, listContracts } from "../storage/zengin.js";
import { contractFor } from "../domain/contract-scope.js";
import type { BankGateway, BankRequest, BankResult } from "./bank-gateway.js";

/**
 * The Zengin file exchange as the bank gateway (BANK_CONNECTOR=zengin): a debit or a refund is
 * not booked at once but scheduled for the merchant's next request file (種別 91 for a debit on
 * its debit date, 種別 21 for a refund at the next cutoff); the result file settles it
 * (flows/zengin-result-import.ts). The reference (trx-*, rfd-*) keys the item, so asking twice schedules once.
 */
export class ZenginBank implements BankGateway {
  readonly #calendar;

  constructor(
    private readonly tx: Transactor,
    private readonly config: Config,
  ) {
    this.#calendar = bankCalendar([...japaneseNationalHolidays, ...config.bankExtraHolidays]);
  }

  /**
   * Nothing is booked before the result file: a debit cancelled before its file is left out of it
   * (refundCharge), a transfer recorded as failed never credited anything.
   */
  async reverseBooking(): Promise<void> {}

  debit(request: BankRequest) {
    return this.#schedule("zengin_debits", request);
  }

  refund(request: BankRequest) {
    return this.#schedule("zengin_transfers", request);
  }

  async #schedule(table: ZenginItemKind, request: BankRequest): Promise<BankResult> {
    const db = this.tx.db;
    if (await hasItem(db, table, request.reference)) return { ok: false, scheduled: true };
    const contracts = await listContracts(db, request.merchantId);
    if (contracts.length === 0)
      return refusal(
        "the merchant has no Zengin consignor contract (zengin contracts add, or merchants update --consignor-…)",
      );
    // The charge's account: the one its contract was approved with, or its link approved.
    const account = (await findBankAccountById(db, request.accountId))?.details;
    if (!account) return refusal("no bank account linked");
    // The contract whose file carries it (docs/guide/direct-debit-files.md#contracts). Linking
    // refuses an account outside them; one linked before a contract changed is refused here.
    const consignor = contractFor(contracts, account.bankCode);
    if (!consignor) return refusal(`none of the merchant's consignor contracts covers bank ${account.bankCode}`);
    // Linking keeps the holder in the bank's half-width form; older rows are normalised here.
    const holder = normaliseBankKana(account.accountHolder);
    if (!holder.ok) return refusal(`the account holder cannot be written in a Zengin file: ${holder.reason}`);
    const debit = table === "zengin_debits";
    // 新規コード 1: the first debit under this account's mandate registers it at the bank.
    const earlier = debit && (await hasEarlierDebit(db, request.merchantId, account));
    await this.tx.write((trx) =>
      insertItem(trx, table, {
        reference: request.reference,
        merchantId: request.merchantId,
        contractCode: consignor.code,
        // A refund goes into the transfer file of the next cutoff, paid the business day after it.
        date: !debit
          ? debitDateOf(request.at, { ...timetableOf(this.config), leadDays: 1 }, this.#calendar)
          : consignor.debitDay > 0
            ? monthlyDebitDateOf(request.at, consignor.debitDay, timetableOf(this.config), this.#calendar)
            : debitDateOf(request.at, timetableOf(this.config), this.#calendar),
        state: "scheduled",
        fileId: null,
        customerNumber: null,
        amount: request.amount,
        newCode: debit && !earlier ? 1 : 0,
        // Sealed as the file will carry it (storage/zengin.ts). BankAccountType's numbers are the
        // Zengin 預金種目 codes (1 普通, 2 当座, 4 貯蓄).
        account: {
          bankCode: account.bankCode,
          branchCode: account.branchCode,
          accountType: effectiveAccountType(account.accountType),
          accountNumber: account.accountNumber.padStart(7, "0"),
          accountHolder: holder.value,
        },
        resultCode: null,
        createdAt: request.at,
        updatedAt: request.at,
      }),
    );
    return { ok: false, scheduled: true };
  }
}

export function timetableOf(config: Config): ZenginTimetable {
  return {
    leadDays: config.zengin.leadDays,
    fileCutoff: config.zengin.fileCutoff,
    resultDeadlineDays: config.zengin.resultDeadlineDays,
  };
}

function refusal(detail: string): BankResult {
  const errorType = ErrorType.PAYMENT_GATEWAY_FAILED;
  return { ok: false, errorType, message: `${errorTypeMessages[errorType]} (${detail})`, retryable: false };
}
