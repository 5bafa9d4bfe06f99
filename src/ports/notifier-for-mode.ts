import type { Config } from "../config.js";
import type { ModeRules } from "../domain/mode.js";
import type { Transactor } from "../storage/transactor.js";
import type { Notifier } from "./notifier.js";
import { SandboxMailbox } from "./sandbox-mailbox.js";
import { SmtpNotifier, unconfiguredNotifier } from "./smtp-notifier.js";

/** The sandbox mailbox with the sandbox's tools; SMTP (or a refusing notifier without SMTP_HOST) otherwise. */
export function notifierForMode(mode: ModeRules, smtp: Config["smtp"], tx: Transactor): Notifier {
  if (mode.sandboxTools) return new SandboxMailbox(tx);
  return smtp ? new SmtpNotifier(smtp) : unconfiguredNotifier;
}
