import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { type ContractScope, contractScopes, parseAgentBanks } from "../domain/contract-scope.js";
import { normaliseBankKana } from "../domain/kana.js";
import { parseWidenedCharacters } from "../domain/zengin-characters.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import { yuchoBankCode } from "../domain/yucho-account.js";
import type { ConsignorSettings } from "../domain/zengin-records.js";
import { parseResultStyle } from "../domain/zengin-result-style.js";
import { findMerchant } from "../storage/merchants.js";
import type { Tx } from "../storage/transactor.js";
import {
  findContract,
  findContractByTransferCode,
  hasScheduledItems,
  listContracts,
  moveScheduledItems,
  removeContract,
  saveContract,
} from "../storage/zengin.js";
import type { FlowContext } from "./flow-context.js";

/**
 * A merchant's 口座振替 contracts (docs/guide/direct-debit-files.md#contracts): `zengin contracts
 * add|update|remove`, the dashboard's settings, and `merchants update --consignor-…` for the
 * merchant with a single agent contract. Every field is checked here, where it enters, so a file
 * is never refused for it later.
 */

/** A contract as typed (CLI flags, the dashboard's form): every field text. */
export interface ConsignorInput {
  code: string;
  name: string;
  bankCode: string;
  bankName?: string;
  branchCode: string;
  branchName?: string;
  accountType: string;
  accountNumber: string;
  /** A monthly debit day, 1–28 ("" or absent: ZENGIN_LEAD_DAYS business days after acceptance). */
  debitDay?: string;
  /** bank | agent | yucho (absent: agent). */
  scope?: string;
  /** An agent's banks, 4-digit codes separated by commas or spaces ("" or absent: every bank but ゆうちょ). */
  banks?: string;
  /** 振込依頼人コード for 総合振込, 10 digits (absent or "": the 委託者コード, as before contracts had their own). */
  transferCode?: string;
  /**
   * Characters the contract's bank accepts in names beyond the 全銀協 rules, some of `( ) - . /`
   * (docs/guide/direct-debit-files.md#characters-in-names); absent keeps what is set.
   */
  nameCharacters?: string;
  /** all | failures_only: how its bank answers a request file (absent or "": all). */
  resultStyle?: string;
}

const refuse = (field: string, reason: string) =>
  new PaymentFailure(PaymentErrorCode.BAD_REQUEST, `${field}: ${reason}`);

function digits(field: string, value: string, length: number): string {
  if (!new RegExp(`^\\d{${length}}$`).test(value)) throw refuse(field, `must be ${length} digits`);
  return value;
}

function kana(field: string, value: string, length: number, optional = false, widened = ""): string {
  if (optional && value.trim() === "") return "";
  const bankName = field !== "consignor-name";
  const result = normaliseBankKana(value, length, bankName ? { rule: "bank-name" } : { widened });
  if (!result.ok) throw refuse(field, result.reason);
  return result.value;
}

function debitDayOf(value: string): number {
  if (value === "") return 0;
  if (!/^\d{1,2}$/.test(value) || Number(value) < 1 || Number(value) > 28) throw refuse("debit-day", "must be 1 to 28");
  return Number(value);
}

function scopeOf(value: string): ContractScope {
  const scope = (value || "agent") as ContractScope;
  if (!contractScopes.includes(scope)) throw refuse("scope", "must be bank, agent or yucho");
  return scope;
}

