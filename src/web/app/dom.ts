import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { lang, t } from "./i18n.js";

import { h, type Child } from "../element.js";

export { h, type Child } from "../element.js";

export function yen(amount: number): string {
  return new Intl.NumberFormat(lang() === "ja" ? "ja-JP" : "en-US", { style: "currency", currency: "JPY" }).format(
    amount,
  );
}

/** A moment in Japan time. */
export function when(timestamp: Timestamp | undefined, dateOnly = false): string {
  if (!timestamp) return "";
  const locale = lang() === "ja" ? "ja-JP" : "en-GB";
  const options: Intl.DateTimeFormatOptions = dateOnly
    ? { timeZone: "Asia/Tokyo", year: "numeric", month: "long", day: "numeric" }
    : { timeZone: "Asia/Tokyo", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" };
  return timestampDate(timestamp).toLocaleString(locale, options);
}

/** A label–value list (dl). */
export function facts(rows: Array<[string, Child]>): HTMLElement {
  return h("dl", { class: "facts" }, ...rows.flatMap(([label, value]) => [h("dt", {}, label), h("dd", {}, value)]));
}

/** A refused call in the customer's words: its reason if known, else its code's message. */
export function errorMessage(error: unknown): string {
  if (!(error instanceof ConnectError) && !(error instanceof Error)) return t().errors.other;
  const connectError = ConnectError.from(error);
  const reason = connectError.findDetails(ErrorInfoSchema)[0]?.reason;
  if (reason && t().reasons[reason]) return t().reasons[reason];
  if (connectError.code === Code.Unknown || connectError.code === Code.Unavailable) return t().errors.network;
  const name = Code[connectError.code].replace(/[A-Z]/g, (c, at: number) => `${at ? "_" : ""}${c.toLowerCase()}`);
  return t().errors[name] ?? t().errors.other;
}

/** An alert box for a refused action, or nothing. */
export function alertBox(): HTMLElement {
  return h("p", { class: "alert", role: "alert", hidden: true });
}

export function showAlert(box: HTMLElement, text: string): void {
  box.textContent = text;
  box.hidden = text === "";
}
