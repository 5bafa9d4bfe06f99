import { BankVerificationFailure, MandateVerification } from "../../gen/payments/v1/enums_pb.js";

/** What a verification is asked to confirm: one chosen account, bound to one payment link. */
export interface VerificationRequest {
  /** bvr-*: the bank knows the request by it. */
  readonly verificationId: string;
  /** Random, bound to the payment link; the bank hands it back unchanged. */
  readonly state: string;
  /** Where the bank sends the customer back (…/pay/{token}/bank-return). */
  readonly returnUrl: string;
}

/** How the verification goes on: at the bank's own page, or with the first debit. */
export type VerificationStart = { kind: "redirect"; url: string } | { kind: "first_debit" };

export type VerificationConfirmation = { ok: true } | { ok: false; failure: BankVerificationFailure };

/**
 * "Verify this account mandate", whoever the bank is. Two implementations:
 * - BankRedirectVerifier: the customer authenticates on the bank's own page and comes back with
 *   an authorisation code, which the service confirms with the bank server to server;
 * - FirstDebitVerifier (the Zengin file connector): no online check; the mandate is registered
 *   with the first debit (新規コード 1), and a result code 4 (依頼書なし) fails that charge and
 *   deactivates the contract.
 */
export interface MandateVerifier {
  readonly method: MandateVerification;
  start(request: VerificationRequest): Promise<VerificationStart>;
  /** Server to server: does the bank confirm this code for this verification? */
  confirm(verificationId: string, code: string): Promise<VerificationConfirmation>;
}

export class FirstDebitVerifier implements MandateVerifier {
  readonly method = MandateVerification.FIRST_DEBIT;
  async start(): Promise<VerificationStart> {
    return { kind: "first_debit" };
  }
  async confirm(): Promise<VerificationConfirmation> {
    return { ok: false, failure: BankVerificationFailure.CODE_REJECTED };
  }
}

/**
 * The simulated bank's online verification (the sandbox bank site, a listener of its own). The
 * customer's browser is sent to the bank on the host it came from, at the bank's port; the
 * service reaches the bank on the loopback address.
 */
export class BankRedirectVerifier implements MandateVerifier {
  readonly method = MandateVerification.BANK_REDIRECT;
  #port = 0;

  /** The bank site's port, once it listens. */
  attach(port: number): void {
    this.#port = port;
  }

  get port(): number {
    return this.#port;
  }

  async start(request: VerificationRequest): Promise<VerificationStart> {
    const returnUrl = new URL(request.returnUrl);
    const url = new URL(`${returnUrl.protocol}//${returnUrl.hostname}:${this.#port}/authorize`);
    url.searchParams.set("request", request.verificationId);
    url.searchParams.set("state", request.state);
    return { kind: "redirect", url: url.toString() };
  }

  async confirm(verificationId: string, code: string): Promise<VerificationConfirmation> {
    const response = await fetch(`http://127.0.0.1:${this.#port}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ request: verificationId, code }),
      signal: AbortSignal.timeout(10_000),
    });
    if (response.ok) return { ok: true };
    return { ok: false, failure: BankVerificationFailure.CODE_REJECTED };
  }

  /**
   * SandboxService.CompletePayment: the test customer at the bank's page, without a browser —
   * posts the bank's login form with the given entries and answers where the bank sends the
   * customer back (with the code and state, or an error).
   */
  async authoriseAsCustomer(bankUrl: string, entries: { pin: string; oneTimePassword: string }): Promise<URL> {
    const url = new URL(bankUrl);
    const response = await fetch(`http://127.0.0.1:${this.#port}/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        request: url.searchParams.get("request") ?? "",
        state: url.searchParams.get("state") ?? "",
        pin: entries.pin,
        one_time_password: entries.oneTimePassword,
        action: "approve",
      }),
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
    const location = response.headers.get("location");
    if (!location) throw new Error(`the simulated bank did not send the customer back (HTTP ${response.status})`);
    return new URL(location);
  }
}
