import { h, table, when } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

const yen = (amount: bigint) => `¥${amount.toLocaleString("ja-JP")}`;

/** The Zengin files sent and received, each debit date reconciled, and the warnings (quarantine, overdue results). */
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
            yen(date.requestedAmount),
            yen(date.debitedAmount),
            yen(date.failedAmount),
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
            file.kind,
            file.direction,
            file.date,
            file.overdue ? `${file.state} ⚠` : file.state,
            String(file.recordCount),
            yen(file.totalAmount),
            `${file.doneCount} ${yen(file.doneAmount)}`,
            `${file.failedCount} ${yen(file.failedAmount)}`,
            file.reason,
            when(file.createdAt),
          ]),
        ),
  );
}
