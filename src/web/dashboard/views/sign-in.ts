import { busy, errorBox, field, h } from "../dom.js";
import { t } from "../i18n.js";
import { ot } from "../i18n-onboarding.js";
import { rpc } from "../rpc.js";
import { secondFactorForm } from "./second-factor.js";

/** Sign-in: the e-mail and password, then (for a user with TOTP) a code. */
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
  const heading = h("h1", { tabindex: -1 }, t().signInTitle);
  const section = h("section", {}, heading, form, h("p", {}, h("a", { href: "#/sign-up" }, ot().signUpLink)));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(submit, problem, async () => {
      const first = await rpc.signIn({ email: email.value, password: password.value });
      if (!first.totpRequired) return onSignedIn();
      heading.textContent = t().secondStepTitle;
      const second = secondFactorForm(async (code) => {
        await rpc.completeSignIn({ signInToken: first.signInToken, code });
        await onSignedIn();
      });
      form.replaceWith(second);
      second.querySelector("input")?.focus();
    });
  });
  return section;
}
