import { facts, h, when, yen } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** The receipt (領収書) of a successful charge, laid out to print or save as PDF from the browser. */
export async function receiptView(chargeId: string): Promise<HTMLElement> {
  const { receipt } = await rpc.getReceipt({ chargeId });
  if (!receipt) throw new Error("no receipt");
  const print = h("button", { type: "button", class: "primary no-print" }, t().print);
  print.addEventListener("click", () => window.print());
  const rows: Array<[string, string | HTMLElement]> = [
    [t().receiptFor, receipt.description],
    [t().paidAt, when(receipt.paidAt, true)],
    [t().chargeId, h("code", {}, receipt.chargeId)],
  ];
  if (receipt.refundedAmount > 0) rows.push([t().refundedSince, yen(receipt.refundedAmount)]);
  const issuer = [receipt.merchantName, receipt.merchantSupportEmail, receipt.merchantSupportPhone].filter(Boolean);
  rows.push([t().issuer, issuer.join(" / ")], [t().issuedAt, when(receipt.issuedAt, true)]);
  return h(
    "section",
    { class: "card receipt" },
    h("h1", { id: "view-heading", tabindex: -1 }, t().receiptHeading),
    h("p", { class: "receipt-to" }, t().receiptTo(receipt.customerEmail)),
    h("p", { class: "receipt-amount" }, h("span", {}, `${t().receiptAmount} `), h("strong", {}, yen(receipt.amount))),
    h("p", {}, t().receiptNote),
    facts(rows),
    h("p", { class: "actions no-print" }, print, " ", h("a", { href: "#/history" }, t().back)),
  );
}
