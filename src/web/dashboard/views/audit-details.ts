import { h, yen } from "../dom.js";
import { tt } from "../i18n-team.js";

/** A role as the details store it: its name (owner) or its number (DashboardRole). */
function roleWord(role: unknown): string {
  const byName: Record<string, number> = { viewer: 1, operator: 2, admin: 3, owner: 4 };
  return tt().roles[typeof role === "number" ? role : (byName[String(role)] ?? 0)] ?? String(role);
}

/**
 * An entry's details in the reader's words (the CSV export keeps the raw JSON): each key by its
 * name, a role by its word, an amount in yen, a role change as "from → to".
 */
export function auditDetails(json: string): HTMLElement | "" {
  const { from, to, ...rest } = JSON.parse(json) as Record<string, unknown>;
  const words: Record<string, (value: unknown) => string> = {
    role: roleWord,
    amount: (value) => yen(Number(value)),
    step: (value) => tt().signInSteps[String(value)] ?? String(value),
  };
  const lines = Object.entries(rest)
    .filter(([, value]) => value !== "" && value !== null)
    .map(([key, value]) => {
      const text = words[key]?.(value) ?? (typeof value === "boolean" ? tt().yesNo[String(value)] : String(value));
      return `${tt().detailKeys[key] ?? key}: ${text}`;
    });
  if (from !== undefined) lines.unshift(`${tt().role}: ${roleWord(from)} → ${roleWord(to)}`);
  return lines.length === 0
    ? ""
    : h(
        "ul",
        { class: "plain wrap" },
        lines.map((line) => h("li", {}, line)),
      );
}
