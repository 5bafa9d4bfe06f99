import type { UnexpectedZenginFile } from "../../../../gen/payments/v1/dashboard_service_pb.js";
import { h, idWithCopy, pagedTable, table, when, yen, yenCell } from "../dom.js";
import { dt } from "../i18n-detail.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";
import { zenginResultOfCode } from "../../../domain/zengin-result.js";
import { payerCell } from "./customers.js";
import { moreButton } from "./paging.js";

/**
 * The Zengin files sent and received, each debit date reconciled, the warnings (quarantine, overdue
 * results) and the files that came under an unexpected name.
 */
export async function zenginView(): Promise<HTMLElement> {
  const view = await rpc.listZenginFiles({});
  const warnings = [
    view.quarantined > 0 ? `${view.quarantined} ${t().zenginQuarantined}` : "",
    view.overdue > 0 ? `${view.overdue} ${t().zenginOverdue}` : "",
  ].filter(Boolean);
  return h(
    "section",
    {},
    h("h1", { tabindex: -1 }, t().navZengin),
    ...warnings.map((warning) => h("p", { role: "alert", class: "error" }, warning)),
    view.files.length === 0
      ? h("p", {}, t().zenginNone)
      : table(
          t().zenginDates,
          [t().fileDate, t().fileRecords, t().fileTotal, t().fileDone, t().fileFailed, t().reconciled],
          view.debitDates.map((date) => [
            date.date,
            `${date.answeredCount} / ${date.requestedCount}`,
            yenCell(date.requestedAmount),
            yenCell(date.debitedAmount),
            yenCell(date.failedAmount),
            date.reconciled ? "✓" : "—",
          ]),
        ),
    view.files.length === 0
      ? ""
      : table(
          t().zenginFiles,
          [
            t().fileName,
            t().fileKind,
            t().fileDirection,
            t().fileDate,
            t().fileState,
            t().fileRecords,
            t().fileTotal,
            t().fileDone,
            t().fileFailed,
            t().fileReason,
            t().created,
          ],
          view.files.map((file) => [
            // A file with records opens them (a result file: the records of the request it answers).
            file.id && file.kind
              ? h(
                  "a",
                  { href: `#/zengin/${file.id}`, "aria-label": dt().openFile(file.name) },
                  h("code", {}, file.name),
                )
              : h("code", {}, file.name),
            t().zenginKind[file.kind] ?? file.kind,
            t().zenginDirection[file.direction] ?? file.direction,
            file.date,
            `${t().zenginState[file.state] ?? file.state}${file.overdue ? ` ⚠ ${t().overdue}` : ""}`,
            String(file.recordCount),
            yenCell(file.totalAmount),
            h("span", { class: "num" }, `${file.doneCount} ${yen(file.doneAmount)}`),
            h("span", { class: "num" }, `${file.failedCount} ${yen(file.failedAmount)}`),
            // The quarantine reason is the parser's English text: shown as such in English only.
            file.reason ? (lang() === "en" ? file.reason : t().quarantineReason) : "",
            when(file.createdAt),
          ]),
        ),
    view.unexpectedFiles.length === 0 ? "" : unexpectedFiles(view.unexpectedFiles),
  );
}

/** The files found in incoming/ under a name the exchange does not expect (docs/operations/zengin.md#unexpected-file-names). */
function unexpectedFiles(files: UnexpectedZenginFile[]): HTMLElement {
  return h(
    "div",
    {},
    h("h2", {}, t().zenginUnexpected),
    h("p", {}, t().zenginUnexpectedIntro),
    table(
      t().zenginUnexpected,
      [t().fileName, t().fileFirstSeen, t().fileState],
      files.map((file) => [
        h("code", {}, file.name),
        when(file.firstSeenAt),
        t().zenginState[file.state] ?? file.state,
      ]),
    ),
  );
}

/**
 * One file's records, 50 at a time in 顧客番号 order: the customer, the amount and the result
 * (the 振替結果コード and its name, 振替済み for 0, 結果待ち before the answer).
 */
export async function zenginFileView(fileId: string): Promise<HTMLElement> {
  const headers = [dt().customerNumber, dt().customer, dt().amount, dt().result, dt().reference];
  let title = "";
  const list = pagedTable(dt().fileRecords, headers, dt().noRecords, { compact: true });
  const more = await moreButton(async (pageToken) => {
    const page = await rpc.listZenginFileRecords({ fileId, pageSize: 50, pageToken });
    title = page.fileName;
    const payers = new Map(page.payers.map((p) => [p.customerId, p]));
    list.add(
      page.records.map((record) => [
        h("span", { class: "num" }, record.customerNumber),
        payerCell(payers.get(record.customerId)),
        yenCell(record.amount),
        h("span", { "data-testid": "record-result" }, resultText(page.kind, record.state, record.resultCode)),
        idWithCopy(record.reference, record.chargeId ? `#/charges/${record.chargeId}` : undefined),
      ]),
    );
    return page.nextPageToken;
  });
  return h(
    "section",
    {},
    h("p", {}, h("a", { href: "#/zengin" }, "← ", dt().backToFiles)),
    h("h1", { tabindex: -1, class: "wrap" }, `${dt().fileRecords} `, h("code", {}, title)),
    list.element,
    more,
  );
}

function resultText(kind: string, state: string, code: number | undefined): string {
  if (state === "cancelled") return dt().resultCancelled;
  if (code === undefined) return dt().resultPending;
  if (code === 0) return dt().resultDone[kind] ?? dt().resultDone["91"];
  const result = zenginResultOfCode(code);
  const name = result ? (lang() === "ja" ? result.japanese : result.meaning) : "";
  return t().zenginResult(code, name);
}
