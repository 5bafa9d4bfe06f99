import { create, createFileRegistry, type DescFile, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import type { Logger } from "pino";
import { createLogger } from "./server/logger.js";
import { file_payments_v1_payment_service, PaymentService } from "../gen/payments/v1/payment_service_pb.js";
import { file_payments_v1_hosted_page_service, HostedPageService } from "../gen/payments/v1/hosted_page_service_pb.js";
import { file_payments_v1_sandbox_service, SandboxService } from "../gen/payments/v1/sandbox_service_pb.js";
import { file_payments_v1_dashboard_service, DashboardService } from "../gen/payments/v1/dashboard_service_pb.js";
import {
  file_payments_v1_customer_app_service,
  CustomerAppService,
} from "../gen/payments/v1/customer_app_service_pb.js";
import { file_payments_v1_webhooks } from "../gen/payments/v1/webhooks_pb.js";
import { file_grpc_health_v1_health } from "../gen/grpc/health/v1/health_pb.js";
import { file_grpc_reflection_v1_reflection } from "../gen/grpc/reflection/v1/reflection_pb.js";
import { file_grpc_reflection_v1alpha_reflection } from "../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { file_google_rpc_error_details } from "../gen/google/rpc/error_details_pb.js";
import type { Config } from "./config.js";
import { ManualClock, systemClock, type Clock } from "./ports/clock.js";
import { databaseAnswers, openStorage } from "./storage/database.js";
import { useSealingKey } from "./storage/sealed.js";
import { Transactor } from "./storage/transactor.js";
import { WakeChannel, type WakeTopic } from "./storage/wake-channel.js";
import type { FlowContext } from "./flows/flow-context.js";
import { createAuthenticator } from "./flows/merchants.js";
import { createApp } from "./server/app.js";
import { createPages } from "./server/pages.js";
import { createDashboardPages } from "./server/dashboard-pages.js";
import { listen } from "./server/listener.js";
import { createAuthInterceptor, createErrorInterceptor, createValidationInterceptor } from "./server/interceptors.js";
import { createPaymentService } from "./api/payment-service.js";
import { JobRunner } from "./jobs/job-runner.js";
import { settlePendingRefund } from "./flows/refund.js";
import { runOffSessionCharge } from "./flows/off-session.js";
import { createIdempotencyInterceptor } from "./server/idempotency-interceptor.js";
import { createRateLimitInterceptor } from "./server/rate-limit-interceptor.js";
import { Metrics } from "./server/metrics.js";
import { queueStats } from "./storage/queue-stats.js";
import { WebhookDispatcher } from "./jobs/webhook-dispatcher.js";
import { createWebhookTransport } from "./ports/webhook-transport.js";
import { SandboxBank } from "./ports/sandbox-bank.js";
import { BankRedirectVerifier, FirstDebitVerifier } from "./ports/mandate-verifier.js";
import { createBankReturn } from "./server/bank-return.js";
import { listenSandboxBankSite } from "./server/sandbox-bank-site.js";
import { ZenginBank } from "./ports/zengin-bank.js";
import { runZenginCycleJob } from "./flows/zengin-cycle.js";
import { zenginExchangeOf } from "./flows/zengin-exchange.js";
import { ensureSingletonJob } from "./storage/jobs.js";
import { notifierForMode } from "./ports/notifier-for-mode.js";
import { createHostedPageService } from "./api/hosted-page-service.js";
import { createAbsentSandboxService, createSandboxService } from "./api/sandbox-service.js";
import { createSandboxRefundHandlers } from "./api/sandbox-refunds.js";
import { createSandboxOperationHandlers } from "./api/sandbox-operations.js";
import { runLinkExpiryJob } from "./flows/link-expiry.js";
import { runLinkApprovalJob } from "./flows/on-session-approval.js";
import { runKycReviewJob } from "./flows/kyc-review.js";
import { createDashboardAuthInterceptor, createDashboardService } from "./api/dashboard-service.js";
import { runCsvRowJob } from "./flows/dashboard-csv-row.js";
import { createCustomerAppService, createCustomerAuthInterceptor } from "./api/customer-app-service.js";
import { createCustomerAppPages } from "./server/customer-app-pages.js";
import { limits } from "./domain/limits.js";

export interface RunningService {
  readonly url: string;
  readonly port: number;
  readonly ctx: FlowContext;
  readonly logger: Logger;
  /** Durable background work; tests call `jobs.drain()` after moving the clock. */
  readonly jobs: JobRunner;
  /** The webhook outbox dispatcher; tests call `webhooks.drain()` after moving the clock. */
  readonly webhooks: WebhookDispatcher;
  /** Graceful: stop accepting, finish in-flight requests, stop workers, close the database. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** A clock for tests; by default the system clock (or a ManualClock with SANDBOX_CLOCK=manual). */
  clock?: Clock;
  logger?: Logger;
}

/** The files and everything they import, as the registry reflection answers from. */
function registryOf(files: DescFile[]): FileRegistry {
  const all = new Map<string, DescFile>();
  const visit = (file: DescFile) => {
    if (all.has(file.name)) return;
    file.dependencies.forEach(visit);
    all.set(file.name, file);
  };
  files.forEach(visit);
  return createFileRegistry(create(FileDescriptorSetSchema, { file: [...all.values()].map((f) => f.proto) }));
}

/** The composition root: config → storage → ports → flows → server, workers. */
export async function startService(config: Config, options: ServiceOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? (config.sandboxClock === "manual" ? new ManualClock() : systemClock);
  useSealingKey(config.secretsKey, config.previousSecretsKeys);
  const storage = await openStorage(config.databaseUrl);
  const tx = new Transactor(storage);
  const wakeListeners = new Map<WakeTopic, Array<() => void>>();
  const ringLocal = (topic: WakeTopic) => wakeListeners.get(topic)?.forEach((listener) => listener());
  // Several instances on one PostgreSQL ring each other's workers too.
  const wakeChannel =
    storage.dialect === "postgres" ? new WakeChannel(storage.db, config.databaseUrl, logger) : undefined;
  const metrics = new Metrics(() => queueStats(storage.db, clock.now()), clock, logger);
  const bankRedirect = config.mode === "sandbox" ? new BankRedirectVerifier() : undefined;
  const ctx: FlowContext = {
    tx,
    clock,
    config,
    bank: metrics.timeBank(config.bankConnector === "zengin" ? new ZenginBank(tx, config) : new SandboxBank(tx)),
    verifiers: { bankRedirect, firstDebit: new FirstDebitVerifier() },
    notifier: notifierForMode(config, tx),
    metrics,
    wake: (topic) => {
      ringLocal(topic);
      wakeChannel?.publish(topic);
    },
  };
  const onWake = (topic: WakeTopic, listener: () => void) =>
    wakeListeners.set(topic, [...(wakeListeners.get(topic) ?? []), listener]);

  const jobs = new JobRunner(ctx, logger, { leaseMs: config.jobLeaseMs, pollMs: config.workerPollMs });
  onWake("jobs", () => jobs.wake());
  jobs.register("link-expiry", (linkId) => runLinkExpiryJob(ctx, linkId));
  jobs.register("link-approval", (linkId) => runLinkApprovalJob(ctx, linkId));
  jobs.register("kyc-review", (customerId) => runKycReviewJob(ctx, customerId));
  jobs.register("refund-settlement", (refundId, attempt) => settlePendingRefund(ctx, refundId, attempt));
  jobs.register("async-charge", (chargeId, attempt) => runOffSessionCharge(ctx, chargeId, attempt));
  jobs.register("csv-row", (rowRef, attempt) => runCsvRowJob(ctx, rowRef, attempt));
  if (config.bankConnector === "zengin") {
    const exchange = zenginExchangeOf(ctx, (file) => {
      metrics.zenginQuarantined.inc();
      logger.error(
        { file: file.name, reason: file.reason },
        "zengin result file quarantined: nothing of it was applied",
      );
    });
    jobs.register("zengin-cycle", () => runZenginCycleJob(ctx, exchange));
    await tx.write((trx) => ensureSingletonJob(trx, "zengin-cycle", clock.now()));
  }
  const webhooks = new WebhookDispatcher(
    ctx,
    logger,
    metrics.countDeliveries(
      createWebhookTransport({ timeoutMs: config.webhookTimeoutMs, publicAddressesOnly: config.mode === "production" }),
    ),
    // The lease outlasts the attempt's timeout and the write that records it.
    { leaseMs: config.webhookTimeoutMs + Math.max(5_000, config.webhookTimeoutMs), pollMs: config.workerPollMs },
  );
  onWake("events", () => webhooks.wake());

  // Ready while the database answers, within limits.readinessProbeTimeoutMs (a hung connection is not ready either).
  const ready = async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>(
      (resolve) => (timer = setTimeout(() => resolve(false), limits.readinessProbeTimeoutMs)),
    );
    const probe = databaseAnswers(storage.db);
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  const paymentPages = createPages({ mode: config.mode });
  const bankReturn = createBankReturn(ctx);
  const dashboardPages = createDashboardPages({ mode: config.mode });
  const customerAppPages = createCustomerAppPages({ mode: config.mode });
  const app = createApp({
    logger,
    // Outermost first: idempotency runs after validation, so a rejected request stores nothing.
    interceptors: [
      metrics.interceptor(),
      createErrorInterceptor(logger, config.accessLogSampleRate),
      createAuthInterceptor(createAuthenticator(ctx)),
      createDashboardAuthInterceptor(ctx),
      createCustomerAuthInterceptor(ctx),
      createRateLimitInterceptor(config.rateLimit, config.signInRateLimit),
      createValidationInterceptor(),
      createIdempotencyInterceptor(ctx, logger),
    ],
    routes: (router) => {
      router.service(PaymentService, createPaymentService(ctx));
      router.service(HostedPageService, createHostedPageService(ctx));
      router.service(
        SandboxService,
        config.mode === "sandbox"
          ? {
              ...createSandboxService(ctx),
              ...createSandboxRefundHandlers(ctx),
              ...createSandboxOperationHandlers(ctx),
            }
          : createAbsentSandboxService(),
      );
      router.service(DashboardService, createDashboardService(ctx));
      router.service(CustomerAppService, createCustomerAppService(ctx));
    },
    services: [PaymentService, HostedPageService, SandboxService, DashboardService, CustomerAppService],
    registry: registryOf([
      file_payments_v1_payment_service,
      file_payments_v1_hosted_page_service,
      file_payments_v1_sandbox_service,
      file_payments_v1_dashboard_service,
      file_payments_v1_customer_app_service,
      file_payments_v1_webhooks,
      file_grpc_health_v1_health,
      file_grpc_reflection_v1_reflection,
      file_grpc_reflection_v1alpha_reflection,
      file_google_rpc_error_details,
    ]),
    ready,
    hsts: config.hsts,
    metrics: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
    pages: async (req, res) =>
      (await bankReturn(req, res)) ||
      (await paymentPages(req, res)) ||
      (await dashboardPages(req, res)) ||
      customerAppPages(req, res),
  });

  const listener = await listen(app, config);
  const bankSite =
    bankRedirect &&
    (await listenSandboxBankSite(ctx, {
      host: config.host,
      port: config.sandboxBankPort,
      onError: (error) => logger.error({ err: error }, "sandbox bank site request failed"),
    }));
  if (bankSite) bankRedirect?.attach(bankSite.port);
  if (config.workers) {
    jobs.start();
    webhooks.start();
    await wakeChannel?.listen(ringLocal);
  }
  const url = `http://127.0.0.1:${listener.port}`;
  logger.info(
    { port: listener.port, sandboxBankPort: bankSite?.port, mode: config.mode, database: storage.dialect },
    "furikomi listening",
  );
  return {
    url,
    port: listener.port,
    ctx,
    logger,
    jobs,
    webhooks,
    async close() {
      await listener.close();
      await bankSite?.close();
      await wakeChannel?.close();
      await jobs.stop();
      await webhooks.stop();
      await ctx.notifier.close?.();
      await storage.close();
    },
  };
}
