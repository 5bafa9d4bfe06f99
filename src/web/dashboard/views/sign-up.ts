import { busy, errorBox, field, h } from "../dom.js";
import { ot } from "../i18n-onboarding.js";
import { rpc } from "../rpc.js";

/**
 * Sign-up (#/sign-up; docs/guide/getting-started.md#sign-up): the e-mail, then its code, a
 * password and the business's name; then the API key and webhook secret, shown once. The owner
 * enrols TOTP next (the app shows nothing else until then).
 */
export function signUpView(onSignedUp: () => Promise<void>): HTMLElement {
  const email = h("input", { type: "email", autocomplete: "username", required: true, maxlength: 254 });
  const send = h("button", { type: "submit" }, ot().sendCode);
  const problem = errorBox();
  const first = h(
    "form",
    { class: "card narrow" },
    h("p", {}, ot().signUpIntro),
    field(ot().email, email),
    problem,
    send,
  );
  const section = h(
    "section",
    {},
    h("h1", { tabindex: -1 }, ot().signUpTitle),
    first,
    h("p", {}, h("a", { href: "#/" }, ot().toSignIn)),
  );
  first.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(send, problem, async () => {
      await rpc.startSignUp({ email: email.value.trim() });
      const second = detailsForm(email.value.trim(), (secrets) => second.replaceWith(secrets), onSignedUp);
      first.replaceWith(second);
      second.querySelector("input")?.focus();
    });
  });
  return section;
}

function detailsForm(
  email: string,
  show: (secrets: HTMLElement) => void,
  onSignedUp: () => Promise<void>,
): HTMLFormElement {
  const code = h("input", {
    inputmode: "numeric",
    pattern: "[0-9]{6}",
    maxlength: 6,
    autocomplete: "one-time-code",
    required: true,
  });
  const password = h("input", { type: "password", autocomplete: "new-password", minlength: 12, required: true });
  const businessName = h("input", { type: "text", autocomplete: "organization", maxlength: 100, required: true });
  const create = h("button", { type: "submit" }, ot().create);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card narrow" },
    h("p", { role: "status" }, ot().codeSent(email)),
    field(ot().code, code),
    field(ot().password, password),
    field(ot().businessName, businessName),
    problem,
    create,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(create, problem, async () => {
      const answer = await rpc.completeSignUp({
        email,
        code: code.value.trim(),
        password: password.value,
        businessName: businessName.value.trim(),
      });
      if (!answer.verified) {
        problem.textContent = ot().wrongCode(answer.attemptsLeft);
        return;
      }
      const secrets = secretsCard(answer.apiKey, answer.webhookSecret, onSignedUp);
      show(secrets);
      secrets.querySelector("button")?.focus();
    });
  });
  return form;
}

/** The secrets, once; going on leads to the TOTP enrolment, then to the first-screen guide. */
function secretsCard(apiKey: string, webhookSecret: string, onSignedUp: () => Promise<void>): HTMLElement {
  const next = h("button", { type: "button" }, ot().saved);
  next.addEventListener("click", () => {
    location.hash = "#/start";
    void onSignedUp();
  });
  return h(
    "div",
    { class: "card narrow" },
    h("h2", {}, ot().secretsTitle),
    h("p", {}, ot().secretsIntro),
    apiKey
      ? h("p", {}, `${ot().apiKey}: `, h("code", { class: "secret", "data-testid": "api-key" }, apiKey))
      : h("p", {}, ot().noLiveKey),
    h(
      "p",
      {},
      `${ot().webhookSecret}: `,
      h("code", { class: "secret", "data-testid": "webhook-secret" }, webhookSecret),
    ),
    next,
  );
}

/** The first screen after sign-up (#/start): three steps to a first webhook. */
export function startView(): HTMLElement {
  return h(
    "section",
    {},
    h("h1", { tabindex: -1 }, ot().startTitle),
    h(
      "ol",
      { class: "card" },
      ot().startSteps.map((step) => h("li", {}, step)),
    ),
    h("p", {}, h("a", { href: "#/onboarding" }, ot().checklistLink)),
    // The documentation ships with the server's source, not from this origin.
    h("p", {}, `${ot().docsLink}: `, h("code", {}, "docs/guide/getting-started.md")),
  );
}
