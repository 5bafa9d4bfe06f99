import { configDefaults, defineConfig } from "vitest/config";

// Every test file runs twice: once on SQLite and once on PostgreSQL (127.0.0.1:5432, TEST_POSTGRES_URL),
// as two projects of one run; test/helpers/test-server.ts reads TEST_DATABASE. Run one pass with
// `npx vitest run --project sqlite` (or postgres). Pure unit specs need no database: SQLite pass only.
const serverSuites = "test/**/*.test.ts";
const postgresOnly = ["test/scale-out.test.ts"];
// SQLite-specific (integrity_check after kill -9) or long and about the domain, not the database.
const sqliteOnly = [
  "test/crash-loop.test.ts",
  "test/model-based.test.ts",
  "test/process/sqlite-migrations-race.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two cores: two files at a time keeps server-per-file suites from starving each other.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "sqlite",
          include: [serverSuites, "src/**/*.spec.ts"],
          exclude: [...configDefaults.exclude, ...postgresOnly],
          env: { TEST_DATABASE: "sqlite" },
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: [serverSuites],
          exclude: [...configDefaults.exclude, ...sqliteOnly],
          env: { TEST_DATABASE: "postgres" },
        },
      },
    ],
  },
});
