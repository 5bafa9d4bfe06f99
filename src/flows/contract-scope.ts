import { anyContractCovers, outsideContractsMessage } from "../domain/contract-scope.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import type { ConsignorSettings } from "../domain/zengin-records.js";
import { listContracts } from "../storage/zengin.js";
import type { FlowContext } from "./flow-context.js";

/**
 * Which banks a merchant's customers may link (docs/guide/direct-debit-files.md#contracts): under
 * BANK_CONNECTOR=zengin, once the merchant holds a contract, only banks one of its contracts
 * covers — an account outside them is refused when it is linked, never found at file time.
 */

/** The contracts that limit linking, or undefined when nothing does (simulated bank, or no contract yet). */
export async function limitingContracts(
  ctx: FlowContext,
  merchantId: string,
): Promise<ConsignorSettings[] | undefined> {
  if (ctx.config.bankConnector !== "zengin") return undefined;
  const contracts = await listContracts(ctx.tx.db, merchantId);
  return contracts.length > 0 ? contracts : undefined;
}

/** The refusal of an account at a bank none of the merchant's contracts covers. */
export const bankOutsideContractsReason = "BANK_OUTSIDE_CONTRACTS";

export async function requireBankInContracts(ctx: FlowContext, merchantId: string, bankCode: string): Promise<void> {
  const contracts = await limitingContracts(ctx, merchantId);
  if (contracts && !anyContractCovers(contracts, bankCode))
    throw new RequestRefusal("precondition", outsideContractsMessage(bankCode), {
      reason: bankOutsideContractsReason,
      facts: { field: "bank_code", bankCode },
    });
}

/** Directory matches split: `banks` the contracts cover (all, when nothing limits), `outsideContracts` the rest. */
export function splitByContracts<B extends { code: string }>(
  found: readonly B[],
  contracts: readonly ConsignorSettings[] | undefined,
): { banks: B[]; outsideContracts: B[] } {
  if (!contracts) return { banks: [...found], outsideContracts: [] };
  return {
    banks: found.filter((bank) => anyContractCovers(contracts, bank.code)),
    outsideContracts: found.filter((bank) => !anyContractCovers(contracts, bank.code)),
  };
}
