import type {
  CsvBatch,
  CsvBatchRow,
  ListCsvBatchRowsResponse,
} from "../../../../gen/payments/v1/dashboard_service_pb.js";
import { csvColumns } from "../../../domain/csv-columns.js";
import type { AppContext } from "../app-context.js";
import { busy, confirmAction, errorBox, field, h, saveFile, table, when, yen, yenCell } from "../dom.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";
import { rememberChallenge, rememberedChallenge, totpCodeInput } from "../totp-challenge.js";
import { DashboardRole, may } from "../roles.js";
import { limits } from "../../../domain/limits.js";

/** docs/reference/contract.md#limits — the page polls for completion for up to 7 minutes. */

/** Upload a batch, and the recent ones. */
export async function batchesView(app: AppContext): Promise<HTMLElement> {
  const section = h("section", {}, h("h1", { tabindex: -1 }, t().navBatches));
  const operates = may(app.user, DashboardRole.OPERATOR);
  if (operates && !app.user.totpEnabled) {
    section.append(h("p", { class: "error" }, t().totpNeeded, " ", h("a", { href: "#/security" }, t().navSecurity)));
  }
  const file = h("input", { type: "file", accept: ".csv,text/csv", required: true });
  const submit = h("button", { type: "submit" }, t().upload);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card" },
    h("h2", {}, t().uploadTitle),
    field(t().file, file, t().uploadHelp),
    problem,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return;
    void busy(submit, problem, async () => {
      const uploaded = await rpc.uploadCsvBatch({
        fileName: chosen.name,
        content: new Uint8Array(await chosen.arrayBuffer()),
      });
      rememberChallenge(uploaded.batchId, uploaded.challengeId);
      location.hash = `#/batches/${uploaded.batchId}`;
    });
  });
  const { batches } = await rpc.listCsvBatches({ pageSize: 20 });
  const template = h("button", { type: "button", class: "secondary" }, t().template);
  // The header the upload expects, UTF-8 with a BOM so that Excel keeps it as UTF-8.
  template.addEventListener("click", () =>
    saveFile(
      new Blob([`\uFEFF${csvColumns.join(",")}\r\n`], { type: "text/csv;charset=utf-8" }),
      "furikomi-batch-template.csv",
    ),
  );
  form.append(" ", template);
  section.append(
    operates ? form : "",
    h("h2", {}, t().batches),
    table(
      t().batches,
      [t().file, t().status, t().rows, t().succeeded, t().failed, t().created],
      batches.map((b) => [
        h("a", { href: `#/batches/${b.batchId}` }, b.fileName),
        t().batchStatus[b.status] ?? b.status,
        b.rowCount,
        b.succeeded,
        b.failed,
        when(b.createdAt),
      ]),
    ),
  );
  return section;
}

