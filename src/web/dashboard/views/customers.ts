import { toJsonString } from "@bufbuild/protobuf";
import type { Payer } from "../../../../gen/payments/v1/dashboard_service_pb.js";
import { MandateSchema, type Charge, type Customer, type Mandate } from "../../../../gen/payments/v1/resources_pb.js";
import {
  chargeState,
  emailText,
  field,
  h,
  idWithCopy,
  pagedTable,
  table,
  when,
  yenCell,
  failure,
  type Child,
} from "../dom.js";
import { label } from "../enum-labels.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";
import { moreButton } from "./paging.js";

/**
 * Customers by the start of their e-mail, or part of their name or kana
 * (docs/guide/dashboard.md#finding-things); the search lives in the URL, so it can be shared.
 */
export async function customersView(query: URLSearchParams): Promise<HTMLElement> {
  const email = h("input", { type: "search", name: "email", value: query.get("email") ?? "", autocomplete: "off" });
  const name = h("input", { type: "search", name: "name", value: query.get("name") ?? "", autocomplete: "off" });
  const form = h(
    "form",
    { class: "inline", role: "search", "aria-describedby": "customer-search-hint" },
    field(t().searchByEmail, email),
    field(t().searchByName, name),
    h("button", { type: "submit" }, t().search),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (email.value.trim()) next.set("email", email.value.trim());
    if (name.value.trim()) next.set("name", name.value.trim());
    location.hash = `#/customers?${next}`;
  });
  const searching = Boolean(query.get("email") || query.get("name"));
  const list = pagedTable(
    t().navCustomers,
    [t().email, t().name, t().account, t().customerId, t().paymentStatus, t().kycStatus, t().created],
    searching ? t().noMatch : t().none,
  );
  const more = await moreButton(async (pageToken) => {
    const page = await rpc.searchCustomers({
      email: query.get("email") ?? "",
      name: query.get("name") ?? "",
      pageSize: 50,
      pageToken,
    });
    const payers = new Map(page.payers.map((p) => [p.customerId, p]));
    list.add(page.customers.map((c) => customerRow(c, payers.get(c.id))));
    return page.nextPageToken;
  });
  return h(
    "section",
    {},
    h("h1", { tabindex: -1 }, t().navCustomers),
    form,
    h("p", { class: "hint", id: "customer-search-hint" }, t().searchHint),
    list.element,
    more,
  );
}

function customerRow(c: Customer, payer: Payer | undefined): Child[] {
  return [
    h("a", { href: `#/customers/${c.id}`, class: "wrap" }, c.email),
    payerName(c.name, payer?.kana ?? kanaOf(c)),
    payer?.maskedAccount ?? "",
    idWithCopy(c.id),
    label("paymentAuthorization", c.status?.payment ?? 0),
    label("kycStatus", c.status?.kyc ?? 0),
    when(c.createdAt),
  ];
}

function kanaOf(c: Customer): string {
  return [c.katakanaLastName, c.katakanaFirstName].filter(Boolean).join(" ");
}

/** The name with its kana beneath. */
export function payerName(name: string, kana: string): Child {
  if (!name && !kana) return "";
  return h("span", { class: "payer" }, name, kana ? h("span", { class: "kana", lang: "ja" }, kana) : null);
}

/** Who pays for a charge: e-mail (to the customer), name, kana and the masked account. */
export function payerCell(payer: Payer | undefined): Child {
  if (!payer) return "—";
  return h(
    "span",
    { class: "payer" },
    h("a", { href: `#/customers/${payer.customerId}`, class: "email" }, ...emailText(payer.email)),
    payer.name ? h("span", {}, payer.name) : null,
    payer.kana ? h("span", { class: "kana", lang: "ja" }, payer.kana) : null,
    payer.maskedAccount ? h("span", { class: "account" }, payer.maskedAccount) : null,
  );
}

