import { normalizeEmail } from "./customer.js";
import { limits } from "./limits.js";

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
  minPrice: limits.chargePriceYenMin,
  maxPrice: limits.chargePriceYenMax,
  maxDescription: limits.chargeDescriptionLengthMax,
  maxEmail: limits.customerEmailLengthMax,
  maxMetadataKeys: limits.metadataKeysMax,
  maxMetadataKey: limits.metadataKeyLengthMax,
  maxMetadataValue: limits.metadataValueLengthMax,
});

/** Letters, digits and - _ . : — at most 255 characters (docs/reference/contract.md#idempotency). */
export const csvIdempotencyKeyPattern = /^[A-Za-z0-9_.:-]{1,255}$/;

/** The same rule as buyer.email (protovalidate's string.email: the WHATWG form e-mail syntax). */
export const emailPattern =
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

/** The same reasons in Japanese, for the dashboard and the result's 理由 column. */
export const csvRowReasonsJa: ReasonTable = Object.freeze({
  columnCount: (expected: number, found: number) => `列の数が違います(${expected}列のはずが${found}列)`,
  emailRequired: "customer_email が空です",
  emailInvalid: "customer_email がメールアドレスの形式ではありません",
  customerIdPrefix: "customer_id は cus- で始まるか、空にしてください",
  priceNotInteger: "price は円単位の整数(数字のみ)で書いてください",
  priceOutOfBounds: `price は${csvRowLimits.minPrice}円以上${csvRowLimits.maxPrice.toLocaleString("ja-JP")}円以下にしてください`,
  descriptionRequired: "description が空です",
  descriptionTooLong: `description は${csvRowLimits.maxDescription}文字以内にしてください`,
  metadataFormat: "metadata は key=value を ; で区切って書いてください",
  metadataEmptyKey: "metadata に空のキーがあります",
  metadataEquals: "metadata のキーか値に = が含まれています",
  metadataDuplicateKey: (key: string) => `metadata のキー「${key}」が重複しています`,
  metadataTooLarge: `metadata はキー${csvRowLimits.maxMetadataKeys}個まで、キー${csvRowLimits.maxMetadataKey}文字・値${csvRowLimits.maxMetadataValue}文字までです`,
  idempotencyKeyPattern: "idempotency_key に使えるのは英数字と - _ . : で、255文字までです",
  idempotencyKeyDuplicate: "同じ idempotency_key が複数の行にあります",
  sameAccount: "同じ顧客の行が複数あります(1回のバッチで請求できるのは顧客ごとに1回です)",
  customerIdNotFound: "顧客IDが見つかりません",
  emailNotLinked: "このメールアドレスに紐づく顧客がいません",
  customerInactive: "顧客が有効ではありません",
});

/** A reason in both languages: the result's Reason (English, as the spec writes it) and 理由. */
export interface CsvReason {
  en: string;
  ja: string;
}

type ReasonKey = keyof typeof csvRowReasons;
/** csvRowReasons' shape, any text. */
type ReasonTable = {
  readonly [K in ReasonKey]: (typeof csvRowReasons)[K] extends (...args: infer A) => string
    ? (...args: A) => string
    : string;
};
type ReasonArgs<K extends ReasonKey> = (typeof csvRowReasons)[K] extends (...args: infer A) => string ? A : [];

/** csvRowReasons[key] (called with `args` when it takes any) in both languages. */
export function csvReason<K extends ReasonKey>(key: K, ...args: ReasonArgs<K>): CsvReason {
  const text = (table: ReasonTable) => {
    const entry = table[key] as string | ((...a: unknown[]) => string);
    return typeof entry === "function" ? entry(...args) : entry;
  };
  return { en: text(csvRowReasons), ja: text(csvRowReasonsJa) };
}

/** Several reasons of one row, in the order found. */
export function joinReasons(reasons: readonly CsvReason[]): CsvReason {
  return { en: reasons.map((r) => r.en).join("; "), ja: reasons.map((r) => r.ja).join("。") };
}

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

export type CsvRowCheck = { valid: true; row: ValidCsvRow } | ({ valid: false } & CsvReasonFields);

/** A reason as a row carries it: `reason` in English, `reasonJa` in Japanese. */
export interface CsvReasonFields {
  reason: string;
  reasonJa: string;
}

