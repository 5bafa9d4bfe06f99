import { randomUUID } from "node:crypto";
import net from "node:net";
import tls from "node:tls";
import type { Notifier, OutgoingMessage } from "./notifier.js";

export interface SmtpSettings {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (port 465); otherwise STARTTLS is used when the server offers it. */
  secure: boolean;
  user?: string;
  password?: string;
  /** The envelope and From: address. */
  from: string;
  /** Refuse to send when the server does not offer STARTTLS on a plain connection. */
  requireTls: boolean;
}

const timeoutMs = 30_000;

/**
 * The production notifier: speaks SMTP (RFC 5321) to a relay with node's net/tls, no library.
 * One connection per message: EHLO, STARTTLS when offered (or implicit TLS), AUTH PLAIN when
 * credentials are set, MAIL FROM, RCPT TO, DATA, QUIT. The body is UTF-8, base64-encoded.
 */
export class SmtpNotifier implements Notifier {
  constructor(private readonly settings: SmtpSettings) {}

  async send(message: OutgoingMessage): Promise<void> {
    for (const address of [message.to, this.settings.from]) {
      if (/[\r\n<>]/.test(address)) throw new Error(`refusing to send to a malformed address`);
    }
    const session = await SmtpSession.open(this.settings);
    try {
      let features = await session.command(`EHLO ${heloName(this.settings.from)}`, [250]);
      if (!this.settings.secure) {
        if (features.some((line) => /^STARTTLS\b/i.test(line))) {
          await session.command("STARTTLS", [220]);
          await session.upgrade(this.settings.host);
          features = await session.command(`EHLO ${heloName(this.settings.from)}`, [250]);
        } else if (this.settings.requireTls) {
          throw new Error(`SMTP server ${this.settings.host} does not offer STARTTLS`);
        }
      }
      if (this.settings.user) {
        const credentials = Buffer.from(`\0${this.settings.user}\0${this.settings.password ?? ""}`).toString("base64");
        await session.command(`AUTH PLAIN ${credentials}`, [235]);
      }
      await session.command(`MAIL FROM:<${this.settings.from}>`, [250]);
      await session.command(`RCPT TO:<${message.to}>`, [250, 251]);
      await session.command("DATA", [354]);
      await session.command(`${dotStuffed(formatMessage(this.settings.from, message))}\r\n.`, [250]);
      await session.command("QUIT", [221]).catch(() => undefined);
    } finally {
      session.close();
    }
  }
}

function heloName(from: string): string {
  return from.split("@")[1] || "localhost";
}

/** RFC 5322 headers, the subject as an RFC 2047 encoded word, the body base64 in 76-character lines. */
export function formatMessage(from: string, message: OutgoingMessage): string {
  const body = Buffer.from(message.body, "utf8")
    .toString("base64")
    .replace(/.{1,76}/g, "$&\r\n")
    .trimEnd();
  return [
    `From: <${from}>`,
    `To: <${message.to}>`,
    `Subject: =?UTF-8?B?${Buffer.from(message.subject, "utf8").toString("base64")}?=`,
    `Date: ${message.sentAt.toUTCString()}`,
    `Message-ID: <${randomUUID()}@${heloName(from)}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=UTF-8",
    "Content-Transfer-Encoding: base64",
    "",
    body,
  ].join("\r\n");
}

/** RFC 5321 4.5.2: a line starting with a dot gets another. */
function dotStuffed(data: string): string {
  return data.replace(/(^|\r\n)\./g, "$1..");
}

/** One SMTP connection: writes commands, reads (multi-line) replies. */
class SmtpSession {
  #socket: net.Socket;
  #buffer = "";
  #lines: string[] = [];
  #waiting: (() => void) | undefined;
  #failure: Error | undefined;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    this.#attach(socket);
  }

  static async open(settings: SmtpSettings): Promise<SmtpSession> {
    const socket = settings.secure
      ? tls.connect({ host: settings.host, port: settings.port, servername: settings.host })
      : net.connect({ host: settings.host, port: settings.port });
    const session = new SmtpSession(socket);
    await session.#reply([220]);
    return session;
  }

  #attach(socket: net.Socket): void {
    socket.setEncoding("utf8");
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error("SMTP server timed out")));
    socket.on("data", (chunk: string) => {
      this.#buffer += chunk;
      let newline: number;
      while ((newline = this.#buffer.indexOf("\r\n")) >= 0) {
        this.#lines.push(this.#buffer.slice(0, newline));
        this.#buffer = this.#buffer.slice(newline + 2);
      }
      this.#notify();
    });
    socket.on("error", (error) => {
      this.#failure = error;
      this.#notify();
    });
    socket.on("close", () => {
      this.#failure ??= new Error("SMTP connection closed");
      this.#notify();
    });
  }

  #notify(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }

  /** Upgrades the connection after STARTTLS. */
  async upgrade(host: string): Promise<void> {
    this.#socket.removeAllListeners();
    const secure = tls.connect({ socket: this.#socket, servername: host });
    await new Promise<void>((resolve, reject) => {
      secure.once("secureConnect", resolve);
      secure.once("error", reject);
    });
    this.#socket = secure;
    this.#attach(secure);
  }

  async command(line: string, expected: number[]): Promise<string[]> {
    this.#socket.write(`${line}\r\n`);
    return this.#reply(expected);
  }

  /** Reads one reply (its lines without the code) and checks its code. */
  async #reply(expected: number[]): Promise<string[]> {
    const lines: string[] = [];
    for (;;) {
      while (this.#lines.length === 0) {
        if (this.#failure) throw this.#failure;
        await new Promise<void>((resolve) => (this.#waiting = () => resolve()));
      }
      const line = this.#lines.shift()!;
      lines.push(line.slice(4));
      if (line[3] === "-") continue;
      const code = Number(line.slice(0, 3));
      if (!expected.includes(code)) throw new Error(`SMTP server answered ${line}`);
      return lines;
    }
  }

  close(): void {
    this.#socket.end();
    this.#socket.destroy();
  }
}

/** A notifier for a production deployment without SMTP_HOST: it refuses, so nothing is silently lost. */
export const unconfiguredNotifier: Notifier = Object.freeze({
  async send(): Promise<void> {
    throw new Error("SMTP_HOST is not set: customer e-mail (two-factor codes) cannot be sent");
  },
});
