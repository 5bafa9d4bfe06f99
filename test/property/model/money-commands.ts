import type { AsyncCommand } from "fast-check";
import { expect } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { AsyncStatus, ChargeStatus, KycStatus, RefundStatus } from "../../../gen/payments/v1/enums_pb.js";
import { KycOutcome, KycReviewMode } from "../../../gen/payments/v1/sandbox_service_pb.js";
import { bankCalendar } from "../../../src/domain/bank-calendar.js";
import { japaneseNationalHolidays } from "../../../src/ports/national-holidays.js";
import { cancellationDeadline, type BankRules } from "../../../src/domain/bank-cutoff.js";
import { bankProfileOf } from "../../../src/domain/bank-profile.js";
import { defaultSandboxBalance } from "../../../src/ports/sandbox-bank.js";
import { runOffSessionCharge } from "../../../src/flows/off-session.js";
import { settlePendingRefund } from "../../../src/flows/refund.js";
import type { BankGateway } from "../../../src/ports/bank-gateway.js";
import { signedInUser } from "../../helpers/dashboard.js";
import { seedActiveCustomer } from "../../helpers/fixtures.js";
import { redirect } from "../../helpers/on-session.js";
import { expectCharge, expectCustomer } from "./api-checks.js";
import { book, creditPossible, debitVerdict } from "./bank-model.js";
import { fail, offSessionRefusal, succeed } from "./charge-model.js";
import { AdvanceClock } from "./bank-commands.js";
import {
  accountOfCharge,
  accountsOf,
  chargeOf,
  hasPendingCharge,
  newAccount,
  type Model,
  type ModelCharge,
  type ModelCustomer,
} from "./model-state.js";
import { expectConnectError, pickCharge, pickCustomer } from "./picks.js";
import { count, type RealSystem } from "./real-system.js";
import { acceptRefund, decideRefund, refusals, settleRefund } from "./refund-model.js";

/**
 * The operations that found the money defects of issue 18: one-off charges, refunds under a
 * repeated key (API and dashboard) and after a crash before the stored answer, refunds failed
 * while their transfer is in flight, slow bank calls taken over by a second worker, and second
 * links abandoned after the account step.
 */
type Command = AsyncCommand<Model, RealSystem>;

let linkCounter = 0;

/** Holds the next bank call of `kind` until released, as a slow bank would; later calls go through. */
function holdNextBankCall(real: RealSystem, kind: "debit" | "refund") {
  const bank = real.server.ctx.bank as BankGateway;
  const call = bank[kind].bind(bank);
  let entered!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  bank[kind] = async (request) => {
    Reflect.deleteProperty(bank, kind);
    entered();
    await released;
    return call(request);
  };
  return {
    reached,
    release() {
      Reflect.deleteProperty(bank, kind);
      release();
    },
  };
}

/** The state a crash between the commit and the stored answer leaves a key in: in flight, its lease lapsed. */
async function crashBeforeAnswer(real: RealSystem, key: string): Promise<void> {
  const lapsed = new Date(real.server.clock.now().getTime() - 1).toISOString();
  await real.server.ctx.tx.write((trx) =>
    trx
      .updateTable("idempotency_keys")
      .set({ state: "in_flight", response_json: "", http_status: 0, lease_until: lapsed })
      .where("merchant_id", "=", real.merchantId)
      .where("idempotency_key", "=", key)
      .execute(),
  );
}

