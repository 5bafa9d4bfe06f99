import { describe, expect, it } from "vitest";
import { forbiddenAddress, webhookUrlRefusal } from "./webhook-url.js";

describe("forbiddenAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.1.1", "link-local"],
    ["169.254.169.254", "cloud metadata"],
    ["100.100.100.200", "cloud metadata"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["0.0.0.0", "this network"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "reserved"],
    ["198.18.0.1", "benchmarking"],
    ["192.0.2.10", "documentation"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "cloud metadata"],
    ["::ffff:0:10.0.0.1", "private"],
    ["64:ff9b::192.168.0.1", "private"],
    ["2002:c0a8:0101::1", "private"],
    ["::127.0.0.1", "IPv4-compatible"],
    ["fd00:ec2::254", "cloud metadata"],
    ["fc00::1", "unique local (private)"],
    ["fd12:3456::1", "unique local (private)"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["4000::1", "not global unicast"],
    ["example.com", "not an IP address"],
  ])("refuses %s (%s)", (address, reason) => {
    expect(forbiddenAddress(address)).toBe(reason);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "169.253.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
  ])("accepts the public address %s", (address) => {
    expect(forbiddenAddress(address)).toBeUndefined();
  });
});

describe("webhookUrlRefusal", () => {
  it("accepts public https URLs in production", () => {
    expect(webhookUrlRefusal("https://shop.example.com/hooks/furikomi", true)).toBeUndefined();
    expect(webhookUrlRefusal("https://8.8.8.8:8443/hook", true)).toBeUndefined();
    expect(webhookUrlRefusal("https://[2606:4700:4700::1111]/hook", true)).toBeUndefined();
  });

  it.each([
    ["http://shop.example.com/hook", /https/],
    ["ftp://shop.example.com/hook", /http or https/],
    ["not a url", /valid absolute URL/],
    ["/relative/hook", /valid absolute URL/],
    ["https://user:pass@shop.example.com/hook", /credentials/],
    ["https://127.0.0.1/hook", /loopback/],
    ["https://2130706433/hook", /loopback/], // decimal
    ["https://0x7f.0.0.1/hook", /loopback/], // hex
    ["https://0177.0.0.1/hook", /loopback/], // octal
    ["https://127.1/hook", /loopback/], // short form
    ["https://[::1]/hook", /loopback/],
    ["https://[::ffff:127.0.0.1]/hook", /loopback/],
    ["https://[::ffff:169.254.169.254]/hook", /metadata/],
    ["https://169.254.169.254/latest/meta-data", /metadata/],
    ["https://10.0.0.5/hook", /private/],
    ["https://192.168.0.10/hook", /private/],
    ["https://100.64.1.1/hook", /carrier-grade NAT/],
    ["https://[fe80::1]/hook", /link-local/],
    ["https://224.0.0.1/hook", /multicast/],
    ["https://0.0.0.0/hook", /this network/],
    ["https://localhost/hook", /internal host name/],
    ["https://LOCALHOST./hook", /internal host name/],
    ["https://api.localhost/hook", /internal host name/],
    ["https://metadata.google.internal/computeMetadata/v1", /internal host name/],
    ["https://printer.local/hook", /internal host name/],
    ["https://intranet/hook", /fully qualified/],
  ])("refuses %s in production", (url, reason) => {
    expect(webhookUrlRefusal(url, true)).toMatch(reason);
  });

  it("accepts local http URLs in sandbox, but only http(s)", () => {
    expect(webhookUrlRefusal("http://127.0.0.1:3000/webhooks", false)).toBeUndefined();
    expect(webhookUrlRefusal("http://localhost:3000/webhooks", false)).toBeUndefined();
    expect(webhookUrlRefusal("file:///etc/passwd", false)).toMatch(/http or https/);
    expect(webhookUrlRefusal("nope", false)).toMatch(/valid absolute URL/);
  });
});
