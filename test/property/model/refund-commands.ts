import type { AsyncCommand } from "fast-check";
import { expect } from "vitest";
import { Code } from "@connectrpc/connect";
import { RefundStatus } from "../../../gen/payments/v1/enums_pb.js";
import { expectCharge } from "./api-checks.js";
import { chargeOf, type Model, type ModelRefund } from "./model-state.js";
import { expectConnectError, pickCharge, unknownId } from "./picks.js";
import { count, type RealSystem } from "./real-system.js";
import { acceptRefund, decideRefund, refusals, settleRefund } from "./refund-model.js";

type Command = AsyncCommand<Model, RealSystem>;

/** PaymentService.Refund: full (no amount) or partial, possibly marked to fail at settlement. */
export class Refund implements Command {
  constructor(
    readonly chargePick: number,
    readonly amount: number | undefined,
    readonly failsAtSettlement: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("Refund");
    const chargeId = pickCharge(model, this.chargePick)?.id ?? unknownId("trx");
    const metadata: Record<string, string> = this.failsAtSettlement ? { sandboxRefundOutcome: "fail" } : {};
    const call = real.pay.refund({ chargeId, amount: this.amount, reason: "model", metadata });
    const decision = decideRefund(model, chargeId, this.amount);
    if ("refused" in decision) {
      await expectConnectError(call, Code.Internal, refusals[decision.refused]);
      return;
    }
    const answer = await call;
    const refund: ModelRefund = {
      id: answer.refund!.refundId,
      chargeId,
      amount: decision.amount,
      status: RefundStatus.PENDING,
      cancellation: decision.cancellation,
      failsAtSettlement: this.failsAtSettlement,
      jobAttempts: 0,
    };
    model.refunds.push(refund);
    acceptRefund(model, refund);
    count(refund.cancellation ? "refund:cancellation" : "refund:transfer");
    expect({
      amount: answer.refund!.amount,
      status: answer.refund!.status,
      cancellation: answer.refund!.cancellation,
      chargeStatus: answer.charge!.chargeStatus,
    }).toEqual({
      amount: refund.amount,
      status: refund.status,
      cancellation: refund.cancellation,
      chargeStatus: chargeOf(model, chargeId).status,
    });
    await expectCharge(real, model, chargeId);
  }
  toString = () =>
    `Refund(charge ${this.chargePick}, ${this.amount === undefined ? "full" : `¥${this.amount}`}, failsAtSettlement ${this.failsAtSettlement})`;
}

/** SandboxService.SettleRefunds: every pending refund of the merchant now, or failed. */
export class SettleRefunds implements Command {
  constructor(readonly fail: boolean) {}
  check = () => true;
  async run(model: Model, real: RealSystem): Promise<void> {
    count("SettleRefunds");
    const pending = model.refunds.filter((r) => r.status === RefundStatus.PENDING);
    const { refunds } = await real.sandbox.settleRefunds({ fail: this.fail });
    for (const refund of pending) settleRefund(model, refund, this.fail);
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(refunds.map((r) => ({ id: r.refundId, status: r.status })).sort(byId)).toEqual(
      pending.map((r) => ({ id: r.id, status: r.status })).sort(byId),
    );
    for (const chargeId of new Set(pending.map((r) => r.chargeId))) await expectCharge(real, model, chargeId);
  }
  toString = () => `SettleRefunds(fail ${this.fail})`;
}
