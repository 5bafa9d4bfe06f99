/** Deployment mode: sandbox (the default) simulates the bank; production talks to real ports. */
export type Mode = "sandbox" | "production";
