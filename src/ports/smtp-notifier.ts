import { readFileSync } from "node:fs";
import { createTransport } from "nodemailer";
import type { SmtpSettings } from "../config.js";
import type { Notifier, OutgoingMessage } from "./notifier.js";
import { limits } from "../domain/limits.js";

export type { SmtpSettings };

const timeoutMs = limits.smtpTimeoutMs;

/**
 * The production notifier: nodemailer over a pool of SMTP connections to the relay (STARTTLS when
 * offered, or required; implicit TLS on 465; AUTH when credentials are set). Headers are RFC 5322
 * with non-ASCII words RFC 2047 encoded (at most 75 characters each, folded); the body is UTF-8.
 */
export class SmtpNotifier implements Notifier {
  readonly #transport;

  constructor(private readonly settings: SmtpSettings) {
    this.#transport = createTransport({
      pool: true,
      maxConnections: settings.maxConnections,
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      requireTLS: settings.requireTls,
      auth: settings.user ? { user: settings.user, pass: settings.password ?? "" } : undefined,
      tls: { servername: settings.host, ...(settings.caFile ? { ca: readFileSync(settings.caFile) } : {}) },
      name: settings.from.split("@")[1] || "localhost",
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  async send(message: OutgoingMessage): Promise<void> {
    await this.#transport.sendMail({
      from: { name: this.settings.fromName, address: this.settings.from },
      to: message.to,
      subject: message.subject,
      text: message.body,
      date: message.sentAt,
      textEncoding: "base64",
    });
  }

  /** Closes the pooled connections (at shutdown). */
  async close(): Promise<void> {
    this.#transport.close();
  }
}

/** A notifier for a production deployment without SMTP_HOST: it refuses, so nothing is silently lost. */
export const unconfiguredNotifier: Notifier = Object.freeze({
  async send(): Promise<void> {
    throw new Error("SMTP_HOST is not set: customer e-mail (two-factor codes) cannot be sent");
  },
});
