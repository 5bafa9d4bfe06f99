import { RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import type { BusinessDetails } from "./onboarding-checklist.js";

/** The standard 消費税 rate (国税と地方消費税の合計): what a receipt's tax-included amount carries. */
export const standardTaxRatePercent = 10;

/**
 * The 消費税 a tax-included amount carries (内消費税), rounded down once per receipt and rate
 * (the インボイス rule: one rounding per 適格請求書 and rate): ¥1,100 carries ¥100, ¥2,400 ¥218.
 */
export function includedConsumptionTax(amountTaxIncluded: number, ratePercent = standardTaxRatePercent): number {
  if (!Number.isInteger(amountTaxIncluded) || amountTaxIncluded < 0) throw new Error("an amount is whole yen, ≥ 0");
  return Math.floor((amountTaxIncluded * ratePercent) / (100 + ratePercent));
}

/** What the receipt names of the customer: never an e-mail address. */
export interface ReceiptCustomer {
  name: string;
  katakanaLastName: string;
  katakanaFirstName: string;
  /** The holder of the account the charge debited (口座名義), "" when unknown. */
  accountHolder: string;
}

/** Who the receipt is made out to: the name the merchant gave, else the katakana name, else the account's holder. */
export function receiptAddressee(customer: ReceiptCustomer): string {
  const katakana = [customer.katakanaLastName, customer.katakanaFirstName].filter(Boolean).join(" ");
  return customer.name.trim() || katakana || customer.accountHolder.trim();
}

/** The issuer as the receipt prints it. */
export interface ReceiptIssuer {
  name: string;
  address: string;
  /** T and 13 digits, "" when the merchant is no registered issuer: the receipt is then a 領収書. */
  invoiceRegistrationNumber: string;
}

/** The merchant's business details name the issuer; without them, the merchant's name alone. */
export function receiptIssuer(merchantName: string, business: BusinessDetails | undefined): ReceiptIssuer {
  return {
    name: business?.tradeName || merchantName,
    address: business?.address ?? "",
    invoiceRegistrationNumber: business?.invoiceRegistrationNumber ?? "",
  };
}

/** What came back of the charge: settled refunds, and those still being paid back (返金処理中). */
export function receiptRefunds(refunds: ReadonlyArray<{ amount: number; status: RefundStatus }>): {
  refundedAmount: number;
  refundPendingAmount: number;
} {
  const sum = (status: RefundStatus) =>
    refunds.filter((refund) => refund.status === status).reduce((total, refund) => total + refund.amount, 0);
  return { refundedAmount: sum(RefundStatus.SUCCEEDED), refundPendingAmount: sum(RefundStatus.PENDING) };
}
