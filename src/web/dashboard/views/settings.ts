import type { AppContext } from "../app-context.js";
import { actionRow, busy, doneBox, errorBox, field, h, table, when } from "../dom.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** API keys (create, revoke) and the webhook URL and signing secret. */
export async function settingsView(_app: AppContext): Promise<HTMLElement> {
  const section = h("section", {}, h("h1", { tabindex: -1 }, t().navSettings));
  const keysArea = h("div", {});
  const problem = errorBox();
  const renderKeys = async () => {
    const { keys } = await rpc.listApiKeys({});
    keysArea.replaceChildren(
      table(
        t().apiKeys,
        [t().keyPrefix, t().created, t().status, t().actions],
        keys.map((key) => {
          const revoke = h(
            "button",
            { type: "button", class: "secondary", "aria-label": `${t().revoke} ${key.prefix}…` },
            t().revoke,
          );
          revoke.addEventListener("click", () => {
            if (!confirm(t().revokeConfirm)) return;
            void busy(revoke, problem, async () => {
              await rpc.revokeApiKey({ id: key.id });
              await renderKeys();
            });
          });
          return [
            h("code", {}, `${key.prefix}…`),
            when(key.createdAt),
            key.revokedAt ? `${t().revoked} ${when(key.revokedAt)}` : t().active,
            key.revokedAt ? "" : revoke,
          ];
        }),
      ),
    );
  };
  const create = h("button", { type: "button" }, t().createKey);
  const shown = h("div", { "aria-live": "polite" });
  create.addEventListener("click", () =>
    busy(create, problem, async () => {
      const { secret } = await rpc.createApiKey({});
      shown.replaceChildren(h("p", { class: "card" }, t().newKeyShown, " ", h("code", { class: "secret" }, secret)));
      await renderKeys();
    }),
  );
  await renderKeys();
  section.append(h("h2", {}, t().apiKeys), keysArea, h("div", { class: "actions outcome" }, create, problem), shown);

  const settings = await rpc.getWebhookSettings({});
  const url = h("input", { type: "url", value: settings.url, maxlength: 2048 });
  const rotate = h("input", { type: "checkbox" });
  const secret = h("code", { class: "secret" }, "••••••••");
  let revealed = false;
  let currentSecret = settings.secret;
  const reveal = h("button", { type: "button", class: "secondary", "aria-pressed": "false" }, t().show);
  reveal.addEventListener("click", () => {
    revealed = !revealed;
    secret.textContent = revealed ? currentSecret : "••••••••";
    reveal.textContent = revealed ? t().hide : t().show;
    reveal.setAttribute("aria-pressed", String(revealed));
  });
  const save = h("button", { type: "submit" }, t().save);
  const webhookProblem = errorBox();
  const webhookDone = doneBox();
  const form = h(
    "form",
    { class: "card" },
    field(t().webhookUrl, url),
    h("p", {}, t().webhookSecret, ": ", secret, " ", reveal),
    h("div", { class: "check" }, rotate, h("label", { for: (rotate.id = "rotate-secret") }, t().rotateSecret)),
    // The failing reason is the delivery error as recorded (English): the Japanese page says it failed.
    settings.failing
      ? h("p", { class: "error" }, t().failing, " ", lang() === "en" ? settings.failingReason : t().webhookFailingJa)
      : null,
    actionRow(save, webhookDone, webhookProblem),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(save, webhookProblem, async () => {
      const updated = await rpc.updateWebhookSettings({ url: url.value.trim(), rotateSecret: rotate.checked });
      currentSecret = updated.secret;
      rotate.checked = false;
      if (revealed) secret.textContent = currentSecret;
      webhookDone.textContent = t().saved;
    });
  });
  section.append(h("h2", {}, t().webhook), form);

  const { contact } = await rpc.getSupportContact({});
  const supportEmail = h("input", { type: "email", value: contact?.email ?? "", maxlength: 254 });
  const supportPhone = h("input", { type: "tel", value: contact?.phone ?? "", maxlength: 32 });
  const supportUrl = h("input", { type: "url", value: contact?.url ?? "", maxlength: 2048 });
  const saveContact = h("button", { type: "submit" }, t().save);
  const contactProblem = errorBox();
  const contactDone = doneBox();
  const contactForm = h(
    "form",
    { class: "card" },
    field(t().supportEmail, supportEmail),
    field(t().supportPhone, supportPhone),
    field(t().supportUrl, supportUrl),
    actionRow(saveContact, contactDone, contactProblem),
  );
  contactForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(saveContact, contactProblem, async () => {
      await rpc.updateSupportContact({
        contact: { email: supportEmail.value.trim(), phone: supportPhone.value.trim(), url: supportUrl.value.trim() },
      });
      contactDone.textContent = t().saved;
    });
  });
  // The consignor contracts have their own page (#/consignor, views/consignor.ts).
  section.append(h("h2", {}, t().supportContact), contactForm);
  return section;
}
