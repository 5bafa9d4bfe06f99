import { busy, errorBox, field, h } from "../dom.js";
import { t } from "../i18n.js";

/** The input for a TOTP code (6 digits) or a recovery code (xxxx-xxxx-xxxx-xxxx). */
export function secondFactorInput(): HTMLInputElement {
  return h("input", {
    name: "code",
    autocomplete: "one-time-code",
    pattern: "[0-9]{6}|[0-9a-fA-F]{4}(-?[0-9a-fA-F]{4}){3}",
    maxlength: 19,
    required: true,
  });
}

/** A form asking for a TOTP or recovery code; `submit` gets the code and shows its error here. */
export function secondFactorForm(submit: (code: string) => Promise<void>, extra?: HTMLElement): HTMLFormElement {
  const code = secondFactorInput();
  const verify = h("button", { type: "submit" }, t().verify);
  const problem = errorBox();
  const form = h("form", { class: "card narrow" }, field(t().secondFactorCode, code), problem, verify, extra);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(verify, problem, () => submit(code.value.trim()));
  });
  return form;
}

/**
 * Step-up: a modal dialog asking for a code, until `verify` accepts one (true) or the user
 * cancels (false).
 */
export function askForStepUp(verify: (code: string) => Promise<void>): Promise<boolean> {
  return new Promise((resolve) => {
    const cancel = h("button", { type: "button", class: "secondary" }, t().cancel);
    const dialog = h("dialog", { "aria-labelledby": "step-up-title" });
    const finish = (verified: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(verified);
    };
    cancel.addEventListener("click", () => finish(false));
    dialog.addEventListener("cancel", (event) => (event.preventDefault(), finish(false)));
    dialog.append(
      h("h2", { id: "step-up-title" }, t().stepUpTitle),
      h("p", {}, t().stepUpIntro),
      secondFactorForm(async (code) => {
        await verify(code);
        finish(true);
      }, cancel),
    );
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector("input")?.focus();
  });
}
