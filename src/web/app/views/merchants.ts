import type { CustomerContract, CustomerMerchant } from "../../../../gen/payments/v1/customer_app_service_pb.js";
import { contractStatusWording } from "../../../domain/customer-wording.js";
import { facts, h, when } from "../dom.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** Which shops may debit the account: each with its contact, contracts, mandates and stop requests. */
export async function merchantsView(): Promise<HTMLElement> {
  const { merchants } = await rpc.listCustomerMerchants({});
  return h(
    "section",
    {},
    h("h1", { id: "view-heading", tabindex: -1 }, t().merchantsHeading),
    merchants.length === 0 ? h("p", { class: "empty" }, t().noMerchants) : merchants.map(merchantCard),
  );
}

function merchantCard(merchant: CustomerMerchant): HTMLElement {
  const contact = [
    merchant.supportEmail && h("a", { href: `mailto:${merchant.supportEmail}` }, merchant.supportEmail),
    merchant.supportPhone &&
      h("a", { href: `tel:${merchant.supportPhone.replace(/[^0-9+]/g, "")}` }, merchant.supportPhone),
    /^https:\/\//.test(merchant.supportUrl) &&
      h("a", { href: merchant.supportUrl, rel: "noopener noreferrer", target: "_blank" }, merchant.supportUrl),
  ].filter(Boolean);
  return h(
    "article",
    { class: "card merchant-card", "aria-labelledby": `m-${merchant.merchantId}` },
    h("h2", { id: `m-${merchant.merchantId}` }, merchant.name),
    contact.length > 0 &&
      h("p", { class: "contact" }, `${t().contact}: `, ...contact.flatMap((c, i) => (i ? [" · ", c] : [c]))),
    h("h3", {}, t().contracts),
    merchant.contracts.length === 0 ? h("p", {}, t().noContracts) : merchant.contracts.map(contractItem),
  );
}

function contractItem(contract: CustomerContract): HTMLElement {
  const rows: Array<[string, string | HTMLElement]> = [
    [t().contractStatus, contractStatusWording[contract.status][lang()]],
    [t().account, contract.account?.display ?? "—"],
    [t().consentedAt, contract.consentedAt ? when(contract.consentedAt, true) : "—"],
  ];
  const stop = contract.stopRequest
    ? h("p", { class: "badge stop-requested" }, t().stopRequested(when(contract.stopRequest.requestedAt, true)))
    : h("a", { class: "button-link", href: `#/stop/${encodeURIComponent(contract.contractId)}` }, t().askStop);
  return h("div", { class: "contract" }, facts(rows), stop);
}
