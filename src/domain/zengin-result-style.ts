/**
 * How a contract's bank answers a 口座振替 request file (docs/guide/direct-debit-files.md#result-styles):
 * `all`, a record for every debit with its 振替結果コード (the 全銀協 layout's own way), or
 * `failures_only` (不能分のみ), a record for each debit that failed: every debit of the request the
 * result does not list was debited on the debit date. Either way the trailer counts the whole request.
 */
export type ResultStyle = "all" | "failures_only";

export const resultStyles: readonly ResultStyle[] = ["all", "failures_only"];

/** The style a contract states ("" or absent: `all`, as before contracts had one), or why not. */
export function parseResultStyle(value: string | undefined): { ok: true; style: ResultStyle } | { ok: false } {
  const style = (value || "all") as ResultStyle;
  return resultStyles.includes(style) ? { ok: true, style } : { ok: false };
}
