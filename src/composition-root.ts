import { runSignUpCodeMailJob } from "./flows/sign-up.js";
import { create, createFileRegistry, type DescFile, type DescService, type FileRegistry } from "@bufbuild/protobuf";
import type { ConnectRouter, ServiceImpl } from "@connectrpc/connect";
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
import { databaseAnswers, openStorage, type Storage } from "./storage/database.js";
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
import { createSubscriptionService } from "./api/subscription-service.js";
import { runSubscriptionCycleJob } from "./flows/subscription-cycle.js";
import {
  file_payments_v1_subscription_service,
  SubscriptionService,
} from "../gen/payments/v1/subscription_service_pb.js";
import { JobRunner } from "./jobs/job-runner.js";
import { settlePendingRefund } from "./flows/refund.js";
import { runOffSessionCharges } from "./flows/off-session.js";
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
import { runSignInCodeMailJob } from "./flows/customer-app-sign-in.js";
import { zenginExchangeOf } from "./flows/zengin-exchange.js";
import { ensureSingletonJob } from "./storage/jobs.js";
import { notifierForMode } from "./ports/notifier-for-mode.js";
import { createHostedPageService } from "./api/hosted-page-service.js";
import { createAbsentSandboxService, createSandboxService } from "./api/sandbox-service.js";
import { createSandboxRefundHandlers } from "./api/sandbox-refunds.js";
import { createSandboxOperationHandlers } from "./api/sandbox-operations.js";
import { runLinkExpiryJob } from "./flows/link-expiry.js";
import { runLinkApprovalJob } from "./flows/on-session-approval.js";
import { runDebitNoticeJob } from "./flows/debit-notice.js";
import { runDebitFailureMailJob } from "./flows/subscription-mail.js";
import { runSubscriptionNoticeJob } from "./flows/subscription-notices.js";
import { runKycReviewJob } from "./flows/kyc-review.js";
import { createDashboardAuthInterceptor, createDashboardService } from "./api/dashboard-service.js";
import { runCsvRowJob } from "./flows/dashboard-csv-row.js";
import { createCustomerAppService, createCustomerAuthInterceptor } from "./api/customer-app-service.js";
import { createCustomerAppPages } from "./server/customer-app-pages.js";
import { limits } from "./domain/limits.js";
import { secondsMs } from "./domain/duration.js";
import { modeRulesOf } from "./domain/mode.js";

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
  // The mode's consequences, decided here once: the flows read these rules, never the mode.
  const mode = modeRulesOf(config.mode);
  useSealingKey(config.secretsKey, config.previousSecretsKeys);
  const storage = await openStorage(config.databaseUrl);
  const doorbell = new Doorbell(storage, config, logger);
  const metrics = new Metrics(() => queueStats(storage.db, clock.now()), clock, logger);
  const tx = new Transactor(storage);
  const bankRedirect = mode.sandboxTools ? new BankRedirectVerifier() : undefined;
  const ctx: FlowContext = {
    tx,
    clock,
    config,
    mode,
    bank: metrics.timeBank(config.bankConnector === "zengin" ? new ZenginBank(tx, config) : new SandboxBank(tx)),
    verifiers: { bankRedirect, firstDebit: new FirstDebitVerifier() },
    notifier: notifierForMode(mode, config.smtp, tx),
    metrics,
    wake: (topic) => doorbell.ring(topic),
  };
  const jobs = await jobRunnerOf(ctx, logger, metrics);
  const webhooks = webhookDispatcherOf(ctx, logger, metrics);
  doorbell.on("jobs", () => jobs.wake());
  doorbell.on("events", () => webhooks.wake());

  const services = servicesOf(ctx);
  const app = createApp({
    logger,
    interceptors: interceptorsOf(ctx, logger, metrics, services),
    routes: (router) => {
      for (const service of services) service.register(router);
    },
    services: services.map((service) => service.descriptor),
    registry: registryOf([...services.map((service) => service.file), ...alsoReflected]),
    ready: () => databaseAnswersWithin(storage, limits.readinessProbeTimeoutMs),
    hsts: config.hsts,
    metrics: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
    pages: pagesOf(ctx),
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
    await doorbell.listen();
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
      await doorbell.close();
      await jobs.stop();
      await webhooks.stop();
      await ctx.notifier.close?.();
      await storage.close();
    },
  };
}

