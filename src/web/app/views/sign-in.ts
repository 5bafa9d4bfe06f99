import { alertBox, errorMessage, h, showAlert } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

/**
 * Sign-in in two steps: the e-mail, then the 6-digit code sent to it. The page says the same
 * whatever the e-mail is (the server does not tell whether a shop knows it).
 */
export function signInView(onSignedIn: () => void): HTMLElement {
  const section = h("section", { class: "card", "aria-labelledby": "view-heading" });
  emailStep(section, onSignedIn, "");
  return section;
}

function emailStep(section: HTMLElement, onSignedIn: () => void, given: string): void {
  const alert = alertBox();
  const email = h("input", {
    id: "email",
    type: "email",
    name: "email",
    autocomplete: "email",
    required: true,
    value: given,
    "aria-describedby": "email-intro",
  });
  const submit = h("button", { type: "submit", class: "primary" }, t().sendCode);
  const form = h("form", { novalidate: true }, h("label", { for: "email" }, t().email), email, alert, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const address = email.value.trim();
    if (!email.checkValidity() || address === "") {
      showAlert(alert, t().errors.invalid_argument);
      email.focus();
      return;
    }
    submit.disabled = true;
    try {
      await rpc.sendSignInCode({ email: address });
      codeStep(section, onSignedIn, address);
    } catch (error) {
      showAlert(alert, errorMessage(error));
      submit.disabled = false;
    }
  });
  section.replaceChildren(
    h("h1", { id: "view-heading", tabindex: -1 }, t().signInHeading),
    h("p", { id: "email-intro" }, t().signInIntro),
    form,
  );
}

function codeStep(section: HTMLElement, onSignedIn: () => void, address: string): void {
  const alert = alertBox();
  const code = h("input", {
    id: "code",
    name: "code",
    inputmode: "numeric",
    autocomplete: "one-time-code",
    pattern: "[0-9]{6}",
    maxlength: 6,
    required: true,
    "aria-describedby": "code-hint",
  });
  const submit = h("button", { type: "submit", class: "primary" }, t().verify);
  const form = h(
    "form",
    { novalidate: true },
    h("label", { for: "code" }, t().code),
    h("p", { id: "code-hint", class: "hint" }, t().codeHint),
    code,
    alert,
    submit,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!/^[0-9]{6}$/.test(code.value.trim())) {
      showAlert(alert, t().codeHint);
      code.focus();
      return;
    }
    submit.disabled = true;
    try {
      const answer = await rpc.verifySignInCode({ email: address, code: code.value.trim() });
      if (answer.verified) return onSignedIn();
      showAlert(alert, answer.attemptsLeft > 0 ? t().wrongCode(answer.attemptsLeft) : t().noAttempts);
      code.select();
    } catch (error) {
      showAlert(alert, errorMessage(error));
    }
    submit.disabled = false;
  });
  const resend = h("button", { type: "button", class: "link-button" }, t().resend);
  resend.addEventListener("click", async () => {
    try {
      await rpc.sendSignInCode({ email: address });
      showAlert(alert, "");
      code.value = "";
      code.focus();
    } catch (error) {
      showAlert(alert, errorMessage(error));
    }
  });
  const other = h("button", { type: "button", class: "link-button" }, t().otherEmail);
  other.addEventListener("click", () => {
    emailStep(section, onSignedIn, address);
    section.querySelector<HTMLInputElement>("#email")?.focus();
  });
  section.replaceChildren(
    h("h1", { id: "view-heading", tabindex: -1 }, t().signInHeading),
    h("p", { role: "status" }, t().codeSentIntro(address)),
    form,
    h("p", { class: "actions" }, resend, other),
  );
  code.focus();
}