/** A one-off on-session payment (one_off_charge) by a known customer's e-mail, completed in the sandbox. */
export class OneOffCharge implements Command {
  constructor(
    readonly customerPick: number,
    readonly price: number,
  ) {}
  check = (model: Readonly<Model>) =>
    pickCustomer(model, this.customerPick) !== undefined &&
    !hasPendingCharge(model as Model, pickCustomer(model, this.customerPick)!.id);
  async run(model: Model, real: RealSystem): Promise<void> {
    count("OneOffCharge");
    const customer = pickCustomer(model, this.customerPick)!;
    const link = await real.pay.createOnSessionPayment({
      buyer: { email: customer.email },
      charge: { price: this.price, description: "model one-off", oneOffCharge: true },
      redirect,
    });
    const done = await real.sandbox.completePayment({ paymentLinkUrl: link.paymentLink!.url });
    // The payer stays hidden from the merchant, but the charge keeps who paid.
    expect(done.customerId).toBe("");
    const charge: ModelCharge = {
      id: done.chargeId,
      customerId: customer.id,
      amount: this.price,
      status: ChargeStatus.PENDING,
      jobAttempts: 0,
      refundedSettled: 0,
      refundedPending: 0,
    };
    model.charges.push(charge);
    const verdict = debitVerdict(model, customer.account, this.price);
    if (verdict.ok) succeed(model, charge);
    else fail(charge, verdict.errorType);
    expect(done.chargeStatus).toBe(charge.status);
    await expectCharge(real, model, charge.id);
    await expectCustomer(real, model, customer);
  }
  toString = () => `OneOffCharge(customer ${this.customerPick}, ¥${this.price})`;
}

/**
 * A one-off payment by a customer with an active contract, from another account of theirs: that
 * account is debited (its own balance and limits), its refunds go back there, and the contract's
 * charges keep debiting the contract's account.
 */
export class OneOffFromOtherAccount implements Command {
  constructor(
    readonly customerPick: number,
    readonly price: number,
  ) {}
  check = (model: Readonly<Model>) => {
    const customer = pickCustomer(model, this.customerPick);
    return (
      customer !== undefined &&
      customer.active &&
      (customer.otherAccounts?.length ?? 0) < 2 &&
      !hasPendingCharge(model as Model, customer.id)
    );
  };
  async run(model: Model, real: RealSystem): Promise<void> {
    count("OneOffFromOtherAccount");
    const customer = pickCustomer(model, this.customerPick)!;
    // A number whose masked form (its last three digits) no account of the customer shows yet.
    const { accounts } = await real.sandbox.getBankAccount({ customerId: customer.id });
    let suffix = 100;
    while (accounts.some((account) => account.accountNumber === `****${suffix}`)) suffix++;
    const link = await real.pay.createOnSessionPayment({
      buyer: { email: customer.email },
      charge: { price: this.price, description: "model one-off, another account", oneOffCharge: true },
      redirect,
    });
    const done = await real.sandbox.completePayment({
      paymentLinkUrl: link.paymentLink!.url,
      bankCode: "0001",
      accountNumber: `7000${suffix}`,
    });
    const account = newAccount(defaultSandboxBalance);
    (customer.otherAccounts ??= []).push({ masked: `****${suffix}`, account });
    const charge: ModelCharge = {
      id: done.chargeId,
      customerId: customer.id,
      amount: this.price,
      status: ChargeStatus.PENDING,
      jobAttempts: 0,
      refundedSettled: 0,
      refundedPending: 0,
      account,
    };
    model.charges.push(charge);
    const verdict = debitVerdict(model, account, this.price);
    if (verdict.ok) succeed(model, charge);
    else fail(charge, verdict.errorType);
    expect(done.chargeStatus).toBe(charge.status);
    await expectCharge(real, model, charge.id);
    await expectCustomer(real, model, customer);
  }
  toString = () => `OneOffFromOtherAccount(customer ${this.customerPick}, ¥${this.price})`;
}

/**
 * A refund sent three times under one key, through the API or the dashboard's RefundCharge (its
 * key inside `refund`), optionally after a crash that left the key without its answer: one refund.
 */