/** The contract the input describes, every field checked (kana names normalised to half-width). */
export function contractOf(merchantId: string, input: ConsignorInput, now: Date): ConsignorSettings {
  if (!["1", "2", "9"].includes(input.accountType))
    throw refuse("consignor-account-type", "must be 1 (普通), 2 (当座) or 9 (その他)");
  const scope = scopeOf(input.scope ?? "");
  const code = digits("consignor-code", input.code, 10);
  const bankCode = digits("consignor-bank", input.bankCode, 4);
  const banks = parseAgentBanks(input.banks ?? "");
  if (!banks.ok) throw refuse("banks", banks.reason);
  if (scope !== "agent" && banks.banks.length > 0)
    throw refuse("banks", `only an agent contract lists banks; a ${scope} contract covers its own bank`);
  // ゆうちょ's 自動払込み pays into the consignor's ゆうちょ account; a bank's own service into one at that bank.
  if (scope === "yucho" && bankCode !== yuchoBankCode)
    throw refuse("consignor-bank", `a yucho contract's own account is at ゆうちょ銀行 (${yuchoBankCode})`);
  if (scope === "bank" && bankCode === yuchoBankCode)
    throw refuse("scope", `ゆうちょ銀行 (${yuchoBankCode}) is a yucho contract`);
  const widening = parseWidenedCharacters(input.nameCharacters ?? "");
  if (!widening.ok) throw refuse("consignor-name-characters", widening.reason);
  const resultStyle = parseResultStyle(input.resultStyle);
  if (!resultStyle.ok) throw refuse("result-style", "must be all or failures_only");
  return {
    merchantId,
    code,
    scope,
    banks: banks.banks,
    transferCode: input.transferCode ? digits("transfer-code", input.transferCode, 10) : code,
    name: kana("consignor-name", input.name, 40, false, widening.value),
    bankCode,
    bankName: kana("consignor-bank-name", input.bankName ?? "", 15, true),
    branchCode: digits("consignor-branch", input.branchCode, 3),
    branchName: kana("consignor-branch-name", input.branchName ?? "", 15, true),
    accountType: Number(input.accountType),
    accountNumber: digits("consignor-account", input.accountNumber, 7),
    debitDay: debitDayOf(input.debitDay ?? ""),
    nameCharacters: widening.value,
    resultStyle: resultStyle.style,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Refuses a 委託者コード or 振込依頼人コード another contract already holds (a result file names its
 * contract by one of them); `replacing`: the code of the contract being replaced, which may keep its own.
 */
async function requireFreeCodes(trx: Tx, contract: ConsignorSettings, replacing?: string): Promise<void> {
  const holder = await findContract(trx, contract.code);
  if (holder && holder.code !== replacing)
    throw refuse(
      "consignor-code",
      holder.merchantId === contract.merchantId
        ? `${contract.code} is already one of this merchant's contracts`
        : `${contract.code} is already another merchant's consignor code`,
    );
  const transfer = await findContractByTransferCode(trx, contract.transferCode);
  if (transfer && transfer.code !== replacing)
    throw refuse("transfer-code", `${contract.transferCode} is already another contract's transfer requester code`);
}

async function requireMerchant(trx: Tx, merchantId: string): Promise<void> {
  if (!(await findMerchant(trx, merchantId)))
    throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${merchantId} not found`);
}

/** `zengin contracts add`: one more contract for the merchant. */
export async function addContract(ctx: FlowContext, merchantId: string, input: ConsignorInput) {
  const contract = contractOf(merchantId, input, ctx.clock.now());
  await ctx.tx.write(async (trx) => {
    await requireMerchant(trx, merchantId);
    await requireFreeCodes(trx, contract);
    await saveContract(trx, contract);
    await ctx.audit?.(trx, { action: "consignor.add", target: merchantId, details: { code: contract.code } });
  });
  return contract;
}

/**
 * `zengin contracts update CODE`: the contract's fields replaced (its 委託者コード may change: the
 * debits and transfers waiting for its next file follow it).
 */
export async function updateContract(ctx: FlowContext, merchantId: string, code: string, input: ConsignorInput) {
  return ctx.tx.write(async (trx) => {
    await requireMerchant(trx, merchantId);
    const current = await findContract(trx, code);
    if (current?.merchantId !== merchantId)
      throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${merchantId} has no contract ${code}`);
    return replaceContract(ctx, trx, current, contractOf(merchantId, input, ctx.clock.now()));
  });
}

async function replaceContract(ctx: FlowContext, trx: Tx, current: ConsignorSettings, next: ConsignorSettings) {
  await requireFreeCodes(trx, next, current.code);
  const saved = { ...next, createdAt: current.createdAt };
  if (next.code !== current.code) {
    await removeContract(trx, current.merchantId, current.code);
    await saveContract(trx, saved);
    await moveScheduledItems(trx, current.code, next.code);
  } else await saveContract(trx, saved);
  await ctx.audit?.(trx, { action: "consignor.update", target: current.merchantId, details: { code: next.code } });
  return saved;
}

