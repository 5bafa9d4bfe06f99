import {
  type ChargeFilter,
  type ChargeTimelineEntry,
  ChargeTimelineKind,
} from "../../../../gen/payments/v1/dashboard_service_pb.js";
import { zenginResultOfCode } from "../../../domain/zengin-result.js";
import { dt } from "../i18n-detail.js";
import {
  busy,
  confirmAction,
  chargeState,
  errorBox,
  failure,
  field,
  h,
  idWithCopy,
  pagedTable,
  saveFile,
  table,
  when,
  yen,
  yenCell,
} from "../dom.js";
import type { AppContext } from "../app-context.js";
import { choices, label } from "../enum-labels.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";
import { DashboardRole, may } from "../roles.js";
import { chargeHeaders, chargeRow, payerCell } from "./customers.js";
import { moreButton } from "./paging.js";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { daysMs } from "../../../domain/duration.js";

/** The filter of the charges page as it stands in the URL (#/charges?status=3&from=2026-11-01…). */
function filterOf(query: URLSearchParams): ChargeFilter {
  const day = (name: string, plusDays = 0) => {
    const value = query.get(name);
    if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
    // Days are Japanese days: from 00:00 JST; "until" includes the whole day.
    return timestampFromDate(new Date(Date.parse(`${value}T00:00:00+09:00`) + daysMs(plusDays)));
  };
  return {
    $typeName: "payments.v1.ChargeFilter",
    statuses: query.getAll("status").map(Number).filter(Boolean),
    createdFrom: day("from"),
    createdBefore: day("to", 1),
    minAmount: Number(query.get("min") ?? 0) || 0,
    maxAmount: Number(query.get("max") ?? 0) || 0,
    customerEmail: query.get("customer") ?? "",
  };
}

/** Charges filtered by status, date range, amount and customer, with a customer column, paged and exportable. */
export async function chargesView(app: AppContext, query: URLSearchParams): Promise<HTMLElement> {
  const filter = filterOf(query);
  const filtering = [...query.keys()].length > 0;
  const form = filterForm(query);
  const list = pagedTable(t().charges, chargeHeaders(true), filtering ? t().noMatch : t().none, {
    compact: true,
  });
  const more = await moreButton(async (pageToken) => {
    const page = await rpc.listCharges({ filter, pageSize: 50, pageToken });
    const payers = new Map(page.payers.map((p) => [p.customerId, p]));
    list.add(page.charges.map((c) => chargeRow(c, payers)));
    return page.nextPageToken;
  });
  const exportButton = h("button", { type: "button", class: "secondary" }, t().exportCsv);
  const problem = errorBox();
  exportButton.addEventListener("click", () =>
    busy(exportButton, problem, async () => {
      const chunks: Uint8Array[] = [];
      let fileName = "charges.csv";
      for await (const piece of rpc.exportCharges({ filter })) {
        if (piece.fileName) fileName = piece.fileName;
        chunks.push(piece.chunk);
      }
      saveFile(new Blob(chunks as BlobPart[], { type: "text/csv;charset=utf-8" }), fileName);
      app.announce(t().exported);
    }),
  );
  return h(
    "section",
    {},
    h("h1", { tabindex: -1 }, t().navCharges),
    form,
    h("div", { class: "actions" }, exportButton),
    problem,
    list.element,
    more,
  );
}

function filterForm(query: URLSearchParams): HTMLFormElement {
  const status = h(
    "select",
    { name: "status" },
    h("option", { value: "" }, t().anyStatus),
    choices("chargeStatus").map(([value, text]) =>
      h("option", { value, selected: query.get("status") === String(value) }, text),
    ),
  );
  const input = (name: string, type: string, extra: Record<string, string | number> = {}) =>
    h("input", { name, type, value: query.get(name) ?? "", ...extra });
  const from = input("from", "date");
  const to = input("to", "date");
  const min = input("min", "number", { min: 0, step: 1, inputmode: "numeric" });
  const max = input("max", "number", { min: 0, step: 1, inputmode: "numeric" });
  const customer = input("customer", "search", { autocomplete: "off" });
  const clear = h("a", { href: "#/charges", class: "button-link" }, t().clearFilters);
  const form = h(
    "form",
    { class: "inline filters", role: "search", "aria-label": t().filters },
    field(t().status, status),
    field(t().dateFrom, from),
    field(t().dateTo, to),
    field(t().minAmount, min),
    field(t().maxAmount, max),
    field(t().customerEmail, customer),
    h("div", { class: "actions" }, h("button", { type: "submit" }, t().filter), clear),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const control of [status, from, to, min, max, customer])
      if (control.value.trim()) next.set(control.name, control.value.trim());
    location.hash = `#/charges?${next}`;
  });
  return form;
}

