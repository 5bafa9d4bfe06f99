import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";

export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  /** The user it authenticated as ("" without AUTH). */
  readonly user: string;
  /** Whether the session was TLS (STARTTLS) when the message came. */
  readonly secure: boolean;
  /** The connection it came on (1, 2, …): equal numbers mean a reused (pooled) connection. */
  readonly connection: number;
  /** The message as sent, headers and body. */
  readonly raw: string;
  readonly parsed: ParsedMail;
}

export interface TestSmtpServer {
  readonly port: number;
  /** The self-signed certificate it offers for STARTTLS (trust it with SMTP_CA_FILE). */
  readonly caFile: string;
  readonly mails: ReceivedMail[];
  /** Connections opened so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A real SMTP server (the smtp-server package) on loopback: STARTTLS with a self-signed
 * certificate for localhost (or none with `starttls: false`), AUTH PLAIN/LOGIN with
 * relay/secret; it keeps every message, parsed with mailparser.
 */
export async function startSmtpServer(options: { starttls?: boolean } = {}): Promise<TestSmtpServer> {
  const dir = mkdtempSync(join(tmpdir(), "furikomi-smtp-"));
  const caFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", caFile, "-days", "1"].concat([
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
    ]),
    { stdio: "ignore" },
  );
  const mails: ReceivedMail[] = [];
  let connections = 0;
  const connectionOf = new Map<string, number>();
  const server = new SMTPServer({
    key: readFileSync(keyFile),
    cert: readFileSync(caFile),
    disabledCommands: options.starttls === false ? ["STARTTLS"] : [],
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onConnect(session, callback) {
      connectionOf.set(session.id, ++connections);
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === "relay" && auth.password === "secret") callback(null, { user: auth.username });
      else callback(new Error("invalid credentials"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          user: String(session.user ?? ""),
          secure: session.secure,
          connection: connectionOf.get(session.id) ?? 0,
          raw,
          parsed: await simpleParser(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    caFile,
    mails,
    connections: () => connections,
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        }),
      ),
  };
}
