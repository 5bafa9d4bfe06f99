import { stringify } from "csv-stringify/sync";
import { neutraliseCell } from "./csv-result.js";
import { addDays, jstInstant, type JstDate } from "./jst.js";
import { RequestRefusal } from "./request-refusal.js";
import { limits } from "./limits.js";

/**
 * The audit log (docs/guide/dashboard.md#the-audit-log): every change a person makes through the
 * dashboard, with who, when, from where and what. An action is `<subject>` or `<subject>.<verb>`;
 * a filter on the subject (refund) finds its every verb.
 */
export type AuditAction =
  | "sign_in"
  | "sign_in.failed"
  | "totp.enrol"
  | "totp_requirement.update"
  | "refund.create"
  | "api_key.create"
  | "api_key.revoke"
  | "webhook.update"
  | "webhook.redeliver"
  | "support_contact.update"
  | "consignor.update"
  | "consignor.add"
  | "consignor.remove"
  | "csv_batch.upload"
  | "csv_batch.confirm"
  | "subscription_import.upload"
  | "subscription_import.confirm"
  | "user.add"
  | "user.invite"
  | "user.invitation_cancel"
  | "user.join"
  | "user.role_change"
  | "user.remove"
  | "user.password_reset"
  | "user.password_set"
  | "user.totp_reset"
  | "plan.create"
  | "plan.price_update"
  | "subscription.create"
  | "subscription.pause"
  | "subscription.resume"
  | "subscription.cancel"
  | "sandbox.bank_account"
  | "sandbox.bank_maintenance"
  | "merchant.sign_up"
  | "onboarding.update"
  | "onboarding.submit"
  | "onboarding.approve"
  | "onboarding.send_back"
  | "onboarding.suspend"
  | "onboarding.reinstate";

/** The actor of `furikomi users …` (docs/reference/cli.md): the operator, not a dashboard user. */
export const commandLine = Object.freeze({
  userId: "",
  email: "(command line)",
  clientAddress: "local",
  userAgent: "furikomi users",
});

/** An entry is kept at least this long (the database refuses to delete a younger one: migration 0021). */
export const auditRetentionDays = limits.auditRetentionDays;

/** Who acted, and from where. */
export interface AuditActor {
  readonly merchantId: string;
  /** Empty for a failed sign-in whose e-mail names no user. */
  readonly userId: string;
  readonly email: string;
  readonly clientAddress: string;
  readonly userAgent: string;
}

/** What a flow changed, told inside the transaction that changes it. */
export interface AuditChange {
  readonly action: AuditAction;
  /** The id of what it was done to (a charge, key, user, batch, invitation). */
  readonly target: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface AuditEntry extends AuditActor, AuditChange {
  readonly id: string;
  readonly at: Date;
}

export interface AuditFilter {
  readonly email: string;
  readonly action: string;
  readonly fromDate: JstDate;
  readonly toDate: JstDate;
}

/** The instants a filter's JST dates (inclusive) cover: [from, until). */
export function auditPeriod(filter: Pick<AuditFilter, "fromDate" | "toDate">): { from?: Date; until?: Date } {
  return {
    from: filter.fromDate ? jstInstant(checkedDate("from_date", filter.fromDate)) : undefined,
    until: filter.toDate ? jstInstant(addDays(checkedDate("to_date", filter.toDate), 1)) : undefined,
  };
}

/** A real calendar date, YYYY-MM-DD (the export, a stream, is not validated from the .proto). */
function checkedDate(field: string, date: string): JstDate {
  const at = Date.parse(`${date}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== date)
    throw new RequestRefusal("invalid", `${field}: not a date (YYYY-MM-DD)`, { reason: "AUDIT_FILTER_INVALID" });
  return date;
}

/** A user agent is kept to this many characters (it is the client's to choose). */
export const userAgentLength = limits.auditUserAgentLengthMax;

const csvColumns = ["at", "email", "user_id", "action", "target", "details", "client_address", "user_agent"];

/** The export's first chunk: a BOM (Excel then reads UTF-8) and the header line. */
export function auditCsvHeader(): string {
  return `\uFEFF${stringify([csvColumns], { record_delimiter: "windows" })}`;
}

/** Entries as CSV lines; a cell a spreadsheet would run as a formula is neutralised. */
export function auditCsvLines(entries: readonly AuditEntry[]): string {
  return stringify(
    entries.map((entry) =>
      [
        entry.at.toISOString(),
        entry.email,
        entry.userId,
        entry.action,
        entry.target,
        JSON.stringify(entry.details ?? {}),
        entry.clientAddress,
        entry.userAgent,
      ].map(neutraliseCell),
    ),
    { record_delimiter: "windows", quoted_match: /[\r\n",]/ },
  );
}
