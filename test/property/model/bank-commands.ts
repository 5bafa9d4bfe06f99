import type { AsyncCommand } from "fast-check";
import { expect } from "vitest";
import { ChargeStatus } from "../../../gen/payments/v1/enums_pb.js";
import { expectCustomer, expectEverything } from "./api-checks.js";
import { drainModel, dueCharges } from "./engine-model.js";
import { accountsOf, type Model, type ModelAccount } from "./model-state.js";
import { pickCustomer } from "./picks.js";
import { count, type RealSystem } from "./real-system.js";

type Command = AsyncCommand<Model, RealSystem>;

/** One setting of a simulated account (a bank failure, or money to pay with). */
export type AccountChange =
  | { balance: number }
  | { quota: number }
  | { reject: boolean }
  | { underMaintenance: boolean };

/** SandboxService.ConfigureBankAccount. */
export class ConfigureBank implements Command {
  constructor(
    readonly customerPick: number,
    readonly change: AccountChange,
  ) {}
  check = (model: Readonly<Model>) => model.customers.length > 0;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("ConfigureBank");
    const customer = pickCustomer(model, Math.abs(this.customerPick))!;
    const request =
      "balance" in this.change
        ? { balance: BigInt(this.change.balance) }
        : "quota" in this.change
          ? { quota: BigInt(this.change.quota) }
          : this.change;
    await real.sandbox.configureBankAccount({ customerId: customer.id, ...request });
    // Every account of the customer.
    for (const account of accountsOf(customer)) Object.assign(account, this.change satisfies Partial<ModelAccount>);
    await expectCustomer(real, model, customer);
  }
  toString = () => `ConfigureBank(customer ${this.customerPick}, ${JSON.stringify(this.change)})`;
}

/** SandboxService.SetBankMaintenance: the merchant's whole bank. */
export class SetBankMaintenance implements Command {
  constructor(readonly on: boolean) {}
  check = () => true;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("SetBankMaintenance");
    const answer = await real.sandbox.setBankMaintenance({ underMaintenance: this.on });
    model.bankMaintenance = this.on;
    expect(answer.underMaintenance).toBe(this.on);
  }
  toString = () => `SetBankMaintenance(${this.on})`;
}

/** The clock moves and the due background work runs (async charges, refund settlements, link expiry). */
export class AdvanceClock implements Command {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("AdvanceClock");
    real.server.clock.advance(this.ms);
    model.now += this.ms;
    await real.server.jobs.drain();
    const actual = new Map<string, ChargeStatus>();
    for (const charge of dueCharges(model))
      actual.set(charge.id, (await real.pay.getCharge({ charge: charge.id })).charge!.chargeStatus);
    drainModel(model, (chargeId) => actual.get(chargeId)!);
    await expectEverything(real, model);
  }
  toString = () => `AdvanceClock(${this.ms / 60_000} min)`;
}
