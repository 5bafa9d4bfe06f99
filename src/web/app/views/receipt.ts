import { facts, h, when, yen } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

/**
 * The receipt of a successful charge, laid out to print or save as PDF from the browser: made out to
 * the customer's name, with the issuer's name and address, the 10% 消費税 the tax-included amount
 * carries, refunds settled and still in progress; titled 適格請求書（領収書） with the merchant's
 * インボイス 登録番号 when it has one (docs/guide/customer-app.md#the-receipt).
 */
export async function receiptView(chargeId: string): Promise<HTMLElement> {
  const { receipt } = await rpc.getReceipt({ chargeId });
  if (!receipt) throw new Error("no receipt");
  const words = t();
  const print = h("button", { type: "button", class: "primary no-print" }, words.print);
  print.addEventListener("click", () => window.print());
  const qualified = receipt.invoiceRegistrationNumber !== "";
  const rows: Array<[string, string | HTMLElement]> = [
    [words.receiptFor, receipt.description],
    [words.taxRate, `${receipt.taxRatePercent}%`],
    [words.includedTax, yen(receipt.consumptionTax)],
    [words.paidAt, when(receipt.paidAt, true)],
    [words.chargeId, h("code", {}, receipt.chargeId)],
  ];
  if (receipt.refundedAmount > 0) rows.push([words.refundedSince, yen(receipt.refundedAmount)]);
  if (receipt.refundPendingAmount > 0) rows.push([words.refundPending, yen(receipt.refundPendingAmount)]);
  rows.push([words.issuer, receipt.issuerName || receipt.merchantName]);
  if (receipt.issuerAddress) rows.push([words.issuerAddress, receipt.issuerAddress]);
  if (qualified) rows.push([words.registrationNumber, receipt.invoiceRegistrationNumber]);
  const contact = [receipt.merchantSupportEmail, receipt.merchantSupportPhone].filter(Boolean);
  if (contact.length > 0) rows.push([words.contact, contact.join(" / ")]);
  rows.push([words.issuedAt, when(receipt.issuedAt, true)]);
  return h(
    "section",
    { class: "card receipt" },
    h("h1", { id: "view-heading", tabindex: -1 }, qualified ? words.qualifiedReceiptHeading : words.receiptHeading),
    h("p", { class: "receipt-to" }, words.receiptTo(receipt.customerName || words.receiptToUnknown)),
    h(
      "p",
      { class: "receipt-amount" },
      h("span", {}, `${words.receiptAmount} `),
      h("strong", {}, yen(receipt.amount)),
      h("span", {}, words.taxIncluded),
    ),
    h(
      "p",
      { class: "receipt-tax" },
      words.taxLine(receipt.taxRatePercent, yen(receipt.amount), yen(receipt.consumptionTax)),
    ),
    h("p", {}, words.receiptNote),
    facts(rows),
    h("p", { class: "actions no-print" }, print, " ", h("a", { href: "#/history" }, words.back)),
  );
}
