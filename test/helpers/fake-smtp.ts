import net from "node:net";

export interface ReceivedMail {
  from: string;
  to: string[];
  auth: string;
  data: string;
}

/** A minimal SMTP server on loopback that accepts every message and keeps it (no TLS offered). */
export async function startFakeSmtp(): Promise<{ port: number; mails: ReceivedMail[]; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const server = net.createServer((socket) => {
    let buffer = "";
    let inData = false;
    let mail: ReceivedMail = { from: "", to: [], auth: "", data: "" };
    socket.setEncoding("utf8");
    socket.write("220 fake.smtp ESMTP\r\n");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          mail.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          mails.push(mail);
          mail = { from: "", to: [], auth: "", data: "" };
          socket.write("250 queued\r\n");
          continue;
        }
        const newline = buffer.indexOf("\r\n");
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.split(" ")[0].toUpperCase();
        if (verb === "EHLO") socket.write("250-fake.smtp\r\n250-AUTH PLAIN\r\n250 8BITMIME\r\n");
        else if (verb === "AUTH") {
          mail.auth = Buffer.from(line.split(" ")[2] ?? "", "base64").toString("utf8");
          socket.write("235 ok\r\n");
        } else if (verb === "MAIL") {
          mail.from = line.slice(line.indexOf("<") + 1, line.indexOf(">"));
          socket.write("250 ok\r\n");
        } else if (verb === "RCPT") {
          mail.to.push(line.slice(line.indexOf("<") + 1, line.indexOf(">")));
          socket.write("250 ok\r\n");
        } else if (verb === "DATA") {
          inData = true;
          socket.write("354 go ahead\r\n");
        } else if (verb === "QUIT") {
          socket.end("221 bye\r\n");
          return;
        } else socket.write("502 unknown\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, mails, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The UTF-8 text of a base64 body of a received message. */
export function mailBody(data: string): string {
  const [, body] = data.split("\r\n\r\n");
  return Buffer.from(body.replace(/\r\n/g, ""), "base64").toString("utf8");
}
