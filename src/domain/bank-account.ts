import { BankAccountType } from "../../gen/payments/v1/enums_pb.js";
import { validationFailure } from "./payment-failure.js";

/**
 * The account a customer chooses for direct debit: bank, branch, 預金種目, number and holder (in
 * the bank's half-width kana, domain/kana.ts). It is stored sealed; only its masked summary
 * leaves the service.
 */
export interface BankAccountDetails {
  readonly bankCode: string;
  readonly branchCode: string;
  readonly accountType: BankAccountType;
  readonly accountNumber: string;
  readonly accountHolder: string;
}

/** The account as the page, the API and the dashboard may show it. */
export interface BankAccountSummaryView {
  readonly bankCode: string;
  readonly bankName: string;
  readonly branchCode: string;
  readonly branchName: string;
  readonly accountType: BankAccountType;
  readonly maskedAccountNumber: string;
  readonly display: string;
}

export const accountTypeLabels: Readonly<Record<BankAccountType, string>> = Object.freeze({
  [BankAccountType.UNSPECIFIED]: "普通",
  [BankAccountType.ORDINARY]: "普通",
  [BankAccountType.CURRENT]: "当座",
  [BankAccountType.SAVINGS]: "貯蓄",
});

/** Unspecified reads as ordinary, as Zengin files need a 預金種目. */
export function effectiveAccountType(type: BankAccountType): BankAccountType {
  return type === BankAccountType.UNSPECIFIED ? BankAccountType.ORDINARY : type;
}

/**
 * The 預金種目 a 口座振替 record may carry (docs/guide/direct-debit-files.md#account-types): 1 普通,
 * 2 当座 (9 その他 is not offered). 4 貯蓄 is not in the published 口座振替 lists, so an account
 * of that type is refused when it is linked; 総合振込 (refunds) still writes 1, 2, 4 and 9.
 */
export const debitableAccountTypes: readonly BankAccountType[] = [
  BankAccountType.UNSPECIFIED,
  BankAccountType.ORDINARY,
  BankAccountType.CURRENT,
];

/** Why an account of this type cannot be debited by 口座振替, or undefined when it can. */
export function undebitableAccountType(type: BankAccountType): string | undefined {
  return debitableAccountTypes.includes(type)
    ? undefined
    : `${accountTypeLabels[type] ?? type}預金 (${type}) cannot be debited by 口座振替: choose 普通 (1) or 当座 (2)`;
}

/** The account type of a link, or a VALIDATION_FAILED on account_type. */
export function requireDebitableAccountType(type: BankAccountType): void {
  const reason = undebitableAccountType(type);
  if (reason) throw validationFailure("account_type", reason);
}

/** ****567: the last three digits only. */
export function maskAccountNumber(accountNumber: string): string {
  return `****${accountNumber.slice(-3)}`;
}

/** みずほ銀行 渋谷支店 普通 ****567 */
export function summariseAccount(
  account: BankAccountDetails,
  names: { bankName: string; branchName: string },
): BankAccountSummaryView {
  const accountType = effectiveAccountType(account.accountType);
  const maskedAccountNumber = maskAccountNumber(account.accountNumber);
  const bankName = names.bankName || account.bankCode;
  const branchName = names.branchName || account.branchCode;
  return {
    bankCode: account.bankCode,
    bankName,
    branchCode: account.branchCode,
    branchName,
    accountType,
    maskedAccountNumber,
    display: `${bankName} ${branchName} ${accountTypeLabels[accountType]} ${maskedAccountNumber}`,
  };
}

/**
 * The details in one fixed spelling, for the consent record's hash (keyed: storage/sealed.ts
 * keyedHash), which proves which account was consented to without holding it in clear.
 */
export function canonicalAccount(account: BankAccountDetails): string {
  return [
    account.bankCode,
    account.branchCode,
    String(effectiveAccountType(account.accountType)),
    account.accountNumber,
    account.accountHolder,
  ].join("|");
}

/**
 * Which account at the bank this is (bank, branch, 7-digit number; not the holder's spelling or
 * the type): the one account a customer's approvals share, and the one a Zengin file's record
 * names. Hashed with a key before it is stored (storage/bank-accounts.ts).
 */
export function accountIdentity(
  account: Pick<BankAccountDetails, "bankCode" | "branchCode" | "accountNumber">,
): string {
  return [account.bankCode, account.branchCode, account.accountNumber.padStart(7, "0")].join("|");
}

/** The details as they are sealed at rest, and back. */
export function serialiseAccount(account: BankAccountDetails): string {
  return JSON.stringify({
    bankCode: account.bankCode,
    branchCode: account.branchCode,
    accountType: effectiveAccountType(account.accountType),
    accountNumber: account.accountNumber,
    accountHolder: account.accountHolder,
  });
}

export function parseAccount(serialised: string): BankAccountDetails {
  return JSON.parse(serialised) as BankAccountDetails;
}
