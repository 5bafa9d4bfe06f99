import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SmtpNotifier, type SmtpSettings } from "../../src/ports/smtp-notifier.js";
import { oneTimeCodeMessage } from "../../src/domain/one-time-code.js";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.js";

/** Every RFC 2047 encoded word in the header block of a raw message. */
function encodedWords(raw: string): string[] {
  const headers = raw.slice(0, raw.indexOf("\r\n\r\n"));
  return headers.match(/=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=/g) ?? [];
}

describe("customer e-mail through an SMTP relay", () => {
  let smtp: TestSmtpServer;
  let settings: SmtpSettings;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    settings = {
      host: "localhost",
      port: smtp.port,
      secure: false,
      user: "relay",
      password: "secret",
      from: "pay@furikomi.example",
      fromName: "ふりこみ決済",
      requireTls: true,
      caFile: smtp.caFile,
      maxConnections: 1,
    };
  });
  afterAll(() => smtp?.close());

  it("sends a Japanese message over STARTTLS with AUTH, its headers encoded within 75 characters", async () => {
    const notifier = new SmtpNotifier(settings);
    const message = oneTimeCodeMessage("株式会社さくら商店オンラインストア本店", "123456");
    try {
      await notifier.send({ merchantId: "mer-1", to: "hanako@example.jp", ...message, sentAt: new Date() });
    } finally {
      await notifier.close();
    }
    const mail = smtp.mails.at(-1)!;
    expect(mail).toMatchObject({
      from: "pay@furikomi.example",
      to: ["hanako@example.jp"],
      user: "relay",
      secure: true,
    });
    expect(mail.parsed.subject).toBe(message.subject);
    expect(message.subject).toMatch(/^【株式会社さくら商店オンラインストア本店】お支払いの/);
    expect(mail.parsed.from?.value).toEqual([{ name: "ふりこみ決済", address: "pay@furikomi.example" }]);
    expect(mail.parsed.text?.trim()).toBe(message.body);
    const words = encodedWords(mail.raw);
    expect(words.length).toBeGreaterThan(2);
    for (const word of words) expect(word.length).toBeLessThanOrEqual(75);
    for (const line of mail.raw.split("\r\n")) expect(line.length).toBeLessThanOrEqual(78);
  });

  it("reuses one pooled connection for several messages", async () => {
    const notifier = new SmtpNotifier(settings);
    const before = smtp.connections();
    try {
      for (const n of [1, 2, 3]) {
        await notifier.send({
          merchantId: "mer-1",
          to: `c${n}@example.jp`,
          subject: "件名",
          body: "本文",
          sentAt: new Date(),
        });
      }
    } finally {
      await notifier.close();
    }
    expect(smtp.connections() - before).toBe(1);
    const last = smtp.mails.slice(-3);
    expect(new Set(last.map((mail) => mail.connection)).size).toBe(1);
    expect(last.map((mail) => mail.to[0])).toEqual(["c1@example.jp", "c2@example.jp", "c3@example.jp"]);
  });

  it("refuses wrong credentials and a relay that does not offer STARTTLS when TLS is required", async () => {
    const wrong = new SmtpNotifier({ ...settings, password: "nope" });
    const send = (notifier: SmtpNotifier) =>
      notifier.send({ merchantId: "mer-1", to: "x@example.jp", subject: "s", body: "b", sentAt: new Date() });
    await expect(send(wrong).finally(() => wrong.close())).rejects.toThrow(/Invalid login: 535/);
    const plain = await startSmtpServer({ starttls: false });
    const strict = new SmtpNotifier({ ...settings, port: plain.port });
    try {
      await expect(send(strict)).rejects.toThrow(/STARTTLS/i);
      expect(plain.mails).toHaveLength(0);
    } finally {
      await strict.close();
      await plain.close();
    }
  });
});
