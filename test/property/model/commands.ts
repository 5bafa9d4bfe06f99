import fc from "fast-check";
import type { AsyncCommand } from "fast-check";
import { AddCustomer, AsyncCharge, ReplayAsyncCharge, SyncCharge } from "./charge-commands.js";
import { AdvanceClock, ConfigureBank, SetBankMaintenance, type AccountChange } from "./bank-commands.js";
import type { Model } from "./model-state.js";
import type { RealSystem } from "./real-system.js";
import { Refund, SettleRefunds } from "./refund-commands.js";
import {
  AbandonedSecondLink,
  CancelThenChargeNearLimit,
  KycDecisionCrash,
  FailRefundInFlight,
  KeyedRefund,
  OneOffCharge,
  OneOffFromOtherAccount,
  SlowChargeTakenOver,
} from "./money-commands.js";

/** Small amounts against small balances, so both success and insufficient funds happen. */
const price = fc.integer({ min: 1, max: 3_000 });
const balance = fc.integer({ min: 0, max: 6_000 });
/** A customer index; -1 is a customer id no one has. */
const customerPick = fc.integer({ min: -1, max: 5 });
const chargePick = fc.integer({ min: -1, max: 20 });
/** Mostly partial refunds of the ¥1,000 starting charges, sometimes too much. */
const refundAmount = fc.oneof(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 1, max: 3_000 }));

const accountChange: fc.Arbitrary<AccountChange> = fc.oneof(
  balance.map((b) => ({ balance: b })),
  fc.constantFrom(0, 500, 2_000).map((q) => ({ quota: q })),
  fc.boolean().map((r) => ({ reject: r })),
  fc.boolean().map((m) => ({ underMaintenance: m })),
);

/** Minutes the clock jumps: none (just run due work), engine retries, a cutoff, a day, a weekend (refund settlement). */
const clockStep = fc.constantFrom(0, 1, 2, 5, 30, 61, 61, 180, 24 * 60, 71 * 60).map((minutes) => minutes * 60_000);

export const commands: Array<fc.Arbitrary<AsyncCommand<Model, RealSystem>>> = [
  fc.tuple(balance, fc.option(price, { nil: undefined })).map(([b, p]) => new AddCustomer(b, p)),
  fc.tuple(customerPick, price, fc.boolean(), fc.boolean()).map(([c, p, k, key]) => new AsyncCharge(c, p, k, key)),
  fc
    .tuple(customerPick, price, fc.constant(false), fc.boolean())
    .map(([c, p, k, key]) => new AsyncCharge(c, p, k, key)),
  fc.nat(10).map((k) => new ReplayAsyncCharge(k)),
  fc.tuple(customerPick, price).map(([c, p]) => new SyncCharge(c, p)),
  fc
    .tuple(chargePick, fc.option(refundAmount, { nil: undefined }), fc.boolean())
    .map(([c, a, f]) => new Refund(c, a, f)),
  fc.tuple(chargePick, refundAmount, fc.constant(false)).map(([c, a, f]) => new Refund(c, a, f)),
  fc.boolean().map((fail) => new SettleRefunds(fail)),
  fc.tuple(customerPick, accountChange).map(([c, change]) => new ConfigureBank(c, change)),
  fc.boolean().map((on) => new SetBankMaintenance(on)),
  clockStep.map((ms) => new AdvanceClock(ms)),
  clockStep.map((ms) => new AdvanceClock(ms)),
  fc.tuple(customerPick, price).map(([c, p]) => new OneOffCharge(c, p)),
  fc.tuple(customerPick, price).map(([c, p]) => new OneOffFromOtherAccount(c, p)),
  // The dashboard's way in one time in ten: a sign-in costs a slow password hash.
  fc
    .tuple(chargePick, fc.option(refundAmount, { nil: undefined }), fc.nat(9), fc.boolean())
    .map(([c, a, d, crash]) => new KeyedRefund(c, a, d === 0, crash)),
  fc.nat(10).map((r) => new FailRefundInFlight(r)),
  fc.tuple(customerPick, price, fc.constantFrom(0, 3_000)).map(([c, p, t]) => new SlowChargeTakenOver(c, p, t)),
  fc.tuple(customerPick, fc.boolean()).map(([c, o]) => new AbandonedSecondLink(c, o)),
  fc.constant(new CancelThenChargeNearLimit()),
  price.map((p) => new KycDecisionCrash(p)),
];
