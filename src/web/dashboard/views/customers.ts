import {
  ChargeStatus,
  ContractStatus,
  KycStatus,
  MandateVerification,
  PaymentAuthorizationStatus,
} from "../../../../gen/payments/v1/enums_pb.js";
import { toJsonString } from "@bufbuild/protobuf";
import { MandateSchema, type Charge, type Mandate } from "../../../../gen/payments/v1/resources_pb.js";
import { enumName, field, h, table, when, yen, type Child } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** Customers, searchable by e-mail (docs/reference/contract.md#dashboard). */
export async function customersView(query: URLSearchParams): Promise<HTMLElement> {
  const email = h("input", { type: "search", name: "email", value: query.get("email") ?? "", autocomplete: "off" });
  const form = h(
    "form",
    { class: "inline", role: "search" },
    field(t().searchByEmail, email),
    h("button", { type: "submit" }, t().search),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `#/customers?email=${encodeURIComponent(email.value.trim())}`;
  });
  const { customers } = await rpc.searchCustomers({ email: query.get("email") ?? "", pageSize: 50 });
  const rows = customers.map((c) => [
    h("a", { href: `#/customers/${c.id}` }, c.email),
    h("code", {}, c.id),
    enumName(PaymentAuthorizationStatus, c.status?.payment ?? 0),
    enumName(KycStatus, c.status?.kyc ?? 0),
    when(c.createdAt),
  ]);
  return h(
    "section",
    {},
    h("h1", { tabindex: -1 }, t().navCustomers),
    form,
    table(t().navCustomers, [t().email, t().customerId, t().paymentStatus, t().kycStatus, t().created], rows),
  );
}

/** The customer page: statuses, contracts, every charge (triggered test errors included) with its refunds. */
export async function customerView(id: string): Promise<HTMLElement> {
  const { customer, contracts, charges } = await rpc.getCustomerDetail({ customerId: id });
  const section = h(
    "section",
    {},
    h("p", {}, h("a", { href: "#/customers" }, "← ", t().back)),
    h("h1", { tabindex: -1 }, customer?.email ?? id),
  );
  section.append(
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, t().customerId),
      h("dd", {}, h("code", {}, id)),
      h("dt", {}, t().paymentStatus),
      h("dd", {}, enumName(PaymentAuthorizationStatus, customer?.status?.payment ?? 0)),
      h("dt", {}, t().kycStatus),
      h(
        "dd",
        {},
        enumName(KycStatus, customer?.status?.kyc ?? 0),
        customer?.kycRejectionReason ? ` (${customer.kycRejectionReason})` : "",
      ),
    ),
    h("h2", {}, t().contracts),
    table(
      t().contracts,
      ["ID", t().status, t().created],
      contracts.map((c) => [h("code", {}, c.tokenId), enumName(ContractStatus, c.status), when(c.createdAt)]),
    ),
    ...contracts.filter((c) => c.mandate).map((c) => mandateView(c.tokenId, c.mandate!)),
    h("h2", {}, t().charges),
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
    h("h3", {}, `${t().mandate} (${contractId})`),
    h(
      "dl",
      {},
      ...row(t().mandateAccount, mandate.account?.display ?? ""),
      ...row(t().mandateVerification, enumName(MandateVerification, mandate.verification)),
      ...row(t().mandateTerms, mandate.termsVersion),
      ...row(t().mandateAccepted, when(mandate.acceptedAt)),
      ...row(t().mandateFrom, `${mandate.clientAddress} · ${mandate.userAgent}`),
      ...row(t().mandateHash, h("code", {}, mandate.accountHash)),
    ),
    download,
  );
}

export function chargesTable(charges: Charge[]): HTMLElement {
  return table(
    t().charges,
    [t().charge, t().amount, t().status, t().description, t().error, t().refunded, t().created],
    charges.map((c): Child[] => [
      h("a", { href: `#/charges/${c.chargeId}` }, c.chargeId),
      yen(c.finalAmount),
      enumName(ChargeStatus, c.chargeStatus),
      c.description,
      c.error ? `${c.error.message}` : "",
      c.refundedAmount ? yen(c.refundedAmount) : "",
      when(c.createdAt),
    ]),
  );
}
