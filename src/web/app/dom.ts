import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { formatJstDate, formatJstDateTime, formatYen } from "../../domain/display-format.js";
import { t } from "./i18n.js";

import { h, type Child } from "../element.js";

export { h, type Child } from "../element.js";

/** Yen as every screen writes it (domain/display-format.ts). */
export const yen = formatYen;

/** A moment in Japan time, as every screen writes it: 2026/11/28 08:42, or 2026/11/28 alone. */
export function when(timestamp: Timestamp | undefined, dateOnly = false): string {
  if (!timestamp) return "";
  const at = timestampDate(timestamp);
  return dateOnly ? formatJstDate(at) : formatJstDateTime(at);
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