/** `zengin contracts remove CODE`: refused while debits or transfers wait for its next file. */
export async function deleteContract(ctx: FlowContext, merchantId: string, code: string): Promise<void> {
  await ctx.tx.write(async (trx) => {
    const current = await findContract(trx, code);
    if (current?.merchantId !== merchantId)
      throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${merchantId} has no contract ${code}`);
    if (await hasScheduledItems(trx, code))
      throw refuse("consignor-code", `${code} has debits or transfers waiting for its next file`);
    await removeContract(trx, merchantId, code);
    await ctx.audit?.(trx, { action: "consignor.remove", target: merchantId, details: { code } });
  });
}

/** `zengin contracts list`: the merchant's contracts, by 委託者コード. */
export function merchantContracts(ctx: FlowContext, merchantId: string): Promise<ConsignorSettings[]> {
  return listContracts(ctx.tx.db, merchantId);
}

/**
 * `merchants update --consignor-…` (the single-agent case, as before contracts): the merchant's
 * one contract set to these fields, an agent for every bank unless the input says otherwise;
 * refused when the merchant holds several (`zengin contracts update CODE` then).
 */
export async function updateConsignor(ctx: FlowContext, merchantId: string, input: ConsignorInput) {
  // Leaving the widening out keeps what the merchant's contract has.
  const kept = input.nameCharacters ?? (await listContracts(ctx.tx.db, merchantId))[0]?.nameCharacters ?? "";
  const contract = contractOf(merchantId, { ...input, nameCharacters: kept }, ctx.clock.now());
  return ctx.tx.write(async (trx) => {
    await requireMerchant(trx, merchantId);
    const current = await listContracts(trx, merchantId);
    if (current.length > 1)
      throw refuse("consignor-code", "the merchant holds several contracts: use zengin contracts update CODE");
    if (current.length === 1) return replaceContract(ctx, trx, current[0], keptFrom(current[0], input, contract));
    await requireFreeCodes(trx, contract);
    await saveContract(trx, contract);
    await ctx.audit?.(trx, { action: "consignor.update", target: merchantId, details: { code: contract.code } });
    return contract;
  });
}

/**
 * What the single-contract form does not say is kept from the contract it replaces: its scope,
 * banks and result style, and its own 振込依頼人コード (one that was the 委託者コード follows a new 委託者コード).
 */
function keptFrom(current: ConsignorSettings, input: ConsignorInput, next: ConsignorSettings): ConsignorSettings {
  const ownTransferCode = current.transferCode !== current.code;
  return {
    ...next,
    scope: input.scope ? next.scope : current.scope,
    resultStyle: input.resultStyle ? next.resultStyle : current.resultStyle,
    banks: input.scope || input.banks ? next.banks : current.banks,
    transferCode: input.transferCode || !ownTransferCode ? next.transferCode : current.transferCode,
  };
}

/** A contract as `updateConsignor` and the dashboard's form take it. */
export function contractInputOf(contract: ConsignorSettings): Required<ConsignorInput> {
  return {
    code: contract.code,
    name: contract.name,
    bankCode: contract.bankCode,
    bankName: contract.bankName,
    branchCode: contract.branchCode,
    branchName: contract.branchName,
    accountType: String(contract.accountType),
    accountNumber: contract.accountNumber,
    debitDay: contract.debitDay ? String(contract.debitDay) : "",
    scope: contract.scope,
    banks: contract.banks.join(","),
    transferCode: contract.transferCode,
    nameCharacters: contract.nameCharacters,
    resultStyle: contract.resultStyle,
  };
}

/** The merchant's first contract as `updateConsignor` takes it ("" everywhere when it holds none). */
export async function consignorSettings(ctx: FlowContext, merchantId: string): Promise<ConsignorInput> {
  const [first] = await listContracts(ctx.tx.db, merchantId);
  if (first) return contractInputOf(first);
  return {
    code: "",
    name: "",
    bankCode: "",
    bankName: "",
    branchCode: "",
    branchName: "",
    accountType: "",
    accountNumber: "",
    debitDay: "",
    nameCharacters: "",
  };
}
