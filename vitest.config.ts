import { configDefaults, defineConfig } from "vitest/config";

// Every server suite runs twice: once on SQLite and once on PostgreSQL (127.0.0.1:5432, TEST_POSTGRES_URL),
// as two projects of one run; test/helpers/test-server.ts reads TEST_DATABASE. Run one pass with
// `npx vitest run --project sqlite` (or postgres). The tiers are folders (CONTRIBUTING.md): test/api,
// test/process, test/browser, test/property. Pure tests (src/**/*.spec.ts beside the code, test/unit/)
// need no database: SQLite pass only.
const tests = "test/**/*.test.ts";
const pureTests = ["src/**/*.spec.ts", "test/unit/**/*.test.ts"];
const postgresOnly = ["test/process/scale-out.test.ts", "test/process/subscription-cycle-scale-out.test.ts"];
// SQLite-specific (integrity_check after kill -9). The model-based test runs on both (fewer
// sequences on PostgreSQL: the model is about the domain; PostgreSQL's pass is for reconcile).
// The suite has to stay under 10 minutes on 2 cores (CONTRIBUTING.md#test-tiers).
const sqliteOnly = [
  "test/property/crash-loop.test.ts",
  "test/property/zengin-crash-loop.test.ts",
  "test/process/sqlite-migrations-race.test.ts",
  // No database, or nothing a database changes: once is enough. The fuzzer's cases are refused or
  // answered before storage differs (decoding, validation, auth); the CLI commands run the storage
  // code the API tiers run on both, so their PostgreSQL pass was minutes for nothing new.
  "test/property/fuzz.test.ts",
  "test/process/users-cli.test.ts",
  "test/process/zengin-cli.test.ts",
  "test/api/request-signal.test.ts",
  "test/process/client-package.test.ts",
  "test/process/python-client.test.ts",
  "test/process/webhook-recipe.test.ts",
  "test/process/alert-rules.test.ts",
  // The CLI's review decisions: their flows run on both databases in test/api/onboarding-checklist.test.ts.
  "test/process/merchants-review-cli.test.ts",
  // The pages: what they show comes over the API, whose tiers run on both databases.
  "test/browser/**",
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A worker keeps the modules it imported from one file to the next: importing the service's
    // module graph again for each of ~400 files was a third of the suite's CPU. Tests share no
    // global state (no vi.mock, no env writes; each starts its own server on its own database).
    isolate: false,
    // Whatever a test leaves running (timed out, threw) is torn down after its file.
    setupFiles: ["test/helpers/teardown-setup.ts"],
    // Names the run and removes the migrated databases its workers reused (test/helpers/migrated-database.ts).
    globalSetup: ["test/helpers/global-setup.ts"],
    // Two cores: two files at a time keeps server-per-file suites from starving each other.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "sqlite",
          include: [tests, ...pureTests],
          exclude: [...configDefaults.exclude, ...postgresOnly],
          env: { TEST_DATABASE: "sqlite" },
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: [tests],
          exclude: [...configDefaults.exclude, ...pureTests, ...sqliteOnly],
          env: { TEST_DATABASE: "postgres" },
        },
      },
    ],
  },
});