function invalid(reasons: readonly CsvReason[]): { valid: false } & CsvReasonFields {
  const { en, ja } = joinReasons(reasons);
  return { valid: false, reason: en, reasonJa: ja };
}

/** Parses the metadata cell, or says what is wrong with it. */
export function parseCsvMetadata(cell: string): { metadata: Record<string, string> } | { problem: CsvReason } {
  const metadata: Record<string, string> = {};
  for (const pair of cell.split(";")) {
    if (pair.trim() === "") continue;
    const at = pair.indexOf("=");
    if (at < 0) return { problem: csvReason("metadataFormat") };
    const key = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    if (key === "") return { problem: csvReason("metadataEmptyKey") };
    if (value.includes("=")) return { problem: csvReason("metadataEquals") };
    if (Object.hasOwn(metadata, key)) return { problem: csvReason("metadataDuplicateKey", key) };
    metadata[key] = value;
  }
  const keys = Object.keys(metadata);
  if (
    keys.length > csvRowLimits.maxMetadataKeys ||
    keys.some((k) => k.length > csvRowLimits.maxMetadataKey) ||
    Object.values(metadata).some((v) => v.length > csvRowLimits.maxMetadataValue)
  ) {
    return { problem: csvReason("metadataTooLarge") };
  }
  return { metadata };
}

/** One row on its own (every rule that needs no other row). */
export function checkCsvRow(cells: string[], columnCount: number): CsvRowCheck {
  if (cells.length !== columnCount) return invalid([csvReason("columnCount", columnCount, cells.length)]);
  const [emailCell, customerIdCell, priceCell, descriptionCell, metadataCell, idempotencyKeyCell = ""] = cells;
  const problems: CsvReason[] = [];

  const email = emailCell.trim();
  if (email === "") problems.push(csvReason("emailRequired"));
  else if (email.length > csvRowLimits.maxEmail || !emailPattern.test(email)) problems.push(csvReason("emailInvalid"));

  const customerId = customerIdCell.trim();
  if (customerId !== "" && !/^cus-\S{1,60}$/.test(customerId)) problems.push(csvReason("customerIdPrefix"));

  const priceText = priceCell.trim();
  const price = Number(priceText);
  if (!/^[0-9]+$/.test(priceText)) problems.push(csvReason("priceNotInteger"));
  else if (price < csvRowLimits.minPrice || price > csvRowLimits.maxPrice) problems.push(csvReason("priceOutOfBounds"));

  const description = descriptionCell.trim();
  if (description === "") problems.push(csvReason("descriptionRequired"));
  else if ([...description].length > csvRowLimits.maxDescription) problems.push(csvReason("descriptionTooLong"));

  const parsedMetadata = parseCsvMetadata(metadataCell);
  if ("problem" in parsedMetadata) problems.push(parsedMetadata.problem);

  const idempotencyKey = idempotencyKeyCell.trim();
  if (idempotencyKey !== "" && !csvIdempotencyKeyPattern.test(idempotencyKey))
    problems.push(csvReason("idempotencyKeyPattern"));

  if (problems.length > 0 || "problem" in parsedMetadata) return invalid(problems);
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
  const problems = checks.map((check): CsvReason[] => (check.valid ? [] : [{ en: check.reason, ja: check.reasonJa }]));
  const keyOf = (cells: string[]) => (cells.length === columnCount ? (cells[5] ?? "").trim() : "");
  flagGroups(rows.map(keyOf), problems, csvReason("idempotencyKeyDuplicate"));
  flagGroups(
    rows.map((cells) => (cells.length === columnCount ? accountKey(cells) : "")),
    problems,
    csvReason("sameAccount"),
  );
  return checks.map((check, i) => (problems[i].length === 0 ? check : invalid(problems[i])));
}

/** The customer a row names before resolution: its customer_id, or else its e-mail; "" when neither is usable. */
function accountKey(cells: string[]): string {
  const customerId = cells[1].trim();
  if (customerId.startsWith("cus-")) return customerId;
  const email = cells[0].trim();
  return email && emailPattern.test(email) ? `email:${normalizeEmail(email)}` : "";
}

/** Adds `reason` to every row whose non-empty key another row shares. */
function flagGroups(keys: string[], problems: CsvReason[][], reason: CsvReason): void {
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
