import { accountIdentity } from "./bank-account.js";

/** What a result file answers for one record, of either kind (a debit, 種別 91, or a transfer, 21). */
export interface AnsweredRecord {
  readonly customerNumber: string;
  readonly bankCode: string;
  readonly branchCode: string;
  readonly accountNumber: string;
  readonly amount: number;
  /** The 振替結果コード; undefined when a transfer's answer carries none. */
  readonly resultCode: number | undefined;
}

/**
 * A record as we sent it: the item behind the answer's customer number. Its account is a key of
 * which account it is (bank, branch, number), as `accountKeysOf` names an answer's: the items keep
 * it as a keyed hash, never in clear (docs/reference/security.md#bank-accounts).
 */
export interface RequestedRecord {
  readonly customerNumber: string;
  readonly amount: number;
  readonly accountKey: string;
}

/** The keys an answer's account may be stored under (several while a key rotation is under way). */
export type AccountKeysOf = (
  answer: Pick<AnsweredRecord, "bankCode" | "branchCode" | "accountNumber">,
) => readonly string[];

/** The debits of a request that a failures-only result does not list: debited on the debit date. */
export interface UnlistedDebits {
  readonly count: number;
  readonly amount: number;
}

/** The 振替結果コード a bank may answer a debit with; a transfer's answer may carry any digit. */
export const debitResultCodes: readonly number[] = [0, 1, 2, 3, 4, 8, 9];

/**
 * Checks a result file against the request we sent, record by record as the import reads them a
 * batch at a time: every record answers one we sent (customer number, amount, bank, branch,
 * account) with a known result, none is answered twice, and at the end none is left unanswered.
 * Customer numbers are the debit date and the record's position (docs/operations/zengin.md#the-cycle),
 * so a bitmap of positions remembers which were answered, not 100,000 strings.
 */
export class ResultCheck {
  readonly #answered: Uint8Array;
  readonly #elsewhere = new Set<string>();
  #count = 0;
  #amount = 0;

  /**
   * `failuresOnly`: the result lists only the failed debits (docs/guide/direct-debit-files.md#result-styles),
   * so a requested debit it does not list is not missing: it was debited.
   */
  constructor(
    private readonly kind: "91" | "21",
    private readonly requested: number,
    private readonly accountKeysOf: AccountKeysOf = (answer) => [accountIdentity(answer)],
    private readonly failuresOnly = false,
  ) {
    this.#answered = new Uint8Array(requested + 1);
  }

  /** Why the answer cannot be applied, or undefined; `ours` is what we sent under its customer number. */
  record(ours: RequestedRecord | undefined, answer: AnsweredRecord): string | undefined {
    const number = `${this.kind === "91" ? "customer number" : "customer code"} ${answer.customerNumber}`;
    if (!ours) return `${number} was not in the request`;
    if (!this.#firstAnswer(answer.customerNumber)) return `${number} is answered twice`;
    this.#amount += answer.amount;
    if (answer.amount !== ours.amount) return `${number}: amount ${answer.amount} is not ${ours.amount}`;
    if (!this.accountKeysOf(answer).includes(ours.accountKey)) return `${number}: the account is not the one requested`;
    if (answer.resultCode === undefined) return `${number} has no result`;
    if (this.kind === "91" && !debitResultCodes.includes(answer.resultCode))
      return `${number}: 振替結果コード ${answer.resultCode} is unknown`;
    return undefined;
  }

  /** After the last record: the requested debits not listed, of a request totalling `requestedAmount`. */
  unlisted(requestedAmount: number): UnlistedDebits {
    return { count: this.requested - this.#count, amount: requestedAmount - this.#amount };
  }

  /** After the last record: why the file cannot be applied, or undefined. */
  finish(): string | undefined {
    if (this.failuresOnly) return undefined;
    const missing = this.requested - this.#count;
    return missing > 0
      ? `${missing} requested ${this.kind === "91" ? "debits" : "transfers"} are not answered`
      : undefined;
  }

  #firstAnswer(customerNumber: string): boolean {
    this.#count++;
    const position = Number(customerNumber.slice(-12));
    if (position >= 1 && position <= this.requested) {
      if (this.#answered[position]) return false;
      this.#answered[position] = 1;
      return true;
    }
    if (this.#elsewhere.has(customerNumber)) return false;
    this.#elsewhere.add(customerNumber);
    return true;
  }
}