/** One charge with its refunds and the refund action (through the refund flow, as PaymentService.Refund). */
export async function chargeView(app: AppContext, id: string): Promise<HTMLElement> {
  const { charge, customer, payer, timeline } = await rpc.getChargeDetail({ chargeId: id });
  if (!charge) throw new Error(`charge ${id} not found`);
  const section = h(
    "section",
    {},
    h("p", {}, h("a", { href: customer ? `#/customers/${customer.id}` : "#/charges" }, "← ", t().back)),
    h("h1", { tabindex: -1, class: "wrap" }, `${t().charge} ${charge.chargeId}`),
  );
  section.append(
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, t().amount),
      h("dd", {}, yen(charge.finalAmount)),
      h("dt", {}, t().status),
      h("dd", { "data-testid": "charge-status" }, chargeState(charge)),
      h("dt", {}, dt().createdAt),
      h("dd", { "data-testid": "charge-created" }, when(charge.createdAt)),
      h("dt", {}, t().description),
      h("dd", {}, charge.description),
      h("dt", {}, t().customerId),
      h("dd", {}, payerCell(payer)),
      charge.error ? [h("dt", {}, t().error), h("dd", {}, failure(charge.error))] : null,
      h("dt", {}, t().refunded),
      h("dd", {}, yen(charge.refundedAmount)),
      h("dt", {}, t().refundable),
      h("dd", { "data-testid": "refundable" }, yen(charge.refundableAmount)),
    ),
    h("h2", {}, dt().metadata),
    metadataList(charge.metadata),
    h("h2", {}, dt().timeline),
    table(
      dt().timeline,
      [dt().timelineWhen, dt().timelineWhat],
      timeline.map((entry) => [h("span", { class: "nowrap" }, when(entry.at)), timelineText(entry)]),
    ),
    h("h2", {}, t().refunds),
    table(
      t().refunds,
      ["ID", t().amount, t().status, t().refundReason, t().created],
      charge.refunds.map((r) => [
        idWithCopy(r.refundId),
        yenCell(r.amount),
        label("refundStatus", r.status),
        r.reason,
        when(r.createdAt),
      ]),
    ),
  );
  if (charge.refundableAmount > 0 && may(app.user, DashboardRole.OPERATOR))
    section.append(refundForm(app, id, charge.refundableAmount, charge.refundedAmount));
  return section;
}

/** The charge's metadata as the merchant sent it: key and value, in key order. */
function metadataList(metadata: Record<string, string>): HTMLElement {
  const keys = Object.keys(metadata).sort();
  if (keys.length === 0) return h("p", { "data-testid": "charge-metadata" }, dt().metadataNone);
  return h(
    "dl",
    { class: "facts", "data-testid": "charge-metadata" },
    keys.map((key) => [h("dt", {}, h("code", { class: "wrap" }, key)), h("dd", { class: "wrap" }, metadata[key])]),
  );
}

/** One step of the timeline in words: the refund's amount, the bank's 振替結果コード, the webhook's event. */
function timelineText(entry: ChargeTimelineEntry): string {
  const words = dt().timelineKind[entry.kind] ?? dt().timelineKind[ChargeTimelineKind.UNSPECIFIED];
  const result = entry.resultCode === undefined ? undefined : zenginResultOfCode(entry.resultCode);
  const details = [
    entry.amount ? yen(entry.amount) : "",
    entry.fileName,
    result ? t().zenginResult(result.code, lang() === "ja" ? result.japanese : result.meaning) : "",
    entry.kind === ChargeTimelineKind.WEBHOOK_DELIVERED ? label("eventType", entry.eventType) : "",
    entry.refundId,
  ].filter(Boolean);
  if (details.length === 0) return words;
  return lang() === "ja" ? `${words}(${details.join("、")})` : `${words} (${details.join(", ")})`;
}

/**
 * Only what the server allows: an amount from 1 to the refundable remainder (offered in full
 * while nothing was refunded; after a partial refund an amount is always sent), confirmed with
 * the amount before it is sent.
 */
function refundForm(app: AppContext, chargeId: string, refundable: number, refunded: number): HTMLElement {
  const amount = h("input", {
    type: "number",
    min: 1,
    max: refundable,
    step: 1,
    inputmode: "numeric",
    required: true,
    value: refundable,
  });
  const reason = h("input", { type: "text", maxlength: 255 });
  const submit = h("button", { type: "submit" }, t().refund);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card narrow" },
    h("h2", {}, t().refund),
    field(t().refundAmountBounded(yen(refundable)), amount),
    field(t().refundReason, reason),
    problem,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = Number(amount.value);
    if (!Number.isInteger(value) || value < 1 || value > refundable) {
      problem.textContent = t().reasons.REFUND_EXCEEDS_REFUNDABLE;
      return;
    }
    void busy(submit, problem, async () => {
      if (!(await confirmAction(t().refundConfirm(yen(value)), t().refund))) return;
      await rpc.refundCharge({
        refund: {
          chargeId,
          // The whole charge, untouched so far, is refunded as such (a same-day cancellation when it can be).
          amount: refunded === 0 && value === refundable ? undefined : value,
          reason: reason.value,
        },
      });
      app.announce(t().refundDone);
      form.closest("section")?.replaceWith(await chargeView(app, chargeId));
    });
  });
  return form;
}
