import { ChargeStatus, ErrorType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import type { Config } from "../config.js";
import { bankCalendar } from "../domain/bank-calendar.js";
import { effectiveAccountType, undebitableAccountType } from "../domain/bank-account.js";
import { japaneseNationalHolidays } from "./national-holidays.js";
import { accountHolderMaxLength, normaliseBankKana } from "../domain/kana.js";
import { errorTypeMessages } from "../domain/payment-failure.js";
import { debitDateOf, monthlyDebitDateOf, type ZenginTimetable } from "../domain/zengin-schedule.js";
import { findAccountDetailsByIds, findBankAccountById } from "../storage/bank-accounts.js";
import type { Transactor, Tx } from "../storage/transactor.js";
import { lockCharge } from "../storage/charges.js";
import { findRefund } from "../storage/refunds.js";
import type { ConsignorSettings, ZenginItemKind, ZenginItemRecord } from "../domain/zengin-records.js";
import type { OpenedItemAccount } from "../storage/zengin-rows.js";
import type { BankAccountDetails } from "../domain/bank-account.js";
import {
  findItem,
  insertItem,
  insertItems,
  itemAccountKeys,
  listContracts,
  mandateRegistered,
  registeredMandates,
} from "../storage/zengin.js";
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
    return this.tx.write((trx) => this.schedule(trx, "debit", request));
  }

  refund(request: BankRequest) {
    return this.tx.write((trx) => this.schedule(trx, "refund", request));
  }

  /**
   * Schedules the debit or transfer in the caller's transaction (the one that accepts a charge:
   * its debit date is decided there, docs/guide/direct-debit-files.md#the-life-of-a-charge). The
   * charge is locked first, as a refund locks it: a full refund either finds the debit's item and
   * cancels it, or finds none and no item is ever written for the cancelled charge; a transfer is
   * scheduled only for a refund still PENDING (a refund failed meanwhile is never paid).
   */
  async schedule(trx: Tx, kind: "debit" | "refund", request: BankRequest): Promise<BankResult> {
    const debit = kind === "debit";
    const table: ZenginItemKind = debit ? "zengin_debits" : "zengin_transfers";
    const refund = debit ? undefined : await findRefund(trx, request.reference);
    const charge = await lockCharge(this.tx, trx, debit ? request.reference : (refund?.chargeId ?? ""));
    const existing = await findItem(trx, table, request.reference);
    if (existing) return { ok: false, scheduled: true, date: existing.date ?? undefined };
    // Settled or cancelled meanwhile: nothing left to schedule, and the caller's answer changes nothing.
    if (debit && charge && charge.status !== ChargeStatus.PENDING) return { ok: false, scheduled: true };
    if (!debit && (await findRefund(trx, request.reference))?.status !== RefundStatus.PENDING)
      return { ok: false, scheduled: true };
    const contracts = await listContracts(trx, request.merchantId);
    const account = (await findBankAccountById(trx, request.accountId))?.details;
    const registered = debit && account !== undefined && (await mandateRegistered(trx, request.merchantId, account));
    const planned = this.#itemOf(kind, request, contracts, account, registered);
    if ("refusal" in planned) return refusal(planned.refusal);
    await insertItem(trx, table, planned.item);
    return { ok: false, scheduled: true, date: planned.item.date ?? undefined };
  }

  /**
   * Debits of charges created in the caller's transaction (a subscription cycle's page): what
   * `schedule` decides for each, with the contracts, the accounts and the mandates read once for
   * all, and the items written together.
   */
  async scheduleDebits(trx: Tx, requests: readonly BankRequest[]): Promise<BankResult[]> {
    if (requests.length === 0) return [];
    const contracts = new Map<string, ConsignorSettings[]>();
    for (const merchantId of new Set(requests.map((request) => request.merchantId)))
      contracts.set(merchantId, await listContracts(trx, merchantId));
    const accounts = await findAccountDetailsByIds(
      trx,
      requests.map((request) => request.accountId),
    );
    // Each account's keyed hashes once: the mandates' look-up and the items' key both use them.
    const keys = new Map([...accounts].map(([id, account]) => [id, itemAccountKeys(account.details)]));
    const registered = await registeredMandates(trx, requests, keys);
    const items: { item: ZenginItemRecord; opened?: OpenedItemAccount }[] = [];
    const answers = requests.map((request): BankResult => {
      const account = accounts.get(request.accountId);
      const planned = this.#itemOf(
        "debit",
        request,
        contracts.get(request.merchantId) ?? [],
        account?.details,
        account !== undefined && registered.has(`${request.merchantId}/${request.accountId}`),
      );
      if ("refusal" in planned) return refusal(planned.refusal);
      items.push({ item: planned.item, opened: account && { ...account, key: keys.get(request.accountId)![0] } });
      return { ok: false, scheduled: true, date: planned.item.date ?? undefined };
    });
    await insertItems(trx, "zengin_debits", items);
    return answers;
  }

  /** The item a debit or transfer is recorded as, or why it cannot be (the rules of `schedule`). */
  #itemOf(
    kind: "debit" | "refund",
    request: BankRequest,
    contracts: ConsignorSettings[],
    account: BankAccountDetails | undefined,
    registered: boolean,
  ): { item: ZenginItemRecord } | { refusal: string } {
    const debit = kind === "debit";
    if (contracts.length === 0)
      return {
        refusal:
          "the merchant has no Zengin consignor contract (zengin contracts add, or merchants update --consignor-…)",
      };
    // The charge's account: the one its contract was approved with, or its link approved.
    if (!account) return { refusal: "no bank account linked" };
    // The contract whose file carries it (docs/guide/direct-debit-files.md#contracts). Linking
    // refuses an account outside them; one linked before a contract changed is refused here.
    const consignor = contractFor(contracts, account.bankCode);
    if (!consignor) return { refusal: `none of the merchant's consignor contracts covers bank ${account.bankCode}` };
    // Linking keeps the holder in the bank's half-width form; older rows are normalised here, to
    // the 全銀協 rules as the consignor widens them (docs/guide/direct-debit-files.md#characters-in-names).
    const holder = normaliseBankKana(account.accountHolder, accountHolderMaxLength, {
      widened: consignor.nameCharacters,
    });
    if (!holder.ok) return { refusal: `the account holder cannot be written in a Zengin file: ${holder.reason}` };
    // An account stored as 貯蓄 (4) before linking refused it: a debit is refused at acceptance, a
    // refund's 総合振込 still carries 4 (docs/guide/direct-debit-files.md#account-types).
    const undebitable = debit && undebitableAccountType(account.accountType);
    if (undebitable) return { refusal: undebitable };
    // A refund goes into the transfer file of the next cutoff, paid the business day after it.
    const date = !debit
      ? debitDateOf(request.at, { ...timetableOf(this.config), leadDays: 1 }, this.#calendar)
      : (request.debitDate ?? this.#debitDateOf(consignor.debitDay, request.at));
    return {
      item: {
        reference: request.reference,
        merchantId: request.merchantId,
        contractCode: consignor.code,
        date,
        state: "scheduled",
        fileId: null,
        customerNumber: null,
        amount: request.amount,
        // 新規コード 1 until a debit of this account under the merchant's mandate was answered 0.
        newCode: debit && !registered ? 1 : 0,
        // Sealed as the file will carry it (storage/zengin.ts). BankAccountType's numbers are the
        // Zengin 預金種目 codes (1 普通, 2 当座; 4 貯蓄 in a refund's transfer only).
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
      },
    };
  }

  /**
   * The debit date a debit accepted at `at` gets from the contract covering the account's bank;
   * without a bank, the date all the merchant's contracts give, when they agree (they may differ
   * by their monthly debit day). What the hosted page tells before and at the approval.
   */
  async debitDateFor(db: Tx, request: { merchantId: string; bankCode?: string; at: Date }) {
    const contracts = await listContracts(db, request.merchantId);
    const { bankCode } = request;
    const covering =
      bankCode === undefined ? contracts : [contractFor(contracts, bankCode)].filter((c) => c !== undefined);
    const dates = new Set(covering.map((contract) => this.#debitDateOf(contract.debitDay, request.at)));
    return dates.size === 1 ? [...dates][0] : undefined;
  }

  /** A debit's date: the contract's monthly debit day when it has one, else the first the timetable allows. */
  #debitDateOf(debitDay: number, at: Date): string {
    return debitDay > 0
      ? monthlyDebitDateOf(at, debitDay, timetableOf(this.config), this.#calendar)
      : debitDateOf(at, timetableOf(this.config), this.#calendar);
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
