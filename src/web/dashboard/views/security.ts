import type { AppContext } from "../app-context.js";
import { busy, errorBox, field, h } from "../dom.js";
import { t } from "../i18n.js";
import { st } from "../i18n-settings.js";
import { rpc } from "../rpc.js";
import { DashboardRole, may } from "../roles.js";

/**
 * TOTP enrolment: a QR code and the secret, confirmed with a first code, then the recovery codes
 * (shown once). Once enrolled: the merchant's "every user needs TOTP" setting.
 */
export async function securityView(app: AppContext): Promise<HTMLElement> {
  const section = h("section", {}, h("h1", { tabindex: -1 }, t().totpTitle));
  if (app.user.totpEnabled) {
    section.append(
      h("p", { class: "ok" }, t().totpEnabled),
      may(app.user, DashboardRole.OWNER) ? requirementForm(app) : "",
    );
    return section;
  }
  // An invitee (or a user whose TOTP was reset) lands here first: say that enrolment comes first.
  if (app.user.totpSetupRequired)
    section.append(h("p", { class: "card notice", "data-testid": "totp-first" }, st().totpFirst));
  else if (app.user.merchantRequiresTotp) section.append(h("p", { class: "error" }, t().requireTotpNotice));
  const start = h("button", { type: "button" }, t().totpStart);
  const problem = errorBox();
  const area = h("div", {});
  start.addEventListener("click", () =>
    busy(start, problem, async () => {
      const begun = await rpc.beginTotpEnrollment({});
      const qr = h("img", {
        src: `data:image/svg+xml;base64,${btoa(begun.qrSvg)}`,
        alt: t().totpQrAlt,
        width: 220,
        height: 220,
        class: "qr",
      });
      const code = h("input", {
        inputmode: "numeric",
        pattern: "[0-9]{6}",
        maxlength: 6,
        autocomplete: "one-time-code",
        required: true,
      });
      const confirm = h("button", { type: "submit" }, t().totpConfirm);
      const confirmProblem = errorBox();
      const form = h("form", { class: "card narrow" }, field(t().totpCode, code), confirmProblem, confirm);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        void busy(confirm, confirmProblem, async () => {
          const { recoveryCodes } = await rpc.confirmTotpEnrollment({ code: code.value.trim() });
          const saved = h("button", { type: "button" }, t().recoverySaved);
          saved.addEventListener("click", () => void app.refreshUser());
          area.replaceChildren(
            h("h2", {}, t().recoveryTitle),
            h("p", {}, t().recoveryIntro),
            h(
              "ol",
              { class: "recovery-codes", "data-testid": "recovery-codes" },
              recoveryCodes.map((recoveryCode) => h("li", {}, h("code", {}, recoveryCode))),
            ),
            saved,
          );
          app.announce(t().totpEnabled);
          saved.focus();
        });
      });
      area.replaceChildren(
        qr,
        h("p", {}, t().totpSecret, ": ", h("code", { class: "secret", "data-testid": "totp-secret" }, begun.secret)),
        form,
      );
      start.hidden = true;
      code.focus();
    }),
  );
  section.append(h("p", {}, t().totpIntro), start, problem, area);
  return section;
}

/** The owner's setting: every user of the merchant must enrol TOTP (a sensitive call: asks for a code). */
function requirementForm(app: AppContext): HTMLElement {
  const required = h("input", { type: "checkbox", checked: app.user.merchantRequiresTotp });
  const save = h("button", { type: "submit" }, t().save);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card" },
    h("div", { class: "check" }, required, h("label", { for: (required.id = "require-totp") }, t().requireTotp)),
    problem,
    save,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(save, problem, async () => {
      await rpc.setTotpRequirement({ required: required.checked });
      app.announce(t().requireTotpSaved);
    });
  });
  return form;
}
