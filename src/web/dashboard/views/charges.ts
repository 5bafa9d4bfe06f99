import { ChargeStatus, RefundStatus } from "../../../../gen/payments/v1/enums_pb.js";
import type { AppContext } from "../app-context.js";
import { busy, enumName, errorBox, field, h, table, when, yen } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";
import { chargesTable } from "./customers.js";

export async function chargesView(): Promise<HTMLElement> {
  const list = h("div", {});
  const more = h("button", { type: "button", class: "secondary" }, t().more);
  let token = "";
  const load = async () => {
    const page = await rpc.listCharges({ pageSize: 50, pageToken: token });
    list.append(chargesTable(page.charges));
    token = page.nextPageToken;
    more.hidden = token === "";
  };
  more.addEventListener("click", () => void load());
  await load();
  return h("section", {}, h("h1", { tabindex: -1 }, t().navCharges), list, more);
}

/** One charge with its refunds and the refund action (through the refund flow, as PaymentService.Refund). */
export async function chargeView(app: AppContext, id: string): Promise<HTMLElement> {
  const { charge, customer } = await rpc.getChargeDetail({ chargeId: id });
  if (!charge) throw new Error(`charge ${id} not found`);
  const section = h(
    "section",
    {},
    h("p", {}, h("a", { href: customer ? `#/customers/${customer.id}` : "#/charges" }, "← ", t().back)),
    h("h1", { tabindex: -1 }, `${t().charge} ${charge.chargeId}`),
  );
  section.append(
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, t().amount),
      h("dd", {}, yen(charge.finalAmount)),
      h("dt", {}, t().status),
      h("dd", { "data-testid": "charge-status" }, enumName(ChargeStatus, charge.chargeStatus)),
      h("dt", {}, t().description),
      h("dd", {}, charge.description),
      h("dt", {}, t().customerId),
      h("dd", {}, customer ? h("a", { href: `#/customers/${customer.id}` }, customer.email) : "—"),
      charge.error ? [h("dt", {}, t().error), h("dd", {}, `${charge.error.message}`)] : null,
      h("dt", {}, t().refunded),
      h("dd", {}, yen(charge.refundedAmount)),
      h("dt", {}, t().refundable),
      h("dd", { "data-testid": "refundable" }, yen(charge.refundableAmount)),
    ),
    h("h2", {}, t().refunds),
    table(
      t().refunds,
      ["ID", t().amount, t().status, t().refundReason, t().created],
      charge.refunds.map((r) => [
        h("code", {}, r.refundId),
        yen(r.amount),
        enumName(RefundStatus, r.status),
        r.reason,
        when(r.createdAt),
      ]),
    ),
  );
  if (charge.refundableAmount > 0) {
    const amount = h("input", { type: "number", min: 1, max: charge.refundableAmount, step: 1, inputmode: "numeric" });
    const reason = h("input", { type: "text", maxlength: 255 });
    const submit = h("button", { type: "submit" }, t().refund);
    const problem = errorBox();
    const form = h(
      "form",
      { class: "card narrow" },
      h("h2", {}, t().refund),
      field(t().refundAmount, amount),
      field(t().refundReason, reason),
      problem,
      submit,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void busy(submit, problem, async () => {
        await rpc.refundCharge({
          refund: {
            chargeId: charge.chargeId,
            amount: amount.value ? Number(amount.value) : undefined,
            reason: reason.value,
          },
        });
        app.announce(t().refundDone);
        section.replaceWith(await chargeView(app, id));
      });
    });
    section.append(form);
  }
  return section;
}
