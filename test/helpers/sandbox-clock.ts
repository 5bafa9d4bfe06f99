import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { jstInstant } from "../../src/domain/jst.js";
import { expectReconciled } from "./reconcile.js";
import { startTestServer, type TestServer } from "./test-server.js";
import { receiveWebhooksOf, type WebhookReceiver } from "./webhook-receiver.js";

/**
 * Moves a SANDBOX_CLOCK=manual server's clock to 01:00 JST of `date` (SandboxService.AdvanceClock, as
 * a merchant's test would; never backwards) and lets the workers run: the jobs, the webhooks, then
 * the jobs those queued (a failure's e-mail, a re-debit).
 */
export async function advanceTo(server: TestServer, date: string): Promise<void> {
  const seconds = Math.round((jstInstant(date, "01:00").getTime() - server.clock.now().getTime()) / 1000);
  if (seconds > 0) await server.client(SandboxService).advanceClock({ seconds: BigInt(seconds) });
  await server.jobs.drain();
  await server.webhooks.drain();
  await server.jobs.drain();
}

/**
 * A SANDBOX_CLOCK=manual server from 2026-01-10 09:00 JST (the recurring-billing suites' first
 * day) with a webhook receiver for its merchant; `stop` checks reconcile, then closes both.
 */
export async function startBillingServer(): Promise<{
  server: TestServer;
  receiver: WebhookReceiver;
  stop: () => Promise<void>;
}> {
  const server = await startTestServer({
    clockStart: new Date("2026-01-10T00:00:00Z"),
    env: { SANDBOX_CLOCK: "manual" },
  });
  const receiver = await receiveWebhooksOf(server.ctx, server.merchant);
  const stop = async () => {
    try {
      await expectReconciled(server);
    } finally {
      await receiver.close();
      await server.stop();
    }
  };
  return { server, receiver, stop };
}