/** The customer page: statuses, contracts and mandates, every charge (triggered test errors included) with its failure. */
export async function customerView(id: string): Promise<HTMLElement> {
  const { customer, contracts, charges, chargesTruncated, stopRequests } = await rpc.getCustomerDetail({
    customerId: id,
  });
  const section = h(
    "section",
    {},
    h("p", {}, h("a", { href: "#/customers" }, "← ", t().back)),
    h("h1", { tabindex: -1, class: "wrap" }, customer?.email ?? id),
  );
  section.append(
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, t().customerId),
      h("dd", {}, idWithCopy(id)),
      customer?.name ? [h("dt", {}, t().name), h("dd", {}, customer.name)] : null,
      customer && kanaOf(customer) ? [h("dt", {}, t().kana), h("dd", {}, kanaOf(customer))] : null,
      h("dt", {}, t().paymentStatus),
      h("dd", {}, label("paymentAuthorization", customer?.status?.payment ?? 0)),
      h("dt", {}, t().kycStatus),
      h(
        "dd",
        {},
        label("kycStatus", customer?.status?.kyc ?? 0),
        customer?.kycRejectionReason ? ` (${customer.kycRejectionReason})` : "",
      ),
    ),
    h("h2", {}, t().contracts),
    table(
      t().contracts,
      ["ID", t().status, t().created],
      contracts.map((c) => [idWithCopy(c.tokenId), label("contractStatus", c.status), when(c.createdAt)]),
    ),
    ...contracts.filter((c) => c.mandate).map((c) => mandateView(c.tokenId, c.mandate!)),
    // Made in the customer app (docs/guide/customer-app.md); the contract changes only when the merchant acts.
    h("h2", {}, t().stopRequests),
    table(
      t().stopRequests,
      [t().contracts, t().stopRequestReason, t().created],
      stopRequests.map((r) => [idWithCopy(r.contractId), r.reason, when(r.requestedAt)]),
    ),
    h("h2", {}, t().charges),
    // Capped by the server (docs/reference/limits.md#the-catalogue): say so rather than look complete.
    ...(chargesTruncated ? [h("p", { class: "hint", id: "charges-truncated" }, t().chargesTruncated)] : []),
    chargesTable(charges),
  );
  return section;
}

/** A contract's direct-debit mandate: the consent evidence, the account masked, and its export. */
function mandateView(contractId: string, mandate: Mandate): HTMLElement {
  const exported = toJsonString(MandateSchema, mandate, { prettySpaces: 2 });
  const download = h(
    "a",
    {
      href: `data:application/json;charset=utf-8,${encodeURIComponent(exported)}`,
      download: `mandate-${contractId}.json`,
    },
    t().mandateExport,
  );
  const row = (label: string, value: Child) => [h("dt", {}, label), h("dd", {}, value)];
  return h(
    "section",
    { class: "card" },
    h("h3", { class: "wrap" }, `${t().mandate} (${contractId})`),
    h(
      "dl",
      { class: "facts" },
      ...row(t().mandateAccount, mandate.account?.display ?? ""),
      ...row(t().mandateVerification, label("mandateVerification", mandate.verification)),
      ...row(t().mandateTerms, mandate.termsVersion),
      ...row(t().mandateAccepted, when(mandate.acceptedAt)),
      ...row(t().mandateFrom, h("span", { class: "wrap" }, `${mandate.clientAddress} · ${mandate.userAgent}`)),
      ...row(t().mandateHash, h("code", { class: "wrap" }, mandate.accountHash)),
    ),
    download,
  );
}

/** Charges as a table; `payers` adds the customer column. */
export function chargesTable(charges: Charge[], payers?: Map<string, Payer>, empty?: string): HTMLElement {
  return table(
    t().charges,
    chargeHeaders(Boolean(payers)),
    charges.map((c) => chargeRow(c, payers)),
    empty,
  );
}

export function chargeHeaders(withPayer: boolean): string[] {
  return [
    t().charge,
    ...(withPayer ? [t().payer] : []),
    t().amount,
    t().status,
    t().description,
    t().error,
    t().refunded,
    t().created,
  ];
}

export function chargeRow(c: Charge, payers?: Map<string, Payer>): Child[] {
  return [
    idWithCopy(c.chargeId, `#/charges/${c.chargeId}`),
    ...(payers ? [payerCell(payers.get(c.customerId))] : []),
    yenCell(c.finalAmount),
    chargeState(c),
    c.description,
    failure(c.error),
    c.refundedAmount ? yenCell(c.refundedAmount) : "",
    when(c.createdAt),
  ];
}
