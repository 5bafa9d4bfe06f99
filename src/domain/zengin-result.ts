import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { errorTypeMessages } from "./payment-failure.js";

/**
 * The Zengin account-debit result codes (全銀協 口座振替 振替結果コード) and the contract's ErrorType (docs/reference/contract.md#zengin-results)
 * each becomes. `relink`: the bank no longer honours the contract, the customer must link again
 * (a new payment link), so the charge fails as CUSTOMER_INACTIVE. `deactivates`: a result file
 * with this code also ends the contract (DEACTIVATED): the holder or the bank stopped the debits.
 */
export interface ZenginResult {
  readonly code: 1 | 2 | 3 | 4 | 8 | 9;
  readonly japanese: string;
  readonly meaning: string;
  readonly errorType: ErrorType;
  readonly relink: boolean;
  readonly deactivates: boolean;
}

export const zenginResults: readonly ZenginResult[] = Object.freeze([
  {
    code: 1,
    japanese: "資金不足",
    meaning: "insufficient funds",
    errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS,
    relink: false,
    deactivates: false,
  },
  {
    code: 2,
    japanese: "取引なし",
    meaning: "account closed",
    errorType: ErrorType.PAYMENT_CUSTOMER_INACTIVE,
    relink: true,
    deactivates: false,
  },
  {
    code: 3,
    japanese: "預金者の都合による振替停止",
    meaning: "stopped by the account holder",
    errorType: ErrorType.PAYMENT_GATEWAY_FAILED,
    relink: false,
    deactivates: true,
  },
  {
    code: 4,
    japanese: "振替依頼書なし",
    meaning: "no debit authorisation",
    errorType: ErrorType.PAYMENT_CUSTOMER_INACTIVE,
    relink: true,
    deactivates: true,
  },
  {
    code: 8,
    japanese: "委託者の都合による振替停止",
    meaning: "stopped by the consignor",
    errorType: ErrorType.PAYMENT_GATEWAY_FAILED,
    relink: false,
    deactivates: false,
  },
  {
    code: 9,
    japanese: "その他",
    meaning: "other",
    errorType: ErrorType.PAYMENT_GATEWAY_FAILED,
    relink: false,
    deactivates: false,
  },
]);

/** The mapping of a result code a result file carries (0 is success, not listed). */
export function zenginResultOfCode(code: number): ZenginResult | undefined {
  return zenginResults.find((result) => result.code === code);
}

/**
 * Sandbox magic values: an account linked with number 999999N answers every debit with Zengin
 * result N (N = 1, 2, 3, 4, 8, 9), until the customer links another account.
 */
export const zenginMagicAccountPrefix = "999999";

export function zenginResultOfAccount(accountNumber: string): ZenginResult | undefined {
  if (!accountNumber.startsWith(zenginMagicAccountPrefix)) return undefined;
  return zenginResults.find((result) => `${zenginMagicAccountPrefix}${result.code}` === accountNumber);
}

/** The charge's error message: the ErrorType's default, then the Zengin code and its meaning. */
export function zenginFailureMessage(result: ZenginResult): string {
  return `${errorTypeMessages[result.errorType]} (Zengin result ${result.code}: ${result.meaning}, ${result.japanese})`;
}

/**
 * The Zengin result a charge's or refund's error message names (zenginFailureMessage's words), if any:
 * staff must see the 振替結果コード itself, because each code needs its own follow-up.
 *
 * @example zenginResultOfMessage("Payment gateway rejected request (Zengin result 3: …)")?.japanese // "預金者の都合による振替停止"
 */
export function zenginResultOfMessage(message: string): ZenginResult | undefined {
  const code = /\(Zengin result (\d+):/.exec(message)?.[1];
  return code === undefined ? undefined : zenginResultOfCode(Number(code));
}
