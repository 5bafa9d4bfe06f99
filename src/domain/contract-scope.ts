import { yuchoBankCode } from "./yucho-account.js";

/**
 * Which banks' accounts a consignor contract debits (docs/guide/direct-debit-files.md#contracts):
 * a bank's own 口座振替 service only its own accounts, a collection agent (収納代行) the banks it
 * lists (or every bank), and ゆうちょ銀行 only through its own 自動払込み contract — a ゆうちょ account
 * is never in another contract's file.
 */
export type ContractScope = "bank" | "agent" | "yucho";

export const contractScopes: readonly ContractScope[] = ["bank", "agent", "yucho"];

/** What decides a contract's reach: its scope, its own bank, and an agent's listed banks. */
export interface ScopedContract {
  readonly code: string;
  readonly scope: ContractScope;
  /** The consignor's own bank: the bank a `bank` contract debits. */
  readonly bankCode: string;
  /** An `agent` contract's banks (4-digit codes); empty: every bank but ゆうちょ. */
  readonly banks: readonly string[];
}

/** True when the contract may debit an account at this bank. */
export function contractCovers(contract: ScopedContract, bankCode: string): boolean {
  if (contract.scope === "yucho") return bankCode === yuchoBankCode;
  if (bankCode === yuchoBankCode) return false;
  if (contract.scope === "bank") return bankCode === contract.bankCode;
  return contract.banks.length === 0 || contract.banks.includes(bankCode);
}

/**
 * The contract an account's debits (and its refunds' transfers) go through: the bank's own
 * contract first, then an agent that lists the bank, then an agent for every bank; undefined when
 * none covers it. Ties go to the lowest 委託者コード, so the choice never depends on the order given.
 */
export function contractFor<C extends ScopedContract>(contracts: readonly C[], bankCode: string): C | undefined {
  const rank = (contract: C) => (contract.scope === "agent" ? (contract.banks.length === 0 ? 2 : 1) : 0);
  return contracts
    .filter((contract) => contractCovers(contract, bankCode))
    .sort((a, b) => rank(a) - rank(b) || a.code.localeCompare(b.code))[0];
}

/** The banks a merchant's contracts cover: "every" (an agent for every bank), or the codes listed. */
export function coveredBanks(contracts: readonly ScopedContract[]): { every: boolean; codes: Set<string> } {
  const codes = new Set<string>();
  let every = false;
  for (const contract of contracts) {
    if (contract.scope === "yucho") codes.add(yuchoBankCode);
    else if (contract.scope === "bank") codes.add(contract.bankCode);
    else if (contract.banks.length === 0) every = true;
    else for (const code of contract.banks) codes.add(code);
  }
  return { every, codes };
}

/** True when some contract covers the bank (the test the payment page's bank search applies). */
export function anyContractCovers(contracts: readonly ScopedContract[], bankCode: string): boolean {
  return contracts.some((contract) => contractCovers(contract, bankCode));
}

/** Why an account at this bank cannot be linked (the API's message; the page words it in its language). */
export function outsideContractsMessage(bankCode: string): string {
  return `bank_code: the merchant's direct-debit (口座振替) contracts do not cover bank ${bankCode}; choose an account at another bank`;
}

/**
 * An agent's bank list as typed ("0001,0005 0009"): 4-digit codes, sorted, without repeats; the
 * reason when one is not a bank code or is ゆうちょ (a contract of its own).
 */
export function parseAgentBanks(text: string): { ok: true; banks: string[] } | { ok: false; reason: string } {
  const codes = text.split(/[\s,]+/).filter((code) => code !== "");
  for (const code of codes) {
    if (!/^\d{4}$/.test(code)) return { ok: false, reason: `${code} is not a 4-digit bank code` };
    if (code === yuchoBankCode)
      return { ok: false, reason: "ゆうちょ銀行 (9900) needs a contract of its own (scope yucho)" };
  }
  return { ok: true, banks: [...new Set(codes)].sort() };
}