export class KeyedRefund implements Command {
  constructor(
    readonly chargePick: number,
    readonly amount: number | undefined,
    readonly viaDashboard: boolean,
    readonly crash: boolean,
  ) {}
  check = (model: Readonly<Model>) => pickCharge(model, this.chargePick) !== undefined;
  async run(model: Model, real: RealSystem): Promise<void> {
    count(this.viaDashboard ? "KeyedRefund:dashboard" : "KeyedRefund:api");
    const chargeId = pickCharge(model, this.chargePick)!.id;
    const key = `model-refund-${model.refunds.length}-${++linkCounter}`;
    const request = { chargeId, amount: this.amount, reason: "model", idempotencyKey: key };
    const dashboard = this.viaDashboard ? await dashboardOf(real) : undefined;
    const send = () =>
      dashboard
        ? dashboard.client.refundCharge({ refund: request }).then((answer) => answer.result!)
        : real.pay.refund(request);
    const decision = decideRefund(model, chargeId, this.amount);
    if ("refused" in decision) {
      // A refusal decided before anything was written stores nothing: each try is refused alike.
      // The dashboard words refusals as preconditions (docs/guide/dashboard.md#refunds); the API keeps the contract's code.
      const code = !dashboard
        ? Code.Internal
        : decision.refused === "notOwned"
          ? Code.NotFound
          : Code.FailedPrecondition;
      for (let i = 0; i < 3; i++) await expectConnectError(send(), code, refusals[decision.refused]);
      return;
    }
    const first = await send();
    if (this.crash) await crashBeforeAnswer(real, key);
    const again = [await send(), await send()];
    expect(again.map((a) => a.refund?.refundId)).toEqual([first.refund!.refundId, first.refund!.refundId]);
    const refund = {
      id: first.refund!.refundId,
      chargeId,
      amount: decision.amount,
      status: RefundStatus.PENDING,
      cancellation: decision.cancellation,
      failsAtSettlement: false,
      jobAttempts: 0,
    };
    model.refunds.push(refund);
    acceptRefund(model, refund);
    if (refund.cancellation) count("KeyedRefund:cancellation");
    await expectCharge(real, model, chargeId);
  }
  toString = () =>
    `KeyedRefund(charge ${this.chargePick}, ${this.amount === undefined ? "full" : `¥${this.amount}`}, dashboard ${this.viaDashboard}, crash ${this.crash})`;
}

/** One dashboard user per sequence's merchant, signed in when first needed (a password hash is slow). */
const dashboards = new WeakMap<RealSystem, { user: Awaited<ReturnType<typeof signedInUser>>; at: number }>();
async function dashboardOf(real: RealSystem) {
  // A session ends after the dashboard's idle time (docs/guide/dashboard.md): after a clock jump, sign in again.
  const now = real.server.clock.now().getTime();
  let entry = dashboards.get(real);
  if (!entry || now - entry.at > 60 * 60_000) {
    entry = { user: await signedInUser(real.server, { merchantId: real.merchantId }), at: now };
    dashboards.set(real, entry);
  }
  return entry.user;
}

/** A pending refund forced to fail (SettleRefunds) while its settlement's bank transfer is in flight. */
export class FailRefundInFlight implements Command {
  constructor(readonly refundPick: number) {}
  check = (model: Readonly<Model>) => model.refunds.some((r) => r.status === RefundStatus.PENDING);
  async run(model: Model, real: RealSystem): Promise<void> {
    count("FailRefundInFlight");
    const pending = model.refunds.filter((r) => r.status === RefundStatus.PENDING);
    const refund = pending[this.refundPick % pending.length];
    const account = accountOfCharge(model, chargeOf(model, refund.chargeId));
    const transferred = !refund.failsAtSettlement && creditPossible(model, account);
    const hold = holdNextBankCall(real, "refund");
    const inFlight = settlePendingRefund(real.server.ctx, refund.id);
    if (transferred) await hold.reached;
    const [forced] = (await real.sandbox.settleRefunds({ refundId: refund.id, fail: true })).refunds;
    hold.release();
    await inFlight;
    expect(forced.status).toBe(RefundStatus.FAILED);
    settleRefund(model, refund, true);
    // The transfer landed after the failure was recorded: booked, then reversed.
    if (transferred) {
      book(account, refund.id, refund.amount);
      book(account, `${refund.id}/reversal`, -refund.amount);
    }
    await expectCharge(real, model, refund.chargeId);
  }
  toString = () => `FailRefundInFlight(${this.refundPick})`;
}

/**
 * An async charge whose first worker is slow at the bank: its lease lapses, a second worker takes
 * the job over and settles it, funds arrive, then the first call lands. One answer stands.
 */
