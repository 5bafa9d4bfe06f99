import { ot } from "./i18n-onboarding.js";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import type { ErrorBody } from "../../../gen/payments/v1/errors_pb.js";
import { ErrorType, RefundStatus } from "../../../gen/payments/v1/enums_pb.js";
import type { Charge } from "../../../gen/payments/v1/resources_pb.js";
import { chargeStateOf, formatJstDateTime, formatYen } from "../../domain/display-format.js";
import { zenginResultOfMessage } from "../../domain/zengin-result.js";
import { label } from "./enum-labels.js";
import { lang, t } from "./i18n.js";
import { tt } from "./i18n-team.js";

import { h, type Child } from "../element.js";

export { append, h, type Child } from "../element.js";

/** Yen and Japan time as every screen writes them (domain/display-format.ts). */
export const yen = formatYen;

/** A charge's state in one word, as every screen says it (domain/display-format.ts chargeStateOf). */
export function chargeState(charge: Charge): string {
  return chargeStateOf({
    status: charge.chargeStatus,
    awaitingCustomer: charge.awaitingCustomer,
    refundedAmount: charge.refundedAmount,
    refundPending: charge.refunds.some((refund) => refund.status === RefundStatus.PENDING),
  })[lang()];
}

/** An e-mail address with a break opportunity after its @ and before each dot: never split at …j/p. */
export function emailText(email: string): Child[] {
  return email.split(/(?=\.)|(?<=@)/).flatMap((part, at) => (at === 0 ? [part] : [h("wbr", {}), part]));
}

/** An amount in a table cell: never broken across lines. */
export function yenCell(amount: number | bigint): HTMLElement {
  return h("span", { class: "num" }, yen(amount));
}

export function when(timestamp: Timestamp | undefined): string {
  return timestamp ? formatJstDateTime(timestampDate(timestamp)) : "";
}

/**
 * A refused call in the user's language, from its ErrorInfo reason (an ERROR_TYPE_… reason by the
 * ErrorType's words), else from its Connect code: never the server's English message in the
 * Japanese page. The attempts left before a lock are added when the server tells them.
 */
export function errorMessage(error: unknown): string {
  const connectError = ConnectError.from(error);
  const info = connectError.findDetails(ErrorInfoSchema)[0];
  const reason = info?.reason ?? "";
  const errorType = reason.startsWith("ERROR_TYPE_")
    ? ErrorType[reason.slice("ERROR_TYPE_".length) as keyof typeof ErrorType]
    : undefined;
  const text =
    t().reasons[reason] ??
    tt().reasons[reason] ??
    ot().reasons[reason] ??
    (errorType !== undefined ? label("errorType", errorType) : undefined) ??
    (lang() === "en" && connectError.rawMessage) ??
    t().codes[Code[connectError.code]] ??
    t().codes.Unknown;
  const left = info?.metadata.attemptsLeft;
  return left === undefined ? text : `${text} ${t().attemptsLeft(Number(left))}`;
}

/**
 * A charge's failure: the bank's 振替結果コード and its name when a Zengin result file refused it
 * (each code needs its own follow-up), else its ErrorType's words (the server's own message in
 * English); and the ErrorType itself.
 */
export function failure(error: ErrorBody | undefined): Child {
  if (!error) return "";
  const zengin = zenginResultOfMessage(error.message);
  const words = zengin
    ? t().zenginResult(zengin.code, lang() === "ja" ? zengin.japanese : zengin.meaning)
    : lang() === "en" && error.message
      ? error.message
      : label("errorType", error.code);
  return h(
    "span",
    { class: "failure" },
    words,
    " ",
    h("code", { class: "wrap" }, `ERROR_TYPE_${ErrorType[error.code] ?? "UNSPECIFIED"}`),
  );
}

/** An id shown whole but cut short on narrow screens, with a button that copies it. */
export function idWithCopy(id: string, href?: string): HTMLElement {
  const text = href ? h("a", { href, class: "id" }, id) : h("code", { class: "id" }, id);
  const copy = h("button", { type: "button", class: "secondary copy", "aria-label": `${t().copy} ${id}` }, t().copy);
  copy.addEventListener("click", () => {
    void navigator.clipboard?.writeText(id).then(() => {
      copy.textContent = t().copied;
      setTimeout(() => (copy.textContent = t().copy), 1500);
    });
  });
  return h("span", { class: "id-copy" }, text, copy);
}

