import type { UnexpectedZenginFile } from "../../../../gen/payments/v1/dashboard_service_pb.js";
import { h, table, when, yen, yenCell } from "../dom.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";

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
            h("code", {}, file.name),
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
