import { parseAccount, serialiseAccount } from "../domain/bank-account.js";
import type { Consignor } from "../domain/zengin-debit-file.js";
import type {
  ConsignorSettings,
  ZenginFileKind,
  ZenginFileRecord,
  ZenginFileState,
  ZenginItemRecord,
  ZenginItemState,
} from "../domain/zengin-records.js";
import type { ZenginContractTable, ZenginFileTable, ZenginItemTable } from "./schema.js";
import { keyedHash, seal, unseal } from "./sealed.js";
import type { OpenedAccount } from "./bank-accounts.js";
import { accountIdentity } from "../domain/bank-account.js";

/** Row ↔ record mapping of the Zengin tables, in one place (as storage/records.ts for the others). */

export function consignorFromRow(row: ZenginContractTable): ConsignorSettings {
  return {
    merchantId: row.merchant_id,
    scope: row.scope as ConsignorSettings["scope"],
    banks: row.banks === "" ? [] : row.banks.split(","),
    transferCode: row.transfer_code,
    ...consignorOf(row),
    debitDay: Number(row.debit_day),
    createdAt: new Date(row.created_at),
    nameCharacters: row.name_characters,
    resultStyle: row.result_style === "failures_only" ? "failures_only" : "all",
    updatedAt: new Date(row.updated_at),
  };
}

export function consignorToRow(record: ConsignorSettings): ZenginContractTable {
  return {
    merchant_id: record.merchantId,
    scope: record.scope,
    banks: record.banks.join(","),
    transfer_code: record.transferCode,
    code: record.code,
    name: record.name,
    bank_code: record.bankCode,
    bank_name: record.bankName,
    branch_code: record.branchCode,
    branch_name: record.branchName,
    account_type: record.accountType,
    account_number: record.accountNumber,
    debit_day: record.debitDay,
    created_at: record.createdAt.toISOString(),
    name_characters: record.nameCharacters,
    result_style: record.resultStyle,
    updated_at: record.updatedAt.toISOString(),
  };
}

/** The consignor as a file's header carries it (the settings without the merchant's own fields). */
function consignorOf(row: ZenginContractTable): Consignor {
  return {
    code: row.code,
    name: row.name,
    bankCode: row.bank_code,
    bankName: row.bank_name,
    branchCode: row.branch_code,
    branchName: row.branch_name,
    accountType: Number(row.account_type),
    accountNumber: row.account_number,
  };
}

export function fileFromRow(row: ZenginFileTable): ZenginFileRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    contractCode: row.contract_code,
    kind: row.kind as ZenginFileKind | "",
    direction: row.direction === "in" ? "in" : "out",
    date: row.date,
    name: row.name,
    state: row.state as ZenginFileState,
    answers: row.answers,
    recordCount: Number(row.record_count),
    totalAmount: Number(row.total_amount),
    doneCount: Number(row.done_count),
    doneAmount: Number(row.done_amount),
    failedCount: Number(row.failed_count),
    failedAmount: Number(row.failed_amount),
    sha256: row.sha256,
    reason: row.reason,
    consignor: row.consignor_json ? (JSON.parse(row.consignor_json) as Consignor) : null,
    dueAt: row.due_at === null ? null : new Date(row.due_at),
    unexpectedName: row.unexpected_name === 1,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function fileToRow(record: ZenginFileRecord): ZenginFileTable {
  return {
    id: record.id,
    ...fileChangesToRow(record),
  } as ZenginFileTable;
}

/** The columns of the fields given (an update of some of a file's fields). */
export function fileChangesToRow(changes: Partial<ZenginFileRecord>): Partial<ZenginFileTable> {
  const row: Partial<ZenginFileTable> = {};
  const set = <K extends keyof ZenginFileTable>(column: K, value: ZenginFileTable[K] | undefined) => {
    if (value !== undefined) row[column] = value;
  };
  set("merchant_id", changes.merchantId);
  set("contract_code", changes.contractCode);
  set("kind", changes.kind);
  set("direction", changes.direction);
  set("date", changes.date);
  set("name", changes.name);
  set("state", changes.state);
  set("answers", changes.answers);
  set("record_count", changes.recordCount);
  set("total_amount", changes.totalAmount);
  set("done_count", changes.doneCount);
  set("done_amount", changes.doneAmount);
  set("failed_count", changes.failedCount);
  set("failed_amount", changes.failedAmount);
  set("sha256", changes.sha256);
  set("reason", changes.reason);
  if (changes.consignor !== undefined)
    row.consignor_json = changes.consignor === null ? "" : JSON.stringify(consignorJson(changes.consignor));
  if (changes.dueAt !== undefined) row.due_at = changes.dueAt?.toISOString() ?? null;
  if (changes.unexpectedName !== undefined) row.unexpected_name = changes.unexpectedName ? 1 : 0;
  set("created_at", changes.createdAt?.toISOString());
  set("updated_at", changes.updatedAt?.toISOString());
  return row;
}

/** The consignor's fields in a fixed order: the recorded JSON says exactly what the file's header says. */
function consignorJson(consignor: Consignor): Consignor {
  const { code, name, bankCode, bankName, branchCode, branchName, accountType, accountNumber } = consignor;
  return { code, name, bankCode, bankName, branchCode, branchName, accountType, accountNumber };
}

export function itemFromRow(row: ZenginItemTable): ZenginItemRecord {
  return {
    reference: row.reference,
    merchantId: row.merchant_id,
    contractCode: row.contract_code,
    date: row.date,
    state: row.state as ZenginItemState,
    fileId: row.file_id,
    customerNumber: row.customer_number,
    amount: Number(row.amount),
    newCode: Number(row.new_code),
    account: parseAccount(unseal(row.account_sealed)),
    resultCode: row.result_code === null ? null : Number(row.result_code),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function itemToRow(record: ZenginItemRecord, opened?: OpenedItemAccount): ZenginItemTable {
  return {
    reference: record.reference,
    merchant_id: record.merchantId,
    contract_code: record.contractCode,
    date: record.date,
    state: record.state,
    file_id: record.fileId,
    customer_number: record.customerNumber,
    amount: record.amount,
    new_code: record.newCode,
    ...sealedItemAccount(record.account, opened),
    result_code: record.resultCode,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}

/**
 * What the caller already holds of an item's account: the account row's sealed text and what it
 * opens to, and the keyed hash of its numbers under the current key (a cycle's page has both).
 */
export type OpenedItemAccount = Pick<OpenedAccount, "sealed" | "plain"> & { readonly key: string };

/**
 * The sealed columns of an account: the details sealed, and the keyed hash of which account it is.
 * Details the same as the account row's reuse its sealed text: the same secret under the same
 * key, sealed once (a debit date's 100,000 items would each cost a sealing otherwise).
 */
export function sealedItemAccount(
  account: ZenginItemRecord["account"],
  opened?: OpenedItemAccount,
): Pick<ZenginItemTable, "account_sealed" | "account_key"> {
  const plain = serialiseAccount(account);
  return {
    account_sealed: opened?.plain === plain ? opened.sealed : seal(plain),
    account_key: opened?.key ?? keyedHash(accountIdentity(account)),
  };
}
