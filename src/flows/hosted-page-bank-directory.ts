import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import {
  bankDisplayName,
  bankReading,
  branchDisplayName,
  branchReading,
  searchBanks,
  searchBranches,
} from "../domain/bank-directory.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import { bankMaster } from "../ports/bank-master.js";
import { findPaymentLinkByToken } from "../storage/payment-links.js";
import type { FlowContext } from "./flow-context.js";
import { limitingContracts, splitByContracts } from "./contract-scope.js";
import { linkNotFound } from "./hosted-page.js";
import { limits } from "../domain/limits.js";

/** The hosted page's bank and branch search; its errors follow flows/hosted-page.ts. */

/** Banks of the Zengin master matching what the customer typed (any link's token may ask). */
export async function searchBankDirectory(ctx: FlowContext, token: string, query: string, limit: number) {
  const link = await findPaymentLinkByToken(ctx.tx.db, token);
  if (!link) throw linkNotFound();
  const found = searchBanks(bankMaster(ctx.mode.simulatedBanks), query, limit || limits.pageSizeDefault).map(
    (bank) => ({
      code: bank.code,
      name: bankDisplayName(bank),
      kana: bankReading(bank),
    }),
  );
  // Split into the banks the merchant's contracts cover and the others (flows/contract-scope.ts).
  return splitByContracts(found, await limitingContracts(ctx, link.merchantId));
}

/** One bank's branches matching what the customer typed. */
export async function searchBranchDirectory(
  ctx: FlowContext,
  token: string,
  bankCode: string,
  query: string,
  limit: number,
) {
  if (!(await findPaymentLinkByToken(ctx.tx.db, token))) throw linkNotFound();
  const bank = bankMaster(ctx.mode.simulatedBanks)[bankCode];
  if (!bank) throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `no bank has the code ${bankCode}`);
  return {
    bank: { code: bank.code, name: bankDisplayName(bank), kana: bankReading(bank) },
    branches: searchBranches(bank, query, limit || limits.pageSizeDefault).map((branch) => ({
      code: branch.code,
      name: branchDisplayName(bank.code, branch),
      kana: branchReading(branch),
    })),
  };
}