export class SlowChargeTakenOver implements Command {
  constructor(
    readonly customerPick: number,
    readonly price: number,
    readonly topUp: number,
  ) {}
  check = (model: Readonly<Model>) => {
    const customer = pickCustomer(model, this.customerPick);
    if (!customer || !customer.active || hasPendingCharge(model as Model, customer.id)) return false;
    const verdict = debitVerdict(model as Model, customer.account, this.price);
    return verdict.ok || !verdict.retryable;
  };
  async run(model: Model, real: RealSystem): Promise<void> {
    count("SlowChargeTakenOver");
    const customer = pickCustomer(model, this.customerPick)!;
    const answer = await real.pay.createOffSessionPaymentAsync({
      customerId: customer.id,
      charge: { price: this.price, description: "model slow" },
    });
    expect(offSessionRefusal(model, customer.id, false)).toBeUndefined();
    const charge: ModelCharge = {
      id: answer.chargeId,
      customerId: customer.id,
      amount: this.price,
      status: ChargeStatus.PENDING,
      requestId: answer.requestId,
      requestStatus: AsyncStatus.RUNNING,
      jobAttempts: 2,
      refundedSettled: 0,
      refundedPending: 0,
    };
    model.charges.push(charge);
    const hold = holdNextBankCall(real, "debit");
    const slow = runOffSessionCharge(real.server.ctx, charge.id, 1);
    await hold.reached;
    await runOffSessionCharge(real.server.ctx, charge.id, 2);
    const verdict = debitVerdict(model, customer.account, this.price);
    if (verdict.ok) succeed(model, charge);
    else fail(charge, verdict.errorType);
    await real.sandbox.configureBankAccount({
      customerId: customer.id,
      balance: BigInt(customer.account.balance + this.topUp),
    });
    // ConfigureBankAccount sets every account of the customer.
    const balance = customer.account.balance + this.topUp;
    for (const account of accountsOf(customer)) account.balance = balance;
    hold.release();
    await slow;
    await expectCharge(real, model, charge.id);
    await expectCustomer(real, model, customer);
  }
  toString = () => `SlowChargeTakenOver(customer ${this.customerPick}, ¥${this.price}, top-up ¥${this.topUp})`;
}

/**
 * A second link for a customer's e-mail (a contract, or a one-off payment), its account step done
 * with an account whose every debit the bank refuses, then left to expire: nothing changes.
 */
export class AbandonedSecondLink implements Command {
  constructor(
    readonly customerPick: number,
    readonly oneOff: boolean,
  ) {}
  check = (model: Readonly<Model>) => pickCustomer(model, this.customerPick) !== undefined;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("AbandonedSecondLink");
    const customer = pickCustomer(model, this.customerPick)!;
    const link = await real.pay.createOnSessionPayment({
      buyer: { email: customer.email },
      charge: this.oneOff ? { price: 100, oneOffCharge: true } : undefined,
      redirect,
    });
    // Zengin magic account 9999991: the bank refuses every debit from it.
    await real.sandbox.completePayment({
      paymentLinkUrl: link.paymentLink!.url,
      accountNumber: "9999991",
      approve: false,
    });
    await real.sandbox.expirePaymentLink({ paymentLinkUrl: link.paymentLink!.url });
    if (this.oneOff) {
      const chargeId = link.charge!.chargeId;
      const expired = (await real.pay.getCharge({ charge: chargeId })).charge!;
      expect(expired.chargeStatus).toBe(ChargeStatus.FAILURE);
      model.charges.push({
        id: chargeId,
        customerId: customer.id,
        amount: 100,
        status: ChargeStatus.FAILURE,
        errorType: expired.error!.code,
        jobAttempts: 0,
        refundedSettled: 0,
        refundedPending: 0,
      });
    }
    await expectCustomer(real, model, customer);
  }
  toString = () => `AbandonedSecondLink(customer ${this.customerPick}, oneOff ${this.oneOff})`;
}

/**
 * A charge of ¥30,000 at the Sandbox Second Saturday Bank (¥30,000 a day), fully refunded, then
 * charged again the same day: after a same-day cancellation the limit is free again (the debit
 * was reversed), after a refund by transfer it is not. A customer of its own, outside the model.
 */
