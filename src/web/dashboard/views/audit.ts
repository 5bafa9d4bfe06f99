import type { AuditLogEntry } from "../../../../gen/payments/v1/dashboard_service_pb.js";
import type { AppContext } from "../app-context.js";
import { busy, errorBox, field, h, idWithCopy, table, when } from "../dom.js";
import { tt } from "../i18n-team.js";
import { rpc } from "../rpc.js";
import { auditDetails } from "./audit-details.js";

/** Who acted: their e-mail, or the command line's words (`furikomi users …` has no user). */
function actor(entry: AuditLogEntry): string {
  return entry.userId === "" && entry.email === "(command line)" ? tt().commandLine : entry.email;
}

/**
 * The audit log (docs/guide/dashboard.md#the-audit-log), admins and owners: filtered by user,
 * action and dates, newest first, a page at a time; exported whole as CSV (streamed by the server).
 */
export async function auditView(app: AppContext): Promise<HTMLElement> {
  const section = h("section", {}, h("h1", { tabindex: -1 }, tt().auditTitle), h("p", {}, tt().auditIntro));
  const email = h("input", { type: "email", maxlength: 254 });
  const action = h(
    "select",
    {},
    h("option", { value: "" }, tt().allActions),
    Object.entries(tt().auditActions).map(([value, label]) => h("option", { value }, label)),
  );
  const from = h("input", { type: "date" });
  const to = h("input", { type: "date" });
  const submit = h("button", { type: "submit" }, tt().filter);
  const exportButton = h("button", { type: "button", class: "secondary" }, tt().exportCsv);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "inline filters", role: "search", "aria-label": tt().filter },
    field(tt().filterEmail, email),
    field(tt().filterAction, action),
    field(tt().fromDate, from),
    field(tt().toDate, to),
    problem,
    h("div", { class: "actions" }, submit, exportButton),
  );
  const results = h("div", {});
  const filter = () => ({
    email: email.value.trim(),
    action: action.value,
    fromDate: from.value,
    toDate: to.value,
  });

  const rows: AuditLogEntry[] = [];
  const show = async (pageToken: string) => {
    const page = await rpc.listAuditLog({ filter: filter(), pageSize: 50, pageToken });
    rows.push(...page.entries);
    const more = page.nextPageToken ? h("button", { type: "button", class: "secondary" }, tt().more) : null;
    more?.addEventListener("click", () => busy(more, problem, () => show(page.nextPageToken)));
    results.replaceChildren(
      rows.length === 0
        ? h("p", {}, tt().noEntries)
        : table(
            tt().auditTitle,
            [tt().at, tt().who, tt().action, tt().target, tt().details, tt().origin],
            rows.map((entry) => [
              when(entry.at),
              actor(entry),
              h("span", { "data-action": entry.action }, tt().auditActions[entry.action] ?? entry.action),
              entry.target ? idWithCopy(entry.target) : "",
              auditDetails(entry.detailsJson),
              h("span", { title: entry.userAgent }, entry.clientAddress),
            ]),
          ),
      more ?? "",
    );
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    rows.length = 0;
    void busy(submit, problem, () => show(""));
  });
  exportButton.addEventListener("click", () =>
    busy(exportButton, problem, async () => {
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      for await (const chunk of rpc.exportAuditLog({ filter: filter() }))
        chunks.push(chunk.data as Uint8Array<ArrayBuffer>);
      const link = h("a", {
        href: URL.createObjectURL(new Blob(chunks, { type: "text/csv;charset=utf-8" })),
        download: `audit-log-${new Date().toISOString().slice(0, 10)}.csv`,
      });
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      app.announce(tt().exported);
    }),
  );
  await show("");
  section.append(form, results);
  return section;
}
