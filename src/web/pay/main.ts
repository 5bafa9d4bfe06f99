// The hosted payment page (docs/guide/hosted-page.md): InitiatePayment → the e-mailed code → the
// account, verified at the bank's own page → KYC → consent and ApprovePayment. One module per step
// under steps/; HostedPageService through the generated connect-web client (rpc.ts); every
// sentence in messages.ts, Japanese first.
import { current, load, showProblem } from "./flow.js";
import { whileBusy } from "./form.js";
import { $, applyLanguage, input, setText, showView, state, switchLanguage } from "./page.js";
import { approve } from "./steps/approve.js";
import { linkBank, wireBank } from "./steps/bank.js";
import { submitKyc } from "./steps/kyc.js";
import { sendCode, updateResendButton, verifyCode } from "./steps/two-factor.js";

function start(): void {
  for (const element of document.querySelectorAll("[data-i18n]"))
    setText(element, element.getAttribute("data-i18n") ?? "");
  $("sandbox-badge").hidden = !state.sandbox;
  const toggle = $("lang-toggle");
  toggle.hidden = false;
  toggle.addEventListener("click", () => switchLanguage(current.session?.merchant?.name));
  $("problem-retry").addEventListener("click", () => {
    showView("view-loading");
    void load();
  });
  $("send-code").addEventListener("click", () =>
    whileBusy($("step-two-factor"), () => sendCode(false), updateResendButton),
  );
  $("resend-code").addEventListener("click", () =>
    whileBusy($("form-two-factor"), () => sendCode(true), updateResendButton),
  );
  $("approve").addEventListener("click", () => void approve());
  wireBank();
  const forms: Record<string, (form: HTMLFormElement) => Promise<void>> = {
    "form-two-factor": verifyCode,
    "form-bank": linkBank,
    "form-kyc": submitKyc,
  };
  for (const [id, submit] of Object.entries(forms)) {
    const form = $<HTMLFormElement>(id);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void whileBusy(form, () => submit(form), updateResendButton);
    });
  }
  input("birth_date").max = new Date().toISOString().slice(0, 10);
  applyLanguage();
  if (!state.token || state.token === "assets")
    showProblem({ heading: "problem.unknownHeading", text: "problem.unknownText" });
  else void load();
}

start();
