import { BankVerificationFailure } from "../../gen/payments/v1/enums_pb.js";
import { completeBankReturn } from "../flows/account-verification.js";
import type { FlowContext } from "../flows/flow-context.js";
import type { RequestListener } from "./listener.js";

type NodeRequest = Parameters<RequestListener>[0];
type NodeResponse = Parameters<RequestListener>[1];

/**
 * GET /pay/{token}/bank-return?state&code (or &error): the customer is back from the bank's page.
 * The verification is settled server side (flows/account-verification.ts), then the customer is
 * sent to the payment page with the outcome in `bank` (verified, or the BankVerificationFailure
 * name: cancelled, expired, state_mismatch, code_rejected, locked), which the page only displays.
 * A return with no answer at all (the bank's link back from a request it had already answered)
 * settles nothing and shows the page as it stands.
 */
export function createBankReturn(ctx: FlowContext): (req: NodeRequest, res: NodeResponse) => Promise<boolean> {
  return async (req, res) => {
    if (req.method !== "GET") return false;
    const url = new URL(req.url ?? "/", "http://page.invalid");
    const match = /^\/pay\/([^/]+)\/bank-return$/.exec(url.pathname);
    if (!match) return false;
    const token = decodeURIComponent(match[1]);
    const pageUrl = `/pay/${encodeURIComponent(token)}`;
    const answer = ["state", "code", "error"].map((name) => url.searchParams.get(name) ?? "");
    if (answer.every((value) => value === "")) {
      // Back from a request the bank had already answered (its link to the page): nothing to settle.
      res.writeHead(303, { location: pageUrl, "cache-control": "no-store", "referrer-policy": "no-referrer" });
      res.end();
      return true;
    }
    const failure = await completeBankReturn(ctx, token, {
      state: url.searchParams.get("state") ?? "",
      code: url.searchParams.get("code") ?? "",
      error: url.searchParams.get("error") ?? "",
    });
    const outcome =
      failure === BankVerificationFailure.UNSPECIFIED ? "verified" : BankVerificationFailure[failure].toLowerCase();
    res.writeHead(303, {
      location: `${pageUrl}?bank=${outcome}`,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    });
    res.end();
    return true;
  };
}
