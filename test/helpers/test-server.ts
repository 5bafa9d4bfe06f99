import { msClearOfMaintenance } from "./clear-of-maintenance.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import pino from "pino";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import type { DescService } from "@bufbuild/protobuf";
import { loadConfig, type Config } from "../../src/config.js";
import { ManualClock } from "../../src/ports/clock.js";
import { startService, type RunningService } from "../../src/composition-root.js";
import { createMerchant, type CreatedMerchant } from "../../src/flows/merchants.js";
import { createLogger } from "../../src/server/logger.js";
import { testPasswordHashEnv } from "./password-hash-env.js";
import { migratedDatabaseUrl } from "./migrated-database.js";
import { registerTeardown } from "./teardown.js";

export type Dialect = "sqlite" | "postgres";

/**
 * The database of this test pass: `npm test` runs the suite once with TEST_DATABASE=sqlite and
 * once with TEST_DATABASE=postgres (vitest.config.ts); unset, SQLite.
 */
export const testDialect: Dialect = process.env.TEST_DATABASE === "postgres" ? "postgres" : "sqlite";

/**
 * Both databases, for suites that must prove the same behaviour on each; within a pass of
 * `npm test` only that pass's database, so nothing runs twice.
 */
export const dialects: Dialect[] = process.env.TEST_DATABASE ? [testDialect] : ["sqlite", "postgres"];

export const postgresUrl = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestServer extends RunningService {
  readonly clock: ManualClock;
  readonly merchant: CreatedMerchant;
  readonly databaseUrl: string;
  /** A merchant of its own, for tenancy checks and isolation between tests. */
  newMerchant(name?: string, webhookUrl?: string): Promise<CreatedMerchant>;
  /** A Connect (JSON) client authenticated with the given (default: the test merchant's) key. */
  client<S extends DescService>(
    service: S,
    apiKey?: string,
    options?: { binary?: boolean; grpc?: boolean; grpcWeb?: boolean },
  ): Client<S>;
  stop(): Promise<void>;
}

let schemaCounter = 0;

/**
 * A fresh database URL: a SQLite file in a temp folder (under `parent`, default the system's), or a
 * new PostgreSQL schema. Removed by `cleanup`, or at the end of the test file if no one called it
 * (test/helpers/teardown.ts).
 */
export function freshDatabaseUrl(
  dialect: Dialect = testDialect,
  parent = tmpdir(),
): { url: string; cleanup: () => Promise<void> } {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(parent, "furikomi-"));
    const cleanup = registerTeardown("database", async () => rmSync(dir, { recursive: true, force: true }));
    return { url: `file:${join(dir, "test.db")}`, cleanup };
  }
  const schema = `t_${process.pid}_${Date.now().toString(36)}_${schemaCounter++}`;
  const cleanup = registerTeardown("database", async () => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      await client.query(`drop schema if exists ${schema} cascade`);
    } finally {
      await client.end();
    }
  });
  return { url: `${postgresUrl}?schema=${schema}`, cleanup };
}

/**
 * Starts the real server on a free port, on an empty database of its own (already migrated: see
 * test/helpers/migrated-database.ts), with a manual clock and a merchant.
 */
export async function startTestServer(
  options: {
    dialect?: Dialect;
    env?: Record<string, string>;
    webhookUrl?: string;
    clockStart?: Date;
    logger?: pino.Logger;
    sqliteDir?: string;
  } = {},
): Promise<TestServer> {
  const { url: databaseUrl, release: cleanup } = await migratedDatabaseUrl(
    options.dialect ?? testDialect,
    postgresUrl,
    options.sqliteDir,
  );
  const zenginDir = mkdtempSync(join(tmpdir(), "furikomi-zengin-"));
  const removeZenginDir = registerTeardown("database", async () => rmSync(zenginDir, { recursive: true, force: true }));
  const config: Config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "silent",
    // Zengin files of a test server stay in a folder of its own.
    ZENGIN_DIR: zenginDir,
    ...testPasswordHashEnv(options.env ?? {}),
    ...options.env,
  });
  const clock = new ManualClock(options.clockStart);
  if (!options.clockStart) clock.advance(msClearOfMaintenance(clock.now()));
  const log = new CanaryLog();
  const service = await startService(config, { clock, logger: options.logger ?? log.logger });
  const closeService = registerTeardown("service", () => service.close());
  const provision = async (name: string, webhookUrl?: string) =>
    log.watch(await createMerchant(service.ctx, { name, webhookUrl }));
  const merchant = await provision("Test Shop", options.webhookUrl);
  const server: TestServer = {
    ...service,
    clock,
    merchant,
    databaseUrl,
    newMerchant: (name = "Other Shop", webhookUrl) => provision(name, webhookUrl),
    client(service, apiKey = merchant.api_key, clientOptions = {}) {
      const auth: Interceptor = (next) => (req) => {
        req.header.set("authorization", `Bearer ${apiKey}`);
        return next(req);
      };
      const transport = clientOptions.grpc
        ? createGrpcTransport({ baseUrl: server.url, interceptors: [auth] })
        : clientOptions.grpcWeb
          ? createGrpcWebTransport({
              baseUrl: server.url,
              httpVersion: "1.1",
              useBinaryFormat: clientOptions.binary ?? true,
              interceptors: [auth],
            })
          : createConnectTransport({
              baseUrl: server.url,
              httpVersion: "1.1",
              useBinaryFormat: clientOptions.binary ?? false,
              interceptors: [auth],
            });
      return createClient(service, transport);
    },
    async stop() {
      await closeService();
      await cleanup();
      await removeZenginDir();
      log.assertNoLeak();
    },
  };
  return server;
}

/**
 * Every suite is a canary run: its servers log at debug into memory (and to stdout with
 * TEST_LOG_LEVEL), and stopping a server fails the suite if an API key or webhook secret it
 * handed out ever reached the log.
 */
class CanaryLog {
  readonly #secrets: string[] = [];
  readonly #leaks: string[] = [];
  readonly logger = createLogger(process.env.TEST_LOG_LEVEL ?? "debug", {
    write: (line: string) => {
      if (process.env.TEST_LOG_LEVEL) process.stdout.write(line);
      for (const secret of this.#secrets) if (line.includes(secret)) this.#leaks.push(line);
    },
  });

  watch(merchant: CreatedMerchant): CreatedMerchant {
    this.#secrets.push(merchant.api_key, merchant.webhook_secret);
    return merchant;
  }

  assertNoLeak(): void {
    if (this.#leaks.length > 0) throw new Error(`a secret reached the log:\n${this.#leaks.slice(0, 3).join("")}`);
  }
}

/** fetch against the server with the merchant's key. */
export function api(
  server: TestServer,
  path: string,
  init: RequestInit & { json?: unknown; apiKey?: string } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.apiKey !== "") headers.set("authorization", `Bearer ${init.apiKey ?? server.merchant.api_key}`);
  if (init.json !== undefined) headers.set("content-type", "application/json");
  return fetch(server.url + path, {
    ...init,
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });
}