/**
 * Rings the workers after a commit: this instance's at once, and on PostgreSQL every other
 * instance's too (NOTIFY through the wake channel).
 */
class Doorbell {
  readonly #listeners = new Map<WakeTopic, Array<() => void>>();
  readonly #channel: WakeChannel | undefined;

  constructor(storage: Storage, config: Config, logger: Logger) {
    this.#channel =
      storage.dialect === "postgres" ? new WakeChannel(storage.db, config.databaseUrl, logger) : undefined;
  }

  on(topic: WakeTopic, listener: () => void): void {
    this.#listeners.set(topic, [...(this.#listeners.get(topic) ?? []), listener]);
  }

  ring(topic: WakeTopic): void {
    this.#ringHere(topic);
    this.#channel?.publish(topic);
  }

  listen(): Promise<void> | undefined {
    return this.#channel?.listen((topic) => this.#ringHere(topic));
  }

  close(): Promise<void> | undefined {
    return this.#channel?.close();
  }

  #ringHere(topic: WakeTopic): void {
    for (const listener of this.#listeners.get(topic) ?? []) listener();
  }
}

/** The durable jobs, each kind with the flow that runs it; the Zengin cycle only under its connector (the subscription cycle otherwise). */
async function jobRunnerOf(ctx: FlowContext, logger: Logger, metrics: Metrics): Promise<JobRunner> {
  const { config } = ctx;
  const jobs = new JobRunner(ctx, logger, { leaseMs: config.jobLeaseMs, pollMs: config.workerPollMs });
  jobs.register("link-expiry", (linkId) => runLinkExpiryJob(ctx, linkId));
  jobs.register("link-approval", (linkId) => runLinkApprovalJob(ctx, linkId));
  jobs.register("kyc-review", (customerId) => runKycReviewJob(ctx, customerId));
  jobs.register("refund-settlement", (refundId, attempt) => settlePendingRefund(ctx, refundId, attempt));
  jobs.registerBatch("async-charge", (charges) => runOffSessionCharges(ctx, charges));
  jobs.register("csv-row", (rowRef, attempt) => runCsvRowJob(ctx, rowRef, attempt));
  jobs.register("debit-notice", (linkId) => runDebitNoticeJob(ctx, linkId));
  jobs.register("sign-in-code-mail", (codeId) => runSignInCodeMailJob(ctx, codeId));
  jobs.register("sign-up-code-mail", (codeId) => runSignUpCodeMailJob(ctx, codeId));
  jobs.register("subscription-failure-mail", (ref) => runDebitFailureMailJob(ctx, ref));
  jobs.register("subscription-notice", (ref) => runSubscriptionNoticeJob(ctx, ref));
  if (config.bankConnector === "zengin") {
    const exchange = zenginExchangeOf(
      ctx,
      (file) => {
        metrics.zenginQuarantined.inc();
        logger.error(
          { file: file.name, reason: file.reason },
          "zengin result file quarantined: nothing of it was applied",
        );
      },
      {
        onPaidAfterFailure: (file) => {
          metrics.zenginPaidAfterFailure.inc(file.refunds.length);
          logger.error(
            { file: file.name, refunds: file.refunds },
            "zengin transfer answer: refunds recorded as failed were paid (reconcile names them)",
          );
        },
        onUnexpectedName: (file) => {
          metrics.zenginUnexpectedFiles.inc();
          logger.warn({ file: file.name }, "zengin file with an unexpected name in incoming/");
        },
      },
    );
    jobs.register("zengin-cycle", () => runZenginCycleJob(ctx, exchange));
    await ctx.tx.write((trx) => ensureSingletonJob(trx, "zengin-cycle", ctx.clock.now()));
  } else {
    // Under Zengin the file cycle charges the subscriptions before it writes a date's files.
    jobs.register("subscription-cycle", () => runSubscriptionCycleJob(ctx));
    await ctx.tx.write((trx) => ensureSingletonJob(trx, "subscription-cycle", ctx.clock.now()));
  }
  return jobs;
}

