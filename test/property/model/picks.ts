import { ConnectError, type Code } from "@connectrpc/connect";
import { expect } from "vitest";
import type { Model, ModelCharge, ModelCustomer } from "./model-state.js";

/** A customer named by a generated index; a negative one is an id no one has. */
export function pickCustomer(model: Readonly<Model>, pick: number): ModelCustomer | undefined {
  if (pick < 0 || model.customers.length === 0) return undefined;
  return model.customers[pick % model.customers.length];
}

export function pickCharge(model: Readonly<Model>, pick: number): ModelCharge | undefined {
  if (pick < 0 || model.charges.length === 0) return undefined;
  return model.charges[pick % model.charges.length];
}

let unknownCounter = 0;
export function unknownId(prefix: string): string {
  return `${prefix}-model${++unknownCounter}unknown`;
}

/** The call fails with this Connect code (and message, when given). */
export async function expectConnectError(call: Promise<unknown>, code: Code, message?: string): Promise<ConnectError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  const connectError = error as ConnectError;
  expect({ code: connectError.code, message: message === undefined ? undefined : connectError.rawMessage }).toEqual({
    code,
    message,
  });
  return connectError;
}
