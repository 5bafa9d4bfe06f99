import { normalizeEmail } from "./customer.js";

/**
 * The row validations of a CSV batch (docs/reference/contract.md#csv-batch-reasons, group 1)
 * and the reasons written in the result's Reason column. A row with several problems gets them
 * all, joined by "; ". Pure: no I/O; customer resolution and charging come after.
 *
 * Metadata is written `key=value` pairs separated by `;` (`plan=gold;campaign=spring`): no
 * empty key, no `=` inside a key or a value, no key twice; blank pairs (a trailing `;`) are
 * ignored; spaces around keys and values are trimmed.
 */

/** docs/reference/contract.md#money-and-time: the bounds every charge shares. */
export const csvRowLimits = Object.freeze({
  minPrice: 1,
  maxPrice: 10_000_000,
  maxDescription: 255,
  maxEmail: 254,
  maxMetadataKeys: 50,
  maxMetadataKey: 40,
  maxMetadataValue: 500,
});

/** Letters, digits and - _ . : — at most 255 characters (docs/reference/contract.md#idempotency). */
export const csvIdempotencyKeyPattern = /^[A-Za-z0-9_.:-]{1,255}$/;

/** The same rule as buyer.email (protovalidate's string.email: the WHATWG form e-mail syntax). */
const emailPattern =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** The Reason texts of the result CSV: validation (group 1) and customer resolution (group 2). */
export const csvRowReasons = Object.freeze({
  columnCount: (expected: number, found: number) => `Wrong number of columns: expected ${expected}, found ${found}`,
  emailRequired: "customer_email is required",
  emailInvalid: "customer_email is not a valid e-mail address",
  customerIdPrefix: "customer_id must start with cus- or be empty",
  priceNotInteger: "price must be a whole number of yen (digits only)",
  priceOutOfBounds: `price must be between ${csvRowLimits.minPrice} and ${csvRowLimits.maxPrice}`,
  descriptionRequired: "description is required",
  descriptionTooLong: `description must be at most ${csvRowLimits.maxDescription} characters`,
  metadataFormat: "metadata must be key=value pairs separated by ;",
  metadataEmptyKey: "metadata has an empty key",
  metadataEquals: "metadata key or value contains an equals sign",
  metadataDuplicateKey: (key: string) => `metadata key "${key}" appears more than once`,
  metadataTooLarge: `metadata allows at most ${csvRowLimits.maxMetadataKeys} keys of at most ${csvRowLimits.maxMetadataKey} characters, values of at most ${csvRowLimits.maxMetadataValue}`,
  idempotencyKeyPattern: "idempotency_key may only contain letters, digits, - _ . : and be at most 255 characters",
  idempotencyKeyDuplicate: "idempotency_key appears on more than one row of this batch",
  sameAccount: "Several rows for the same customer: a batch charges each customer once",
  customerIdNotFound: "Customer ID not found",
  emailNotLinked: "No customer linked to this email",
  customerInactive: "Customer is not active",
});

/** A row that passed validation: what its charge is made of. */
export interface ValidCsvRow {
  email: string;
  /** Given in the row; otherwise the customer is found by e-mail. */
  customerId: string | undefined;
  price: number;
  description: string;
  metadata: Record<string, string>;
  idempotencyKey: string | undefined;
}

export type CsvRowCheck = { valid: true; row: ValidCsvRow } | { valid: false; reason: string };

/** Parses the metadata cell, or says what is wrong with it. */
export function parseCsvMetadata(cell: string): { metadata: Record<string, string> } | { problem: string } {
  const metadata: Record<string, string> = {};
  for (const pair of cell.split(";")) {
    if (pair.trim() === "") continue;
    const at = pair.indexOf("=");
    if (at < 0) return { problem: csvRowReasons.metadataFormat };
    const key = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    if (key === "") return { problem: csvRowReasons.metadataEmptyKey };
    if (value.includes("=")) return { problem: csvRowReasons.metadataEquals };
    if (Object.hasOwn(metadata, key)) return { problem: csvRowReasons.metadataDuplicateKey(key) };
    metadata[key] = value;
  }
  const keys = Object.keys(metadata);
  if (
    keys.length > csvRowLimits.maxMetadataKeys ||
    keys.some((k) => k.length > csvRowLimits.maxMetadataKey) ||
    Object.values(metadata).some((v) => v.length > csvRowLimits.maxMetadataValue)
  ) {
    return { problem: csvRowReasons.metadataTooLarge };
  }
  return { metadata };
}