export class CancelThenChargeNearLimit implements Command {
  check = (model: Readonly<Model>) => !model.bankMaintenance;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("CancelThenChargeNearLimit");
    const { customerId } = await seedActiveCustomer(real.server, {
      merchantId: real.merchantId,
      bankCode: "9903",
      balance: 100_000,
    });
    const charge = () =>
      real.pay
        .createOffSessionPayment({ customerId, charge: { price: 30_000 } })
        .then(({ charge }) => charge!.chargeStatus)
        .catch((error: unknown) => ConnectError.from(error).rawMessage);
    const first = await charge();
    // The bank's own maintenance window (2nd Saturday night) refuses it; nothing more to see.
    if (first !== ChargeStatus.SUCCESS) return expect(first).toMatch(/unavailable/i);
    const refunded = await real.pay.refund({ chargeId: await lastChargeOf(real, customerId) });
    const cancelled = model.now < cancellationDeadline(secondSaturdayBank, new Date(model.now)).getTime();
    expect(refunded.refund!.cancellation).toBe(cancelled);
    if (cancelled) count("CancelThenChargeNearLimit:cancelled");
    const second = await charge();
    if (cancelled) expect(second).toBe(ChargeStatus.SUCCESS);
    else expect(second).toMatch(/¥30,000 per day/);
  }
  toString = () => "CancelThenChargeNearLimit()";
}

const secondSaturdayBank: BankRules = {
  profile: bankProfileOf("9903"),
  calendar: bankCalendar(japaneseNationalHolidays),
};

async function lastChargeOf(real: RealSystem, customerId: string): Promise<string> {
  const row = await real.server.ctx.tx.db
    .selectFrom("charges")
    .select("id")
    .where("customer_id", "=", customerId)
    .orderBy("created_at", "desc")
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * A new customer's approval held for KYC (force_kyc, review left manual), then the process dies
 * while the debit the KYC decision resumed is at the bank. The durable job written with the
 * decision finishes it once the approval's claim lapses; the customer joins the model then.
 */
export class KycDecisionCrash implements Command {
  constructor(readonly price: number) {}
  check = () => true;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("KycDecisionCrash");
    await real.sandbox.configureKycReview({ mode: KycReviewMode.MANUAL });
    const email = `model.kyc.${process.pid}.${++linkCounter}@example.jp`;
    const link = await real.pay.createOnSessionPayment({
      buyer: { email, forceKyc: true },
      charge: { price: this.price },
      redirect,
    });
    const held = await real.sandbox.completePayment({
      paymentLinkUrl: link.paymentLink!.url,
      kyc: KycOutcome.PENDING,
      initialBalance: 10_000n,
    });
    expect(held.chargeStatus).toBe(ChargeStatus.WAITING_EKYC);
    const bank = real.server.ctx.bank as BankGateway;
    bank.debit = async () => {
      Reflect.deleteProperty(bank, "debit");
      throw new Error("killed while the debit was at the bank");
    };
    await expect(
      real.sandbox.decideKyc({ customerId: held.customerId, decision: KycStatus.APPROVED }),
    ).rejects.toThrow();
    Reflect.deleteProperty(bank, "debit");
    // The approval's claim lapses after two minutes; the clock moves and due work runs.
    await new AdvanceClock(3 * 60_000).run(model, real);
    const customer: ModelCustomer = {
      id: held.customerId,
      email,
      contractId: held.contractId,
      active: true,
      kycApproved: true,
      account: newAccount(10_000),
    };
    model.customers.push(customer);
    const charge: ModelCharge = {
      id: held.chargeId,
      customerId: customer.id,
      amount: this.price,
      status: ChargeStatus.PENDING,
      jobAttempts: 0,
      refundedSettled: 0,
      refundedPending: 0,
    };
    model.charges.push(charge);
    const verdict = debitVerdict(model, customer.account, this.price);
    if (verdict.ok) succeed(model, charge);
    else fail(charge, verdict.errorType);
    customer.active = verdict.ok;
    await expectCharge(real, model, charge.id);
    await expectCustomer(real, model, customer);
  }
  toString = () => `KycDecisionCrash(¥${this.price})`;
}
