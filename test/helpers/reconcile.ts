import { expect } from "vitest";
import { reconcile } from "../../src/flows/reconcile.js";
import type { FlowContext } from "../../src/flows/flow-context.js";
import { moneyViolations, type Violation } from "../../src/domain/invariants.js";
import { openStorage } from "../../src/storage/database.js";
import { moneySnapshot } from "../../src/storage/reconcile-queries.js";
import { Transactor } from "../../src/storage/transactor.js";

/** `furikomi reconcile` over the server's database finds nothing (docs/reference/invariants.md). */
export async function expectReconciled(server: { ctx: FlowContext }): Promise<void> {
  expect(described(await reconcile(server.ctx))).toEqual([]);
}

/** The same over a database a server (maybe another process) runs on. */
export async function expectDatabaseReconciled(databaseUrl: string): Promise<void> {
  const storage = await openStorage(databaseUrl);
  try {
    expect(described(moneyViolations(await moneySnapshot(new Transactor(storage))))).toEqual([]);
  } finally {
    await storage.close();
  }
}

function described(violations: readonly Violation[]): string[] {
  return violations.map((v) => `${v.subject} ${v.rule}: ${v.detail}`);
}
