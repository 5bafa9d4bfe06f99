import { BusinessKind, OnboardingState } from "../../../../gen/payments/v1/dashboard_service_pb.js";
import type { OnboardingChecklist } from "../../../../gen/payments/v1/dashboard_service_pb.js";
import { busy, errorBox, field, h } from "../dom.js";
import { ot } from "../i18n-onboarding.js";
import { rpc } from "../rpc.js";

/**
 * The going-live checklist (#/onboarding; docs/guide/getting-started.md#the-checklist): where the
 * merchant stands, each item saved as it is done, then the submission to the operator.
 */
export async function onboardingView(): Promise<HTMLElement> {
  const section = h("section", {}, h("h1", { tabindex: -1 }, ot().checklistTitle));
  const area = h("div", {});
  const show = (checklist: OnboardingChecklist) => area.replaceChildren(...checklistParts(checklist, show));
  show((await rpc.getOnboarding({})).checklist!);
  section.append(area);
  return section;
}

function checklistParts(checklist: OnboardingChecklist, show: (c: OnboardingChecklist) => void): HTMLElement[] {
  const editable = checklist.state === OnboardingState.INCOMPLETE;
  const done = (item: string) => !checklist.missing.includes(item);
  const item = (name: string, label: string, action?: HTMLElement) =>
    h(
      "li",
      { "data-testid": `item-${name}` },
      h("strong", {}, done(name) ? ot().itemDone : ot().itemToDo),
      " ",
      label,
      editable && action ? action : null,
    );
  const problem = errorBox();
  const parts: HTMLElement[] = [h("p", { role: "status", "data-testid": "state" }, ot().states[checklist.state] ?? "")];
  if (checklist.sentBackReason) parts.push(h("p", { class: "error" }, `${ot().sentBack}: ${checklist.sentBackReason}`));
  const webhookButton = h("button", { type: "button", class: "secondary" }, ot().sendTestEvent);
  webhookButton.addEventListener("click", () =>
    busy(webhookButton, problem, async () => {
      await rpc.sendOnboardingTestEvent({});
      problem.textContent = ot().testEventSent;
    }),
  );
  const termsButton = h(
    "button",
    { type: "button", class: "secondary" },
    ot().acceptTerms(checklist.currentTermsVersion),
  );
  termsButton.addEventListener("click", () =>
    busy(termsButton, problem, async () => {
      show((await rpc.acceptMerchantTerms({ version: checklist.currentTermsVersion })).checklist!);
    }),
  );
  parts.push(
    h(
      "ol",
      { class: "card" },
      item("business", ot().itemBusiness),
      item("zengin_contract", ot().itemZengin),
      item("webhook", ot().itemWebhook, webhookButton),
      item("terms", ot().itemTerms, termsButton),
    ),
  );
  if (editable) parts.push(businessForm(checklist, show));
  const submit = h("button", { type: "button" }, ot().submit);
  submit.addEventListener("click", () =>
    busy(submit, problem, async () => {
      show((await rpc.submitOnboarding({})).checklist!);
    }),
  );
  parts.push(problem);
  if (editable) parts.push(submit);
  return parts;
}

function businessForm(checklist: OnboardingChecklist, show: (c: OnboardingChecklist) => void): HTMLElement {
  const saved = checklist.business;
  const input = (value: string | undefined, attributes: Record<string, string | number | boolean> = {}) =>
    h("input", { type: "text", value: value ?? "", required: true, ...attributes });
  const kind = h(
    "select",
    {},
    h("option", { value: String(BusinessKind.CORPORATION) }, ot().corporation),
    h("option", { value: String(BusinessKind.SOLE_PROPRIETOR) }, ot().soleProprietor),
  );
  kind.value = String(saved?.kind ?? BusinessKind.CORPORATION);
  const corporateNumber = input(saved?.corporateNumber, { inputmode: "numeric", maxlength: 13, required: false });
  const tradeName = input(saved?.tradeName, { maxlength: 100 });
  const tradeNameKana = input(saved?.tradeNameKana, { maxlength: 100 });
  const address = input(saved?.address, { maxlength: 200, autocomplete: "street-address" });
  const representative = input(saved?.representative, { maxlength: 100 });
  const phone = input(saved?.phone, { type: "tel", autocomplete: "tel" });
  const invoiceNumber = input(saved?.invoiceRegistrationNumber, {
    maxlength: 14,
    required: false,
    autocapitalize: "characters",
  });
  const save = h("button", { type: "submit" }, ot().saveBusiness);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card narrow" },
    h("h2", {}, ot().itemBusiness),
    field(ot().kind, kind),
    field(ot().corporateNumber, corporateNumber, ot().corporateNumberHint),
    field(ot().tradeName, tradeName),
    field(ot().tradeNameKana, tradeNameKana),
    field(ot().address, address),
    field(ot().representative, representative),
    field(ot().phone, phone),
    field(ot().invoiceNumber, invoiceNumber, ot().invoiceNumberHint),
    problem,
    save,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(save, problem, async () => {
      const answer = await rpc.saveBusinessDetails({
        business: {
          kind: Number(kind.value) as BusinessKind,
          corporateNumber: corporateNumber.value.trim(),
          tradeName: tradeName.value,
          tradeNameKana: tradeNameKana.value,
          address: address.value,
          representative: representative.value,
          phone: phone.value.trim(),
          invoiceRegistrationNumber: invoiceNumber.value.trim().toUpperCase(),
        },
      });
      show(answer.checklist!);
    });
  });
  return form;
}
