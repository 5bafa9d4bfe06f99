import { parseArgs } from "node:util";
import type { FlowContext } from "../flows/flow-context.js";
import { consignorView } from "../flows/zengin-cli-views.js";
import {
  addContract,
  type ConsignorInput,
  contractInputOf,
  deleteContract,
  merchantContracts,
  updateContract,
} from "../flows/zengin-contracts.js";

/** The flags of `zengin contracts add|update` and the contract field each sets. */
const fieldOfFlag: Record<string, keyof ConsignorInput> = {
  scope: "scope",
  "transfer-code": "transferCode",
  name: "name",
  bank: "bankCode",
  "bank-name": "bankName",
  branch: "branchCode",
  "branch-name": "branchName",
  "account-type": "accountType",
  account: "accountNumber",
  banks: "banks",
  "debit-day": "debitDay",
  "result-style": "resultStyle",
  "name-characters": "nameCharacters",
};

const usage =
  "zengin contracts list --merchant M | add --merchant M --code C … | update --merchant M --code C … | remove --merchant M --code C";

/**
 * `zengin contracts list|add|update|remove` (docs/reference/cli.md): a merchant's
 * 口座振替 contracts; `update` changes only the flags given.
 */
export async function zenginContractsCommand(
  args: string[],
  withContext: <T>(run: (ctx: FlowContext) => Promise<T>) => Promise<T>,
  usageError: (message: string) => Error,
): Promise<unknown> {
  const [verb, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: Object.fromEntries(
      ["merchant", "code", ...Object.keys(fieldOfFlag)].map((name) => [name, { type: "string" as const }]),
    ),
  });
  const merchant = values.merchant;
  if (!merchant) throw usageError(`--merchant is required (${usage})`);
  if (verb === "list") return withContext(async (ctx) => (await merchantContracts(ctx, merchant)).map(consignorView));
  const code = values.code;
  if (!code) throw usageError(`--code is required (${usage})`);
  const given: Partial<ConsignorInput> = {};
  for (const [flag, field] of Object.entries(fieldOfFlag)) if (values[flag] !== undefined) given[field] = values[flag];
  if (verb === "add") {
    const missing = ["scope", "transfer-code", "name", "bank", "branch", "account-type", "account"].filter(
      (flag) => values[flag] === undefined,
    );
    if (missing.length > 0) throw usageError(`${missing.map((flag) => `--${flag}`).join(", ")} required`);
    return withContext(async (ctx) =>
      consignorView(await addContract(ctx, merchant, { ...(given as ConsignorInput), code })),
    );
  }
  if (verb === "update")
    return withContext(async (ctx) => {
      const current = (await merchantContracts(ctx, merchant)).find((contract) => contract.code === code);
      const input = { ...(current ? contractInputOf(current) : { code }), ...given, code } as ConsignorInput;
      return consignorView(await updateContract(ctx, merchant, code, input));
    });
  if (verb === "remove")
    return withContext(async (ctx) => {
      await deleteContract(ctx, merchant, code);
      return { merchant_id: merchant, code, removed: true };
    });
  throw usageError(usage);
}
