import type { AppContext } from "../app-context.js";
import { busy, errorBox, field, h, table, when } from "../dom.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** API keys (create, revoke) and the webhook URL and signing secret. */
export async function settingsView(app: AppContext): Promise<HTMLElement> {
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
  section.append(h("h2", {}, t().apiKeys), problem, keysArea, create, shown);

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
    webhookProblem,
    save,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(save, webhookProblem, async () => {
      const updated = await rpc.updateWebhookSettings({ url: url.value.trim(), rotateSecret: rotate.checked });
      currentSecret = updated.secret;
      rotate.checked = false;
      if (revealed) secret.textContent = currentSecret;
      app.announce(t().saved);
    });
  });
  section.append(h("h2", {}, t().webhook), form);

  const { contact } = await rpc.getSupportContact({});
  const supportEmail = h("input", { type: "email", value: contact?.email ?? "", maxlength: 254 });
  const supportPhone = h("input", { type: "tel", value: contact?.phone ?? "", maxlength: 32 });
  const supportUrl = h("input", { type: "url", value: contact?.url ?? "", maxlength: 2048 });
  const saveContact = h("button", { type: "submit" }, t().save);
  const contactProblem = errorBox();
  const contactForm = h(
    "form",
    { class: "card" },
    field(t().supportEmail, supportEmail),
    field(t().supportPhone, supportPhone),
    field(t().supportUrl, supportUrl),
    contactProblem,
    saveContact,
  );
  contactForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(saveContact, contactProblem, async () => {
      await rpc.updateSupportContact({
        contact: { email: supportEmail.value.trim(), phone: supportPhone.value.trim(), url: supportUrl.value.trim() },
      });
      app.announce(t().saved);
    });
  });
  // The consignor form before the support contact, which stays the page's last form.
  section.append(h("h2", {}, t().consignor), await consignorForm(app));
  section.append(h("h2", {}, t().supportContact), contactForm);
  return section;
}

/** The Zengin consignor settings (BANK_CONNECTOR=zengin), as `merchants update --consignor-…` sets them. */
async function consignorForm(app: AppContext): Promise<HTMLElement> {
  const { settings } = await rpc.getConsignorSettings({});
  const input = (value: string, attributes: Record<string, string | number> = {}) =>
    h("input", { type: "text", value, ...attributes });
  const inputs = {
    code: input(settings?.code ?? "", { inputmode: "numeric", maxlength: 10 }),
    name: input(settings?.name ?? "", { maxlength: 80 }),
    bankCode: input(settings?.bankCode ?? "", { inputmode: "numeric", maxlength: 4 }),
    bankName: input(settings?.bankName ?? "", { maxlength: 30 }),
    branchCode: input(settings?.branchCode ?? "", { inputmode: "numeric", maxlength: 3 }),
    branchName: input(settings?.branchName ?? "", { maxlength: 30 }),
    accountType: input(settings?.accountType ? String(settings.accountType) : "1", {
      inputmode: "numeric",
      maxlength: 1,
    }),
    accountNumber: input(settings?.accountNumber ?? "", { inputmode: "numeric", maxlength: 7 }),
    debitDay: input(settings?.debitDay ? String(settings.debitDay) : "", { inputmode: "numeric", maxlength: 2 }),
  };
  const save = h("button", { type: "submit" }, t().save);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card" },
    field(t().consignorCode, inputs.code),
    field(t().consignorName, inputs.name),
    field(t().consignorBank, inputs.bankCode),
    field(t().consignorBankName, inputs.bankName),
    field(t().consignorBranch, inputs.branchCode),
    field(t().consignorBranchName, inputs.branchName),
    field(t().consignorAccountType, inputs.accountType),
    field(t().consignorAccount, inputs.accountNumber),
    field(t().debitDay, inputs.debitDay),
    problem,
    save,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(save, problem, async () => {
      const { settings: saved } = await rpc.updateConsignorSettings({
        settings: {
          code: inputs.code.value.trim(),
          name: inputs.name.value.trim(),
          bankCode: inputs.bankCode.value.trim(),
          bankName: inputs.bankName.value.trim(),
          branchCode: inputs.branchCode.value.trim(),
          branchName: inputs.branchName.value.trim(),
          accountType: Number(inputs.accountType.value.trim() || 0),
          accountNumber: inputs.accountNumber.value.trim(),
          debitDay: Number(inputs.debitDay.value.trim() || 0),
        },
      });
      // Shown as the bank will see them (half-width kana).
      inputs.name.value = saved?.name ?? inputs.name.value;
      inputs.bankName.value = saved?.bankName ?? inputs.bankName.value;
      inputs.branchName.value = saved?.branchName ?? inputs.branchName.value;
      app.announce(t().saved);
    });
  });
  return form;
}
