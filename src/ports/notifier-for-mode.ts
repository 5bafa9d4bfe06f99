import type { Config } from "../config.js";
import type { Transactor } from "../storage/transactor.js";
import type { Notifier } from "./notifier.js";
import { SandboxMailbox } from "./sandbox-mailbox.js";
import { SmtpNotifier, unconfiguredNotifier } from "./smtp-notifier.js";

/** The sandbox mailbox in sandbox mode; SMTP (or a refusing notifier without SMTP_HOST) in production. */
export function notifierForMode(config: Config, tx: Transactor): Notifier {
  if (config.mode === "sandbox") return new SandboxMailbox(tx);
  return config.smtp ? new SmtpNotifier(config.smtp) : unconfiguredNotifier;
}
