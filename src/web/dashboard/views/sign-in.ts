import { busy, errorBox, field, h } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

export function signInView(onSignedIn: () => Promise<void>): HTMLElement {
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const submit = h("button", { type: "submit" }, t().signIn);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card narrow" },
    field(t().email, email),
    field(t().password, password),
    problem,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(submit, problem, async () => {
      await rpc.signIn({ email: email.value, password: password.value });
      await onSignedIn();
    });
  });
  return h("section", {}, h("h1", { tabindex: -1 }, t().signInTitle), form);
}
