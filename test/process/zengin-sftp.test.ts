import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createZenginTransport, matchesPinnedHostKey } from "../../src/ports/zengin-transport.js";

/**
 * A real OpenSSH server (Debian's openssh-server) on loopback, started here with throwaway host
 * and client keys and a config of its own; the test signs in as the user running it.
 */
let sshd: ChildProcess;
let dir: string;
let port: number;
let hostKey: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "zengin-sftp-"));
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")]);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")));
  hostKey = readFileSync(join(dir, "host_key.pub"), "utf8").trim();
  for (const folder of ["bank/outgoing", "bank/incoming"]) mkdirSync(join(dir, folder), { recursive: true });
  mkdirSync("/run/sshd", { recursive: true });
  port = await freePort();
  writeFileSync(
    join(dir, "sshd_config"),
    [
      `ListenAddress 127.0.0.1:${port}`,
      `HostKey ${join(dir, "host_key")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin prohibit-password",
      "StrictModes no",
      "UsePAM no",
      "Subsystem sftp internal-sftp",
    ].join("\n"),
  );
  sshd = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] });
  const log: string[] = [];
  sshd.stderr?.on("data", (chunk) => log.push(String(chunk)));
  await new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    const check = () => {
      if (log.join("").includes("Server listening")) resolve();
      else if (sshd.exitCode !== null || Date.now() > deadline)
        reject(new Error(`sshd did not start: ${log.join("")}`));
      else setTimeout(check, 50);
    };
    check();
  });
});

afterAll(() => {
  sshd?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

const settings = (pinned: string) => ({
  dir: join(dir, "local"),
  sftp: {
    url: `sftp://${userInfo().username}@127.0.0.1:${port}${join(dir, "bank")}`,
    keyFile: join(dir, "client_key"),
    hostKey: pinned,
  },
});

describe("the SFTP transport against OpenSSH", () => {
  it("uploads atomically under the final name, lists, reads and removes results", async () => {
    const transport = createZenginTransport(settings(hostKey));
    const bytes = Buffer.from("1".repeat(120) + "\r\n", "latin1");
    await transport.send("Z91_1234567890_20261126.txt", bytes);
    expect(readdirSync(join(dir, "bank/outgoing"))).toEqual(["Z91_1234567890_20261126.txt"]);
    expect(readFileSync(join(dir, "bank/outgoing/Z91_1234567890_20261126.txt")).equals(bytes)).toBe(true);
    // Sending again replaces the file (a redo after a crash writes the same bytes).
    await transport.send("Z91_1234567890_20261126.txt", bytes);
    expect(readdirSync(join(dir, "bank/outgoing"))).toEqual(["Z91_1234567890_20261126.txt"]);

    writeFileSync(join(dir, "bank/incoming/R91_1234567890_20261126.txt"), bytes);
    writeFileSync(join(dir, "bank/incoming/.partial.tmp"), "half");
    expect(await transport.received()).toEqual(["R91_1234567890_20261126.txt"]);
    expect((await transport.read("R91_1234567890_20261126.txt")).equals(bytes)).toBe(true);
    await transport.remove("R91_1234567890_20261126.txt");
    expect(existsSync(join(dir, "bank/incoming/R91_1234567890_20261126.txt"))).toBe(false);
  });

  it("accepts the pinned key by its SHA256 fingerprint and refuses any other server key", async () => {
    const fingerprint = execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", join(dir, "host_key.pub")], {
      encoding: "utf8",
    }).split(" ")[1];
    expect(await createZenginTransport(settings(fingerprint)).received()).toEqual([]);
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "other_key")]);
    const other = readFileSync(join(dir, "other_key.pub"), "utf8");
    await expect(createZenginTransport(settings(other)).received()).rejects.toThrow();
    expect(matchesPinnedHostKey(other, Buffer.from(hostKey.split(" ")[1], "base64"))).toBe(false);
    expect(matchesPinnedHostKey(hostKey, Buffer.from(hostKey.split(" ")[1], "base64"))).toBe(true);
  });
});
