import type { BankAccountDetails } from "./bank-account.js";
import type { ContractScope } from "./contract-scope.js";
import type { Consignor } from "./zengin-debit-file.js";
import type { ResultStyle } from "./zengin-result-style.js";

/**
 * The records of the Zengin file exchange as flows see them (docs/operations/zengin.md); storage
 * maps them to and from their rows (storage/zengin-rows.ts).
 */

/**
 * One of a merchant's 口座振替 contracts (委託者), as `zengin contracts add|update` (or, for a single
 * agent contract, `merchants update --consignor-…`) sets them: its 委託者コード (`code`, unique across
 * merchants, in its request files' names and headers) and what it covers
 * (docs/guide/direct-debit-files.md#contracts).
 */
export interface ConsignorSettings extends Consignor {
  readonly merchantId: string;
  readonly scope: ContractScope;
  /** An `agent` contract's banks; empty: every bank but ゆうちょ. Empty for the other scopes. */
  readonly banks: readonly string[];
  /** 振込依頼人コード: the code the bank gave the 総合振込 contract, in the refund transfer file's header. */
  readonly transferCode: string;
  /** A monthly debit day (1–28); 0 for none (ZENGIN_LEAD_DAYS business days after acceptance). */
  readonly debitDay: number;
  readonly createdAt: Date;
  /** What its bank accepts in names beyond the 全銀協 rules, some of `( ) - . /` (zengin-characters.ts). */
  readonly nameCharacters: string;
  /** How its bank answers a request file: every debit, or only the failed ones (zengin-result-style.ts). */
  readonly resultStyle: ResultStyle;
  readonly updatedAt: Date;
}

/** "91" account debits (口座振替), "21" transfers (総合振込, refunds). */
export type ZenginFileKind = "91" | "21";

/** Sent by us (out) or received from the bank (in). */
export type ZenginFileDirection = "in" | "out";

/** out: writing → sent → answered; in: archived (applied) or quarantined (nothing applied). */
export type ZenginFileState = "writing" | "sent" | "answered" | "archived" | "quarantined";

/** Counts and amounts of a file: requested (record), debited or transferred (done), failed. */
export interface ZenginFileTotals {
  readonly recordCount: number;
  readonly totalAmount: number;
  readonly doneCount: number;
  readonly doneAmount: number;
  readonly failedCount: number;
  readonly failedAmount: number;
}

/** A file sent or received. */
export interface ZenginFileRecord extends ZenginFileTotals {
  readonly id: string;
  /** "" for a received file no merchant's consignor code matched. */
  readonly merchantId: string;
  /** The 委託者コード of the contract it belongs to ("" for a received file matched to none). */
  readonly contractCode: string;
  /** "" for a received file that is not a 91 or 21 file. */
  readonly kind: ZenginFileKind | "";
  readonly direction: ZenginFileDirection;
  /** The debit or transfer date, YYYY-MM-DD ("" when unknown). */
  readonly date: string;
  readonly name: string;
  readonly state: ZenginFileState;
  /** in: the id of the sent file it answers, when known. */
  readonly answers: string | null;
  readonly sha256: string;
  /** Why a received file was quarantined. */
  readonly reason: string;
  /** out: the consignor settings the file was recorded with; null for a received file. */
  readonly consignor: Consignor | null;
  /** out: when its results are due. */
  readonly dueAt: Date | null;
  /** in: it came into incoming/ under a name the exchange does not expect (docs/operations/zengin.md#unexpected-file-names). */
  readonly unexpectedName: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The two queues of items on their way through a file: debits (trx-*) and transfers (rfd-*). */
export type ZenginItemKind = "zengin_debits" | "zengin_transfers";

/** scheduled → filed → answered, or cancelled before its file. */
export type ZenginItemState = "scheduled" | "filed" | "answered" | "cancelled";

/**
 * A debit (reference trx-*) or a transfer (rfd-*), its account unsealed (only in memory: it is
 * kept sealed at rest, docs/reference/security.md#bank-accounts).
 */
export interface ZenginItemRecord {
  readonly reference: string;
  readonly merchantId: string;
  /** The 委託者コード of the contract whose file carries it (the one covering the account's bank). */
  readonly contractCode: string;
  /** The date of the file it goes into, YYYY-MM-DD. */
  readonly date: string | null;
  readonly state: ZenginItemState;
  readonly fileId: string | null;
  /** 顧客番号: numbered when the item is filed. */
  readonly customerNumber: string | null;
  readonly amount: number;
  /** 新規コード: 1 for the first debit of an account under the merchant. */
  readonly newCode: number;
  readonly account: BankAccountDetails;
  /** The bank's result code once answered (0: done). */
  readonly resultCode: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The file kinds in the order the cycle writes them: debits, then transfers. */
export const zenginFileKinds: readonly ZenginFileKind[] = ["91", "21"];

/** The queue of items a file of this kind carries. */
export function itemKindOf(kind: ZenginFileKind | ""): ZenginItemKind {
  return kind === "91" ? "zengin_debits" : "zengin_transfers";
}
