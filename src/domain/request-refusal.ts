/** Refusals that are not payment errors: the protocol status is all a client needs. */
export type RefusalKind =
  | "unauthenticated"
  | "forbidden"
  | "conflict"
  | "in_flight"
  | "not_found"
  | "rate_limited"
  | "precondition"
  | "invalid";

/** What a refusal may carry besides its kind and message. */
export interface RefusalOptions {
  /** A stable reason clients branch on (a google.rpc.ErrorInfo detail), e.g. CSV_TOO_MANY_ROWS. */
  readonly reason?: string;
  /** For rate_limited: when to try again (the Retry-After header and a google.rpc.RetryInfo detail). */
  readonly retryAfterSeconds?: number;
  /** Facts a client may show (the ErrorInfo's metadata), e.g. attemptsLeft. */
  readonly facts?: Readonly<Record<string, string>>;
}

export class RequestRefusal extends Error {
  readonly reason?: string;
  readonly retryAfterSeconds?: number;
  readonly facts?: Readonly<Record<string, string>>;

  constructor(
    readonly kind: RefusalKind,
    message: string,
    options: RefusalOptions = {},
  ) {
    super(message);
    this.name = "RequestRefusal";
    this.reason = options.reason;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.facts = options.facts;
  }
}