/** Hands a file made in the page to the browser's download. */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: fileName });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Asks to confirm an action in a modal dialog; true when confirmed. */
export function confirmAction(text: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const yes = h("button", { type: "button" }, confirmLabel);
    const no = h("button", { type: "button", class: "secondary" }, t().cancel);
    const dialog = h(
      "dialog",
      { "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" },
      h("h2", { id: "confirm-title" }, t().confirmTitleGeneric),
      h("p", { id: "confirm-text" }, text),
      h("div", { class: "actions" }, yes, no),
    );
    const finish = (confirmed: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(confirmed);
    };
    yes.addEventListener("click", () => finish(true));
    no.addEventListener("click", () => finish(false));
    dialog.addEventListener("cancel", (event) => (event.preventDefault(), finish(false)));
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}

/**
 * A table with a header row; `rows` are arrays of cells. Each cell carries its header, so on a
 * narrow screen the rows become a list of labelled cards (app.css). `empty` is what an empty
 * table says: nothing yet, or (after a search) nothing matched.
 */
export function table(caption: string, headers: string[], rows: Child[][], empty = t().none): HTMLElement {
  const paged = pagedTable(caption, headers, empty);
  paged.add(rows);
  return paged.element;
}

/** A table that grows page by page (keyset paging): `add` appends a page's rows to the same table. */
export function pagedTable(
  caption: string,
  headers: string[],
  empty: string,
  /** On a phone, rows as small two-column cards (the charges list: several fit on one screen). */
  options: { compact?: boolean } = {},
): { element: HTMLElement; add(rows: Child[][]): void } {
  const element = h("div", {});
  const body = h("tbody", {});
  let shown = false;
  return {
    element,
    add(rows) {
      if (!shown) {
        element.replaceChildren(
          rows.length === 0
            ? h("p", { class: "empty" }, empty)
            : h(
                "div",
                {
                  class: options.compact ? "table-wrap compact" : "table-wrap",
                  role: "region",
                  "aria-label": caption,
                  tabindex: 0,
                },
                h(
                  "table",
                  {},
                  h("caption", {}, caption),
                  h(
                    "thead",
                    {},
                    h(
                      "tr",
                      {},
                      headers.map((header) => h("th", { scope: "col" }, header)),
                    ),
                  ),
                  body,
                ),
              ),
        );
        shown = rows.length > 0;
      }
      body.append(
        ...rows.map((cells) =>
          h(
            "tr",
            {},
            cells.map((cell, i) => h("td", { "data-label": headers[i] || undefined }, cell)),
          ),
        ),
      );
    },
  };
}

/** A labelled input: the label is tied to the field, so screen readers and clicks find it. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLElement {
  const id = input.id || `f-${Math.random().toString(36).slice(2)}`;
  input.id = id;
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) input.setAttribute("aria-describedby", hintId);
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    input,
    hint ? h("p", { class: "hint", id: hintId }, hint) : null,
  );
}

/** Runs an action from a form or button: disables it while running, shows the error next to it. */
export async function busy(
  control: HTMLButtonElement,
  errorBox: HTMLElement,
  action: () => Promise<void>,
): Promise<void> {
  control.disabled = true;
  errorBox.textContent = "";
  const done = control.parentElement?.querySelector(".done");
  if (done) done.textContent = "";
  try {
    await action();
  } catch (error) {
    errorBox.textContent = errorMessage(error);
  } finally {
    control.disabled = false;
  }
}

export function errorBox(): HTMLElement {
  return h("p", { class: "error", role: "alert" });
}

/** Where an action says it is done, beside its button (announced politely: role=status). */
export function doneBox(): HTMLElement {
  return h("p", { class: "ok done", role: "status" });
}

/** A form's button with its outcome beside it: the done message (role=status) and the error (role=alert). */
export function actionRow(button: HTMLElement, done: HTMLElement, problem: HTMLElement): HTMLElement {
  return h("div", { class: "actions outcome" }, button, done, problem);
}
