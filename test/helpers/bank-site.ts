import type { TestServer } from "./test-server.js";

/** The simulated bank site's port (a listener of its own). */
export function bankPort(server: TestServer): number {
  const port = server.ctx.verifiers.bankRedirect?.port;
  if (!port) throw new Error("the sandbox bank site is not listening");
  return port;
}

/** What the customer does on the bank's login page (posting its form, without a browser). */
export async function atBank(
  server: TestServer,
  bankUrl: string,
  form: { pin?: string; oneTimePassword?: string; action?: "approve" | "cancel"; state?: string } = {},
): Promise<Response> {
  const url = new URL(bankUrl);
  return fetch(`http://127.0.0.1:${bankPort(server)}/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      request: url.searchParams.get("request") ?? "",
      state: form.state ?? url.searchParams.get("state") ?? "",
      pin: form.pin ?? "1234",
      one_time_password: form.oneTimePassword ?? "123456",
      action: form.action ?? "approve",
    }),
    redirect: "manual",
  });
}

/** Where the bank sent the customer back (its Location), as a URL. */
export function backLocation(response: Response): URL {
  const location = response.headers.get("location");
  if (response.status !== 303 || !location) throw new Error(`the bank answered ${response.status}, not a redirect`);
  return new URL(location);
}

/** The customer's browser arriving at the return URL on the test server: the page's `bank` outcome. */
export async function returnFromBank(server: TestServer, back: URL): Promise<string> {
  const response = await fetch(`${server.url}${back.pathname}${back.search}`, { redirect: "manual" });
  const location = response.headers.get("location") ?? "";
  if (response.status !== 303) throw new Error(`the return answered ${response.status}`);
  return new URL(location, server.url).searchParams.get("bank") ?? "";
}
