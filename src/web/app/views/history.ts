import { ChargeStatus, RefundStatus } from "../../../../gen/payments/v1/enums_pb.js";
import type { CustomerTransaction, UpcomingDebit } from "../../../../gen/payments/v1/customer_app_service_pb.js";
import { debitDateWording, failureWording, refundStatusWording } from "../../../domain/customer-wording.js";
import { chargeStateOf } from "../../../domain/display-format.js";
import { alertBox, errorMessage, facts, h, showAlert, when, yen } from "../dom.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** Every charge of the signed-in e-mail, newest first, by shop and month; refunds under their charge. */
export async function historyView(query: URLSearchParams): Promise<HTMLElement> {
  const merchantId = query.get("merchant") ?? "";
  const month = query.get("month") ?? "";
  const [{ merchants }, first, { debits }] = await Promise.all([
    rpc.listCustomerMerchants({}),
    rpc.listCustomerTransactions({ merchantId, month, pageSize: 20 }),
    rpc.listUpcomingDebits({}),
  ]);
  const merchantSelect = h(
    "select",
    { id: "filter-merchant", name: "merchant" },
    h("option", { value: "" }, t().allMerchants),
    ...merchants.map((m) => h("option", { value: m.merchantId, selected: m.merchantId === merchantId }, m.name)),
  );
  const monthInput = h("input", { id: "filter-month", name: "month", type: "month", value: month });
  const filters = h(
    "form",
    { class: "filters", "aria-label": t().filters },
    h("div", {}, h("label", { for: "filter-merchant" }, t().merchant), merchantSelect),
    h("div", {}, h("label", { for: "filter-month" }, t().month), monthInput),
    h("button", { type: "submit" }, t().apply),
  );
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (merchantSelect.value) next.set("merchant", merchantSelect.value);
    if (monthInput.value) next.set("month", monthInput.value);
    location.hash = `#/history?${next}`;
  });

  const list = h("ul", { class: "transactions", "aria-labelledby": "view-heading" });
  const alert = alertBox();
  const more = h("button", { type: "button", class: "more" }, t().more);
  let pageToken = first.nextPageToken;
  const show = (transactions: CustomerTransaction[]) => {
    for (const transaction of transactions) list.append(transactionItem(transaction));
    more.hidden = pageToken === "";
  };
  more.addEventListener("click", async () => {
    try {
      const page = await rpc.listCustomerTransactions({ merchantId, month, pageSize: 20, pageToken });
      const firstNew = list.children.length;
      pageToken = page.nextPageToken;
      show(page.transactions);
      list.children[firstNew]?.querySelector<HTMLElement>("h2")?.focus();
    } catch (error) {
      showAlert(alert, errorMessage(error));
    }
  });
  show(first.transactions);
  return h(
    "section",
    {},
    h("h1", { id: "view-heading", tabindex: -1 }, t().historyHeading),
    debits.length > 0 && upcomingDebits(debits),
    filters,
    first.transactions.length === 0 ? h("p", { class: "empty" }, t().noTransactions) : list,
    alert,
    more,
  );
}

/** The charges accepted and not yet debited, soonest first: when, how much, for which shop. */
function upcomingDebits(debits: UpcomingDebit[]): HTMLElement {
  const words = lang();
  return h(
    "section",
    { class: "upcoming", "aria-labelledby": "upcoming-heading" },
    h("h2", { id: "upcoming-heading" }, t().upcomingHeading),
    h(
      "ul",
      { class: "upcoming-debits" },
      ...debits.map((debit) =>
        h(
          "li",
          { "data-charge-id": debit.chargeId },
          h("span", { class: "merchant" }, debit.merchantName),
          debit.description ? ` · ${debit.description}` : "",
          h("br", {}),
          words === "ja" ? debit.noticeJa : debit.noticeEn,
        ),
      ),
    ),
  );
}

/**
 * One charge as a compact card (issue #31 finding 7: more than two to a phone's screen): the shop and
 * the amount on the first line, the state, the date and what it was for on the second, why it
 * failed under a failure; the receipt beside 詳細, which opens the amounts, refunds and number.
 */
function transactionItem(transaction: CustomerTransaction): HTMLElement {
  const words = lang();
  // The server's list holds only what the customer did (no link never finished): the state as every screen says it.
  const status = chargeStateOf({
    status: transaction.status,
    awaitingCustomer: false,
    refundedAmount: transaction.refunds
      .filter((refund) => refund.status !== RefundStatus.FAILED)
      .reduce((sum, refund) => sum + refund.amount, 0),
    refundPending: transaction.refunds.some((refund) => refund.status === RefundStatus.PENDING),
  })[words];
  const failed = transaction.status === ChargeStatus.FAILURE;
  const rows: Array<[string, string | HTMLElement]> = [
    [t().description, transaction.description],
    [t().initialAmount, yen(transaction.initialAmount)],
    [t().discount, yen(transaction.discount)],
    [t().finalAmount, yen(transaction.finalAmount)],
  ];
  if (transaction.debitDate) rows.push([t().debitDate, debitDateWording(transaction.debitDate)[words]]);
  if (transaction.refunds.length > 0)
    rows.push([
      t().refunds,
      h(
        "ul",
        { class: "refunds" },
        ...transaction.refunds.map((r) =>
          h("li", {}, t().refund(yen(r.amount), refundStatusWording[r.status][words]), " · ", when(r.createdAt, true)),
        ),
      ),
    ]);
  rows.push([t().chargeId, h("code", {}, transaction.chargeId)]);
  return h(
    "li",
    { class: failed ? "transaction failed" : "transaction" },
    h(
      "article",
      { "aria-labelledby": `h-${transaction.chargeId}` },
      h(
        "h2",
        { id: `h-${transaction.chargeId}`, tabindex: -1 },
        h("span", { class: "merchant" }, transaction.merchantName),
        " ",
        h("span", { class: "amount" }, yen(transaction.finalAmount)),
      ),
      h(
        "p",
        { class: "transaction-meta" },
        h("span", { class: `badge status-${ChargeStatus[transaction.status].toLowerCase()}` }, status),
        " ",
        h("span", { class: "when" }, when(transaction.createdAt)),
        transaction.description ? " " : "",
        transaction.description ? h("span", { class: "what" }, transaction.description) : "",
      ),
      failed &&
        transaction.failure &&
        h("p", { class: "failure-reason" }, failureWording[transaction.failure.errorType][words]),
      h(
        "div",
        { class: "transaction-more" },
        transaction.receiptAvailable &&
          h(
            "a",
            { class: "receipt-link", href: `#/receipt/${encodeURIComponent(transaction.chargeId)}` },
            t().receiptLink,
          ),
        h("details", {}, h("summary", {}, t().details), facts(rows)),
      ),
    ),
  );
}
