import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { lang, t } from "./i18n.js";

export type Child = Node | string | number | false | null | undefined | Child[];
type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/**
 * Builds an element. Text is always set as text (never parsed as HTML), so data from the server
 * cannot inject markup. `on…` attributes take listeners; `true`/`false` set or drop boolean attributes.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function yen(amount: number | bigint): string {
  return new Intl.NumberFormat(lang() === "ja" ? "ja-JP" : "en-US", { style: "currency", currency: "JPY" }).format(
    Number(amount),
  );
}

export function when(timestamp: Timestamp | undefined): string {
  if (!timestamp) return "";
  return timestampDate(timestamp).toLocaleString(lang() === "ja" ? "ja-JP" : "en-GB", { timeZone: "Asia/Tokyo" });
}

/** An enum value as its proto name without the type prefix: CHARGE_STATUS_SUCCESS → SUCCESS. */
export function enumName(enumObject: Record<number, string>, value: number): string {
  return enumObject[value] ?? String(value);
}

/** The reason of a refused call in the user's language, or the server's message. */
export function errorMessage(error: unknown): string {
  const connectError = ConnectError.from(error);
  const reason = connectError.findDetails(ErrorInfoSchema)[0]?.reason;
  return (reason && t().reasons[reason]) || connectError.rawMessage;
}

/** A table with a header row; `rows` are arrays of cells. */
export function table(caption: string, headers: string[], rows: Child[][]): HTMLElement {
  if (rows.length === 0) return h("p", {}, t().none);
  return h(
    "div",
    { class: "table-wrap", role: "region", "aria-label": caption, tabindex: 0 },
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
      h(
        "tbody",
        {},
        rows.map((cells) =>
          h(
            "tr",
            {},
            cells.map((cell) => h("td", {}, cell)),
          ),
        ),
      ),
    ),
  );
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