/** One batch: confirmation with a TOTP code, then progress (polled), then the result CSV. */
export async function batchView(app: AppContext, batchId: string): Promise<HTMLElement> {
  const { batch } = await rpc.getCsvBatch({ batchId });
  const section = h(
    "section",
    {},
    h("p", {}, h("a", { href: "#/batches" }, "← ", t().back)),
    h("h1", { tabindex: -1 }, batch?.fileName ?? batchId),
  );
  const body = h("div", {});
  section.append(body);
  if (batch) render(batch);
  if (batch?.status === "running") poll(Date.now());
  return section;

  function render(current: CsvBatch): void {
    if (current.status === "uploaded")
      void rpc.listCsvBatchRows({ batchId }).then((rows) => body.replaceChildren(preview(rows), confirmForm(rows)));
    else {
      body.replaceChildren(progress(current));
      // Once the batch is done (while it runs, the poll would ask every time).
      if (current.failed > 0 && current.status === "completed")
        void rpc.listCsvBatchRows({ batchId, failedOnly: true }).then((rows) => {
          if (body.isConnected)
            body.append(h("h2", {}, t().failedRowsTitle), rowsTable(t().failedRowsTitle, rows.rows));
        });
    }
  }

  /** Before confirmation: what will be charged (rows and total in yen) and what will not, with why. */
  function preview(rows: ListCsvBatchRowsResponse): HTMLElement {
    const valid = rows.rows.filter((row) => row.status !== "failed");
    const invalid = rows.rows.filter((row) => row.status === "failed");
    return h(
      "div",
      {},
      h("h2", {}, t().previewTitle),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, t().validRows),
        h("dd", { "data-testid": "valid-rows" }, rows.validCount),
        h("dt", {}, t().totalToCharge),
        h("dd", { "data-testid": "total-to-charge" }, yen(rows.validAmount)),
        h("dt", {}, t().invalidRowsTitle),
        h("dd", { "data-testid": "invalid-rows" }, rows.invalidCount),
      ),
      invalid.length ? [h("h3", {}, t().invalidRowsTitle), rowsTable(t().invalidRowsTitle, invalid)] : null,
      h("h3", {}, t().validRows),
      rowsTable(t().validRows, valid),
    );
  }

  function confirmForm(rows: ListCsvBatchRowsResponse): HTMLElement {
    const code = totpCodeInput();
    const submit = h("button", { type: "submit" }, t().confirm);
    const again = h("button", { type: "button", class: "secondary" }, t().newChallenge);
    const problem = errorBox();
    const form = h(
      "form",
      { class: "card narrow" },
      h("h2", {}, t().confirmTitle),
      h(
        "p",
        {},
        `${t().totalToCharge}: ${yen(rows.validAmount)} (${rows.validCount} / ${rows.validCount + rows.invalidCount})`,
      ),
      h("p", { class: "hint" }, t().confirmHelp),
      field(t().totpCode, code),
      problem,
      submit,
      " ",
      again,
    );
    again.addEventListener("click", () =>
      busy(again, problem, async () => {
        const challenge = await rpc.createCsvBatchChallenge({ batchId });
        rememberChallenge(batchId, challenge.challengeId);
        code.focus();
      }),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void busy(submit, problem, async () => {
        if (!(await confirmAction(t().batchConfirm(yen(rows.validAmount), rows.validCount), t().confirm))) return;
        let challengeId = rememberedChallenge(batchId);
        if (!challengeId) {
          challengeId = (await rpc.createCsvBatchChallenge({ batchId })).challengeId;
          rememberChallenge(batchId, challengeId);
        }
        const { batch: confirmed } = await rpc.confirmCsvBatch({ batchId, challengeId, code: code.value.trim() });
        if (confirmed) render(confirmed);
        poll(Date.now());
      });
    });
    return form;
  }

  function progress(current: CsvBatch): HTMLElement {
    const done = current.succeeded + current.failed;
    const downloadButton = h("button", { type: "button" }, t().download);
    const problem = errorBox();
    downloadButton.addEventListener("click", () =>
      busy(downloadButton, problem, async () => {
        const result = await rpc.downloadCsvBatchResult({ batchId });
        saveFile(new Blob([result.content as BlobPart], { type: "text/csv;charset=utf-8" }), result.fileName);
      }),
    );
    return h(
      "div",
      { class: "card" },
      h("h2", {}, t().progress),
      h(
        "p",
        { "data-testid": "batch-status", "aria-live": "polite" },
        t().batchStatus[current.status] ?? current.status,
      ),
      h("progress", { max: current.rowCount, value: done, "aria-label": t().progress }),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, t().rows),
        h("dd", {}, current.rowCount),
        h("dt", {}, t().succeeded),
        h("dd", { "data-testid": "succeeded" }, current.succeeded),
        h("dt", {}, t().failed),
        h("dd", { "data-testid": "failed" }, current.failed),
        h("dt", {}, t().processing),
        h("dd", {}, current.processing),
      ),
      current.status === "running" ? h("p", { class: "hint", "data-testid": "still-running" }, t().stillRunning) : null,
      problem,
      downloadButton,
    );
  }

  /** Polls until the batch completes, for at most 7 minutes, while this page is shown. */
  function poll(startedAt: number): void {
    const route = location.hash;
    const tick = async () => {
      if (location.hash !== route || !body.isConnected) return;
      const { batch: current } = await rpc.getCsvBatch({ batchId });
      if (!current) return;
      render(current);
      if (current.status === "running" && Date.now() - startedAt < limits.dashboardBatchPollForMs)
        setTimeout(() => void tick().catch(() => {}), limits.dashboardBatchPollEveryMs);
      else if (current.status === "completed") app.announce(t().batchStatus.completed);
    };
    setTimeout(() => void tick().catch(() => {}), limits.dashboardBatchPollEveryMs);
  }
}

/** Rows of a batch: number, customer, price, status and (for rows not charged) the reason in the user's language. */
function rowsTable(caption: string, rows: CsvBatchRow[]): HTMLElement {
  return table(
    caption,
    [t().row, t().email, t().customerId, t().amount, t().description, t().status, t().fileReason],
    rows.map((row) => [
      row.rowNumber,
      h("span", { class: "wrap" }, row.customerEmail),
      row.customerId ? h("code", { class: "wrap" }, row.customerId) : "",
      /^[0-9]+$/.test(row.price.trim()) ? yenCell(Number(row.price.trim())) : h("code", { class: "wrap" }, row.price),
      row.description,
      t().rowStatus[row.status] ?? row.status,
      lang() === "ja" ? row.reasonJa || row.reason : row.reason,
    ]),
  );
}
