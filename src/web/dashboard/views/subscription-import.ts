import type {
  ListSubscriptionImportRowsResponse,
  SubscriptionImport,
  SubscriptionImportRow,
} from "../../../../gen/payments/v1/dashboard_service_pb.js";
import { formatJstDate } from "../../../domain/display-format.js";
import { subscriptionImportColumns } from "../../../domain/subscription-import.js";
import type { AppContext } from "../app-context.js";
import { busy, confirmAction, errorBox, field, h, saveFile, table, when, yenCell } from "../dom.js";
import { bt } from "../i18n-billing.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";
import { rememberChallenge, rememberedChallenge, totpCodeInput } from "../totp-challenge.js";

/**
 * The CSV import of subscriptions on the recurring-billing page
 * (docs/guide/recurring-billing.md#importing-subscriptions-from-a-csv-file): upload a file, read
 * each row as it will be applied, confirm with a TOTP code, download the result of a finished one.
 */
export async function subscriptionImportSection(app: AppContext, operator: boolean): Promise<HTMLElement> {
  const panel = h("div", {});
  const { subscriptionImports } = await rpc.listSubscriptionImports({ pageSize: 10 });
  const problem = errorBox();
  const recent = table(
    bt().imports,
    [t().file, t().status, t().rows, bt().importCreated, t().failed, t().created, bt().actions],
    subscriptionImports.map((item) => [
      item.fileName,
      bt().importStatus[item.status as "uploaded" | "completed"] ?? item.status,
      item.rowCount,
      item.created,
      item.failed,
      when(item.createdAt),
      item.status === "completed" ? downloadButton(item, problem) : operator ? reviewButton(app, item, panel) : "",
    ]),
    bt().importsEmpty,
  );
  return h("div", {}, operator ? uploadForm(app, panel) : null, panel, h("h3", {}, bt().imports), problem, recent);
}

function uploadForm(app: AppContext, panel: HTMLElement): HTMLElement {
  if (!app.user.totpEnabled)
    return h("p", { class: "error" }, bt().importTotpNeeded, " ", h("a", { href: "#/security" }, t().navSecurity));
  const file = h("input", { type: "file", accept: ".csv,text/csv", required: true });
  const submit = h("button", { type: "submit" }, t().upload);
  const template = h("button", { type: "button", class: "secondary" }, t().template);
  template.addEventListener("click", () =>
    saveFile(
      new Blob([`\uFEFF${subscriptionImportColumns.join(",")}\r\n`], { type: "text/csv;charset=utf-8" }),
      "furikomi-subscriptions-template.csv",
    ),
  );
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card", "aria-label": bt().importTitle },
    field(bt().importFile, file, bt().importHelp),
    problem,
    submit,
    " ",
    template,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return;
    void busy(submit, problem, async () => {
      const uploaded = await rpc.uploadSubscriptionImport({
        fileName: chosen.name,
        content: new Uint8Array(await chosen.arrayBuffer()),
      });
      const importId = uploaded.subscriptionImport!.importId;
      rememberChallenge(importId, uploaded.challengeId);
      await showPreview(app, importId, panel);
    });
  });
  return form;
}

function reviewButton(app: AppContext, item: SubscriptionImport, panel: HTMLElement): HTMLElement {
  const button = h(
    "button",
    { type: "button", class: "secondary", "aria-label": `${bt().review} ${item.fileName}` },
    bt().review,
  );
  const problem = errorBox();
  button.addEventListener("click", () => busy(button, problem, () => showPreview(app, item.importId, panel)));
  return h("span", {}, button, problem);
}

function downloadButton(item: SubscriptionImport, problem: HTMLElement): HTMLElement {
  const button = h(
    "button",
    { type: "button", class: "secondary", "aria-label": `${t().download} ${item.fileName}` },
    t().download,
  );
  button.addEventListener("click", () =>
    busy(button, problem, async () => {
      const result = await rpc.downloadSubscriptionImportResult({ importId: item.importId });
      saveFile(new Blob([result.content as BlobPart], { type: "text/csv;charset=utf-8" }), result.fileName);
    }),
  );
  return button;
}

/** Before confirmation: every row as it will be applied, the rows that will not with why, and the code. */
async function showPreview(app: AppContext, importId: string, panel: HTMLElement): Promise<void> {
  const rows = await rpc.listSubscriptionImportRows({ importId });
  const valid = rows.rows.filter((row) => row.status !== "failed");
  const invalid = rows.rows.filter((row) => row.status === "failed");
  panel.replaceChildren(
    h(
      "div",
      { class: "card" },
      h("h3", { tabindex: -1 }, bt().importPreview),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, bt().importValid),
        h("dd", { "data-testid": "import-valid" }, rows.validCount),
        h("dt", {}, bt().importInvalid),
        h("dd", { "data-testid": "import-invalid" }, rows.invalidCount),
      ),
      h("h4", {}, bt().importValid),
      validTable(valid),
      invalid.length ? [h("h4", {}, bt().importInvalid), invalidTable(invalid)] : null,
      confirmForm(app, importId, rows),
    ),
  );
  panel.querySelector("h3")?.focus();
}

function customerOf(row: SubscriptionImportRow): string {
  return row.resolvedCustomerId || row.customerId || row.customerEmail;
}

function validTable(rows: SubscriptionImportRow[]): HTMLElement {
  return table(
    bt().importValid,
    [t().row, bt().customer, bt().plan, bt().startPeriod, bt().firstDebit, bt().firstAmount],
    rows.map((row) => [
      row.rowNumber,
      h("span", { class: "wrap" }, customerOf(row)),
      row.planName,
      row.resolvedStartPeriod,
      row.firstDebitDate ? formatJstDate(row.firstDebitDate) : "",
      yenCell(row.firstAmount),
    ]),
    bt().importNoneValid,
  );
}

function invalidTable(rows: SubscriptionImportRow[]): HTMLElement {
  return table(
    bt().importInvalid,
    [t().row, bt().customer, bt().plan, t().fileReason],
    rows.map((row) => [
      row.rowNumber,
      h("span", { class: "wrap" }, customerOf(row)),
      row.planName || h("code", { class: "wrap" }, row.planId),
      lang() === "ja" ? row.reasonJa || row.reason : row.reason,
    ]),
  );
}

function confirmForm(app: AppContext, importId: string, rows: ListSubscriptionImportRowsResponse): HTMLElement {
  const code = totpCodeInput();
  const submit = h("button", { type: "submit" }, bt().importConfirm);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "narrow", "aria-label": bt().importConfirm },
    h("p", { class: "hint" }, bt().importConfirmHelp),
    field(t().totpCode, code),
    problem,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(submit, problem, async () => {
      if (!(await confirmAction(bt().importConfirmQuestion(rows.validCount), bt().importConfirm))) return;
      let challengeId = rememberedChallenge(importId);
      if (!challengeId) {
        challengeId = (await rpc.createSubscriptionImportChallenge({ importId })).challengeId;
        rememberChallenge(importId, challengeId);
      }
      const { subscriptionImport } = await rpc.confirmSubscriptionImport({
        importId,
        challengeId,
        code: code.value.trim(),
      });
      app.announce(bt().importDone(subscriptionImport?.created ?? 0, subscriptionImport?.failed ?? 0));
      await app.refreshUser();
    });
  });
  return form;
}