function webhookDispatcherOf(ctx: FlowContext, logger: Logger, metrics: Metrics): WebhookDispatcher {
  const { webhookTimeoutMs, workerPollMs } = ctx.config;
  const transport = createWebhookTransport({
    timeoutMs: webhookTimeoutMs,
    publicAddressesOnly: ctx.mode.publicUrlsOnly,
  });
  return new WebhookDispatcher(ctx, logger, metrics.countDeliveries(transport), {
    // The lease outlasts the attempt's timeout and the write that records it.
    leaseMs: webhookTimeoutMs + Math.max(secondsMs(5), webhookTimeoutMs),
    pollMs: workerPollMs,
  });
}

/** Outermost first: idempotency runs after validation, so a rejected request stores nothing. */
function interceptorsOf(ctx: FlowContext, logger: Logger, metrics: Metrics, services: readonly ServedService[]) {
  const keyServices = new Set(services.filter((s) => s.callers === "api-key").map((s) => s.descriptor.typeName));
  return [
    metrics.interceptor(),
    createErrorInterceptor(logger, ctx.config.accessLogSampleRate),
    createAuthInterceptor(createAuthenticator(ctx), keyServices),
    createDashboardAuthInterceptor(ctx),
    createCustomerAuthInterceptor(ctx),
    createRateLimitInterceptor(ctx.config.rateLimit, ctx.config.signInRateLimit),
    createValidationInterceptor(),
    createIdempotencyInterceptor(ctx, logger),
  ];
}

/** A service as the server needs it: registered on the router, listed for the plain paths, reflected. */
interface ServedService {
  readonly descriptor: DescService;
  readonly file: DescFile;
  /** How its callers prove who they are: an API key (checked by the auth interceptor) or their own way. */
  readonly callers: "api-key" | "own";
  register(router: ConnectRouter): void;
}

function served<S extends DescService>(
  descriptor: S,
  file: DescFile,
  impl: Partial<ServiceImpl<S>>,
  callers: ServedService["callers"],
): ServedService {
  return { descriptor, file, callers, register: (router) => router.service(descriptor, impl) };
}

/** Every RPC service, once: adding a service is adding a row here. */
function servicesOf(ctx: FlowContext): ServedService[] {
  return [
    served(PaymentService, file_payments_v1_payment_service, createPaymentService(ctx), "api-key"),
    served(SubscriptionService, file_payments_v1_subscription_service, createSubscriptionService(ctx), "api-key"),
    // The payment link's token, the dashboard's and the customer app's session cookies.
    served(HostedPageService, file_payments_v1_hosted_page_service, createHostedPageService(ctx), "own"),
    served(
      SandboxService,
      file_payments_v1_sandbox_service,
      ctx.mode.sandboxTools
        ? {
            ...createSandboxService(ctx),
            ...createSandboxRefundHandlers(ctx),
            ...createSandboxOperationHandlers(ctx),
          }
        : createAbsentSandboxService(),
      "api-key",
    ),
    served(DashboardService, file_payments_v1_dashboard_service, createDashboardService(ctx), "own"),
    served(CustomerAppService, file_payments_v1_customer_app_service, createCustomerAppService(ctx), "own"),
  ];
}

/** Files reflection answers from besides the services': the webhook payloads, health, reflection, error details. */
const alsoReflected = [
  file_payments_v1_webhooks,
  file_grpc_health_v1_health,
  file_grpc_reflection_v1_reflection,
  file_grpc_reflection_v1alpha_reflection,
  file_google_rpc_error_details,
];

/** The web pages: the bank's return, the hosted payment page, the dashboard, the customer app. */
function pagesOf(ctx: FlowContext) {
  const bankReturn = createBankReturn(ctx);
  const paymentPages = createPages({ mode: ctx.mode.mode });
  const dashboardPages = createDashboardPages({ mode: ctx.mode.mode });
  const customerAppPages = createCustomerAppPages({ mode: ctx.mode.mode });
  const pages: Parameters<typeof createApp>[0]["pages"] = async (req, res) =>
    (await bankReturn(req, res)) ||
    (await paymentPages(req, res)) ||
    (await dashboardPages(req, res)) ||
    customerAppPages(req, res);
  return pages;
}

/** Ready while the database answers within the probe's time (a hung connection is not ready either). */
async function databaseAnswersWithin(storage: Storage, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([databaseAnswers(storage.db), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
