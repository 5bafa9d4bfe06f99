import {
  BankAccountType,
  ContractStatus,
  KycStatus,
  PaymentAuthorizationStatus,
} from "../../gen/payments/v1/enums_pb.js";
import { newId } from "../../src/domain/ids.js";
import { openBankAccount } from "../../src/storage/bank-accounts.js";
import type { Clock } from "../../src/ports/clock.js";
import type { Transactor } from "../../src/storage/transactor.js";
import type { FlowContext } from "../../src/flows/flow-context.js";
import { updateConsignor } from "../../src/flows/merchants.js";

/**
 * A customer with an activated contract and a linked simulated account, written straight to the
 * database, for suites whose subject comes after the on-session flow (off-session, refunds). A
 * TestServer will do, or any storage with a clock and a merchant (the benchmarks, a process test).
 */
export async function seedActiveCustomer(
  server: { merchant: { merchant_id: string }; clock: Clock; ctx: { tx: Transactor } },
  options: {
    merchantId?: string;
    balance?: number;
    kyc?: KycStatus;
    email?: string;
    bankCode?: string;
    accountNumber?: string;
    name?: string;
    /** Katakana family and given name. */
    kana?: [string, string];
    /** The linked account's 預金種目 and holder as stored (ORDINARY, ヤマダ タロウ by default). */
    accountType?: BankAccountType;
    accountHolder?: string;
  } = {},
): Promise<{ customerId: string; contractId: string; accountId: string }> {
  const merchantId = options.merchantId ?? server.merchant.merchant_id;
  const now = server.clock.now().toISOString();
  const customerId = newId("cus");
  const contractId = newId("con");
  const email = options.email ?? `${customerId}@example.jp`;
  const accountId = await server.ctx.tx.write(async (trx) => {
    await trx
      .insertInto("customers")
      .values(activeCustomerRow(customerId, merchantId, now, { ...options, email }))
      .execute();
    const accountId = await openBankAccount(trx, {
      merchantId,
      customerId,
      details: {
        bankCode: options.bankCode ?? "0001",
        branchCode: "001",
        accountType: options.accountType ?? BankAccountType.ORDINARY,
        accountNumber: options.accountNumber ?? "1234567",
        accountHolder: options.accountHolder ?? "ヤマダ タロウ",
      },
      balance: options.balance ?? 1_000_000,
      now: server.clock.now(),
    });
    await trx
      .insertInto("contracts")
      .values(activatedContractRow({ contractId, customerId, accountId }, merchantId, now))
      .execute();
    return accountId;
  });
  return { customerId, contractId, accountId };
}

/** The customers row of a customer whose payment is authorized, as the on-session flow leaves it. */
export function activeCustomerRow(
  id: string,
  merchantId: string,
  now: string,
  options: { email?: string; name?: string; kana?: [string, string]; kyc?: KycStatus } = {},
) {
  const email = options.email ?? `${id}@example.jp`;
  return {
    id,
    merchant_id: merchantId,
    email,
    email_normalized: email.toLowerCase(),
    name: options.name ?? "Taro Yamada",
    katakana_last_name: options.kana?.[0] ?? "ヤマダ",
    katakana_first_name: options.kana?.[1] ?? "タロウ",
    address: "",
    birth_date: "",
    gender: "",
    metadata_json: "{}",
    kyc_status: options.kyc ?? KycStatus.NOT_SUBMITTED,
    kyc_rejection_reason: "",
    payment_status: PaymentAuthorizationStatus.AUTHORIZED,
    link_initialized: 1,
    activated: 1,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
}

/** The contracts row of an activated contract on the customer's account. */
export function activatedContractRow(
  ids: { contractId: string; customerId: string; accountId: string },
  merchantId: string,
  now: string,
) {
  return {
    id: ids.contractId,
    merchant_id: merchantId,
    customer_id: ids.customerId,
    status: ContractStatus.ACTIVATED,
    metadata_json: "{}",
    created_at: now,
    updated_at: now,
    bank_account_id: ids.accountId,
  };
}

/** Consignor settings for a merchant, so BANK_CONNECTOR=zengin (production's default) takes its charges. */
export async function seedConsignor(
  server: { merchant: { merchant_id: string }; ctx: FlowContext },
  code = "1000000001",
) {
  await updateConsignor(server.ctx, server.merchant.merchant_id, {
    code,
    name: "ﾃｽﾄ ｼﾖﾂﾌﾟ",
    bankCode: "0001",
    branchCode: "001",
    accountType: "1",
    accountNumber: "1234567",
  });
}
