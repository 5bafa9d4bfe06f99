import { alertBox, errorMessage, h, showAlert } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** Asks the shop to stop debiting under a contract (解約の依頼); the contract changes only when the shop acts. */
export function stopView(contractId: string, announce: (text: string) => void): HTMLElement {
  const alert = alertBox();
  const reason = h("textarea", { id: "stop-reason", name: "reason", maxlength: 500, rows: 4 });
  const submit = h("button", { type: "submit", class: "primary" }, t().sendStop);
  const form = h("form", {}, h("label", { for: "stop-reason" }, t().reason), reason, alert, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      await rpc.requestStop({ contractId, reason: reason.value });
      announce(t().stopSent);
      location.hash = "#/merchants";
    } catch (error) {
      showAlert(alert, errorMessage(error));
      submit.disabled = false;
    }
  });
  return h(
    "section",
    { class: "card" },
    h("h1", { id: "view-heading", tabindex: -1 }, t().stopHeading),
    h("p", {}, t().stopIntro),
    form,
    h("p", {}, h("a", { href: "#/merchants" }, t().back)),
  );
}
