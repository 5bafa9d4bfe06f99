import type { AsyncCommand } from "fast-check";
import { expect } from "vitest";
import { Code } from "@connectrpc/connect";
import { AsyncStatus, ChargeStatus, ErrorType } from "../../../gen/payments/v1/enums_pb.js";
import { redirect } from "../../helpers/on-session.js";
import { expectCharge, expectCustomer } from "./api-checks.js";
import { debitVerdict } from "./bank-model.js";
import { fail, offSessionRefusal, succeed } from "./charge-model.js";
import { hasPendingCharge, liveAsyncKeys, newAccount, type Model, type ModelCharge } from "./model-state.js";
import { expectConnectError, pickCustomer, unknownId } from "./picks.js";
import { count, type RealSystem } from "./real-system.js";

type Command = AsyncCommand<Model, RealSystem>;

let emailCounter = 0;

function newCharge(fields: Pick<ModelCharge, "id" | "customerId" | "amount"> & Partial<ModelCharge>): ModelCharge {
  return { status: ChargeStatus.PENDING, jobAttempts: 0, refundedSettled: 0, refundedPending: 0, ...fields };
}

/** A customer through the API: an on-session link (contract only, or with a first charge) completed in the sandbox. */
export class AddCustomer implements Command {
  constructor(
    readonly balance: number,
    readonly price: number | undefined,
  ) {}
  check = () => true;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("AddCustomer");
    const email = `model.${process.pid}.${++emailCounter}@example.jp`;
    const link = await real.pay.createOnSessionPayment({
      buyer: { email },
      charge: this.price === undefined ? undefined : { price: this.price },
      redirect,
    });
    const done = await real.sandbox.completePayment({
      paymentLinkUrl: link.paymentLink!.url,
      initialBalance: BigInt(this.balance),
    });
    const customer = {
      id: done.customerId,
      email,
      contractId: done.contractId,
      active: true,
      account: newAccount(this.balance),
    };
    model.customers.push(customer);
    if (this.price !== undefined) {
      const charge = newCharge({ id: done.chargeId, customerId: customer.id, amount: this.price });
      model.charges.push(charge);
      const verdict = debitVerdict(model, customer.account, this.price);
      if (verdict.ok) succeed(model, charge);
      else fail(charge, verdict.errorType);
      // A failed first charge cancels the contract the link was setting up.
      customer.active = verdict.ok;
      expect(done.chargeStatus).toBe(charge.status);
      await expectCharge(real, model, charge.id);
    }
    await expectCustomer(real, model, customer);
  }
  toString = () => `AddCustomer(balance ${this.balance}, price ${this.price})`;
}

/** CreateOffSessionPaymentAsync, optionally under an idempotency key. */
export class AsyncCharge implements Command {
  constructor(
    readonly customerPick: number,
    readonly price: number,
    readonly forceKyc: boolean,
    readonly keyed: boolean,
  ) {}
  // One charge in flight per customer: the engine's jobs of one drain run in no fixed order.
  check = (model: Readonly<Model>) =>
    !pickCustomer(model, this.customerPick) ||
    !hasPendingCharge(model as Model, pickCustomer(model, this.customerPick)!.id);
  async run(model: Model, real: RealSystem): Promise<void> {
    count("AsyncCharge");
    const customerId = pickCustomer(model, this.customerPick)?.id ?? unknownId("cus");
    const key = this.keyed ? `model-${customerId}-${model.charges.length}` : undefined;
    const answer = await real.pay.createOffSessionPaymentAsync({
      customerId,
      charge: { price: this.price, description: "model" },
      forceKyc: this.forceKyc,
      idempotencyKey: key,
    });
    const refusal = offSessionRefusal(model, customerId, this.forceKyc);
    const charge = newCharge({
      id: answer.chargeId,
      customerId,
      amount: this.price,
      requestId: answer.requestId,
      requestStatus: AsyncStatus.PENDING,
      jobRunAt: model.now,
    });
    if (refusal !== undefined)
      Object.assign(charge, {
        status: ChargeStatus.FAILURE,
        errorType: refusal,
        requestStatus: AsyncStatus.FAILED_TO_START,
        jobRunAt: undefined,
      });
    model.charges.push(charge);
    expect(answer.status).toBe(charge.requestStatus);
    if (key)
      model.asyncKeys.push({
        key,
        usedAt: model.now,
        customerId,
        price: this.price,
        forceKyc: this.forceKyc,
        requestId: answer.requestId,
        chargeId: answer.chargeId,
        status: answer.status,
      });
    await expectCharge(real, model, charge.id);
  }
  toString = () =>
    `AsyncCharge(customer ${this.customerPick}, ¥${this.price}, forceKyc ${this.forceKyc}, keyed ${this.keyed})`;
}

/** The same async request again under its key: the first answer, and no second charge. */
export class ReplayAsyncCharge implements Command {
  constructor(readonly keyPick: number) {}
  check = (model: Readonly<Model>) => liveAsyncKeys(model).length > 0;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("ReplayAsyncCharge");
    const live = liveAsyncKeys(model);
    const first = live[this.keyPick % live.length];
    const answer = await real.pay.createOffSessionPaymentAsync({
      customerId: first.customerId,
      charge: { price: first.price, description: "model" },
      forceKyc: first.forceKyc,
      idempotencyKey: first.key,
    });
    expect({ requestId: answer.requestId, chargeId: answer.chargeId, status: answer.status }).toEqual({
      requestId: first.requestId,
      chargeId: first.chargeId,
      status: first.status,
    });
    await expectCharge(real, model, first.chargeId);
  }
  toString = () => `ReplayAsyncCharge(${this.keyPick})`;
}

/** The Connect code a failed synchronous charge answers with (docs/reference/errors.md). */
function syncErrorCode(errorType: ErrorType): Code {
  if (errorType === ErrorType.PAYMENT_CUSTOMER_NOT_FOUND || errorType === ErrorType.PAYMENT_CUSTOMER_INACTIVE)
    return Code.InvalidArgument;
  if (errorType === ErrorType.PAYMENT_GATEWAY_UNAVAILABLE) return Code.Unavailable;
  return Code.Internal;
}

/** CreateOffSessionPayment (deprecated): the bank's answer at once. */
export class SyncCharge implements Command {
  constructor(
    readonly customerPick: number,
    readonly price: number,
  ) {}
  check = (model: Readonly<Model>) =>
    !pickCustomer(model, this.customerPick) ||
    !hasPendingCharge(model as Model, pickCustomer(model, this.customerPick)!.id);
  async run(model: Model, real: RealSystem): Promise<void> {
    count("SyncCharge");
    const customer = pickCustomer(model, this.customerPick);
    const customerId = customer?.id ?? unknownId("cus");
    const call = real.pay.createOffSessionPayment({
      customerId,
      charge: { price: this.price, description: "model sync" },
    });
    const refusal = offSessionRefusal(model, customerId, false);
    if (refusal !== undefined) {
      await expectConnectError(call, syncErrorCode(refusal));
      return;
    }
    // The failed charge's id is not in the answer; only a successful one is followed further.
    const verdict = debitVerdict(model, customer!.account, this.price);
    if (!verdict.ok) {
      await expectConnectError(call, syncErrorCode(verdict.errorType));
      return;
    }
    const { charge: answered } = await call;
    const charge = newCharge({ id: answered!.chargeId, customerId, amount: this.price });
    model.charges.push(charge);
    succeed(model, charge);
    await expectCharge(real, model, charge.id);
  }
  toString = () => `SyncCharge(customer ${this.customerPick}, ¥${this.price})`;
}