/** One row on its own (every rule that needs no other row). */
export function checkCsvRow(cells: string[], columnCount: number): CsvRowCheck {
  if (cells.length !== columnCount)
    return { valid: false, reason: csvRowReasons.columnCount(columnCount, cells.length) };
  const [emailCell, customerIdCell, priceCell, descriptionCell, metadataCell, idempotencyKeyCell = ""] = cells;
  const problems: string[] = [];

  const email = emailCell.trim();
  if (email === "") problems.push(csvRowReasons.emailRequired);
  else if (email.length > csvRowLimits.maxEmail || !emailPattern.test(email)) problems.push(csvRowReasons.emailInvalid);

  const customerId = customerIdCell.trim();
  if (customerId !== "" && !/^cus-\S{1,60}$/.test(customerId)) problems.push(csvRowReasons.customerIdPrefix);

  const priceText = priceCell.trim();
  const price = Number(priceText);
  if (!/^[0-9]+$/.test(priceText)) problems.push(csvRowReasons.priceNotInteger);
  else if (price < csvRowLimits.minPrice || price > csvRowLimits.maxPrice)
    problems.push(csvRowReasons.priceOutOfBounds);

  const description = descriptionCell.trim();
  if (description === "") problems.push(csvRowReasons.descriptionRequired);
  else if ([...description].length > csvRowLimits.maxDescription) problems.push(csvRowReasons.descriptionTooLong);

  const parsedMetadata = parseCsvMetadata(metadataCell);
  if ("problem" in parsedMetadata) problems.push(parsedMetadata.problem);

  const idempotencyKey = idempotencyKeyCell.trim();
  if (idempotencyKey !== "" && !csvIdempotencyKeyPattern.test(idempotencyKey))
    problems.push(csvRowReasons.idempotencyKeyPattern);

  if (problems.length > 0 || "problem" in parsedMetadata) return { valid: false, reason: problems.join("; ") };
  return {
    valid: true,
    row: {
      email,
      customerId: customerId || undefined,
      price,
      description,
      metadata: parsedMetadata.metadata,
      idempotencyKey: idempotencyKey || undefined,
    },
  };
}

/**
 * Every row of a batch: each on its own, then the rules across rows — an idempotency_key used
 * twice, and several rows for one customer (the same customer_id, or the same e-mail on rows
 * without one). Every row of such a group fails: which of them was meant is not ours to guess.
 */
export function checkCsvRows(rows: string[][], columnCount: number): CsvRowCheck[] {
  const checks = rows.map((cells) => checkCsvRow(cells, columnCount));
  const problems = checks.map((check) => (check.valid ? [] : [check.reason]));
  const keyOf = (cells: string[]) => (cells.length === columnCount ? (cells[5] ?? "").trim() : "");
  flagGroups(rows.map(keyOf), problems, csvRowReasons.idempotencyKeyDuplicate);
  flagGroups(
    rows.map((cells) => (cells.length === columnCount ? accountKey(cells) : "")),
    problems,
    csvRowReasons.sameAccount,
  );
  return checks.map((check, i) =>
    problems[i].length === 0 ? check : { valid: false, reason: problems[i].join("; ") },
  );
}

/** The customer a row names before resolution: its customer_id, or else its e-mail; "" when neither is usable. */
function accountKey(cells: string[]): string {
  const customerId = cells[1].trim();
  if (customerId.startsWith("cus-")) return customerId;
  const email = cells[0].trim();
  return email && emailPattern.test(email) ? `email:${normalizeEmail(email)}` : "";
}

/** Adds `reason` to every row whose non-empty key another row shares. */
function flagGroups(keys: string[], problems: string[][], reason: string): void {
  const counts = new Map<string, number>();
  for (const key of keys) if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  keys.forEach((key, i) => {
    if (key && (counts.get(key) ?? 0) > 1) problems[i].push(reason);
  });
}

/** After resolution: the rows (by index) whose resolved customer another row also resolved to. */
export function rowsSharingCustomer(resolved: ReadonlyArray<{ index: number; customerId: string }>): Set<number> {
  const byCustomer = new Map<string, number[]>();
  for (const { index, customerId } of resolved)
    byCustomer.set(customerId, [...(byCustomer.get(customerId) ?? []), index]);
  return new Set([...byCustomer.values()].filter((indexes) => indexes.length > 1).flat());
}
