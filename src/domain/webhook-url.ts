import { isIPv4, isIPv6 } from "node:net";

/**
 * Where webhooks may be sent (docs/reference/contract.md#webhooks; issue 3). In production a webhook URL is
 * https and reaches a public address only: never loopback, private, link-local, CGNAT, multicast,
 * reserved or cloud metadata addresses. The URL is checked when it is registered and every address
 * its host resolves to is checked again at delivery. Sandbox accepts any http(s) URL, so
 * http://127.0.0.1:3000/hook works on a laptop.
 */

type Range = readonly [network: string, prefixLength: number, label: string];

// Cloud metadata endpoints first: their label is the more useful answer.
const ipv4Forbidden: readonly Range[] = [
  ["169.254.169.254", 32, "cloud metadata"],
  ["169.254.170.2", 32, "cloud metadata"],
  ["100.100.100.200", 32, "cloud metadata"],
  ["168.63.129.16", 32, "cloud metadata"],
  ["192.0.0.192", 32, "cloud metadata"],
  ["0.0.0.0", 8, "this network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

const ipv6Forbidden: readonly Range[] = [
  ["fd00:ec2::254", 128, "cloud metadata"],
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::", 96, "IPv4-compatible"],
  ["64:ff9b:1::", 48, "local-use NAT64"],
  ["100::", 64, "discard"],
  ["2001::", 32, "Teredo"],
  ["2001:10::", 28, "reserved"],
  ["2001:20::", 28, "reserved"],
  ["2001:db8::", 32, "documentation"],
  ["fc00::", 7, "unique local (private)"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];

// Host names that only ever mean something inside a network.
const internalSuffixes = [".localhost", ".local", ".internal", ".home.arpa", ".localdomain", ".lan"];

/**
 * Why an IP address may not receive webhooks in production (e.g. "loopback"), or undefined when it
 * is a public address. IPv4 embedded in IPv6 (mapped, translated, NAT64, 6to4) is judged as IPv4.
 */
export function forbiddenAddress(address: string): string | undefined {
  const ip = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv4(ip)) return rangeOf(ipv4Bytes(ip), ipv4Forbidden);
  if (!isIPv6(ip)) return "not an IP address";
  const bytes = ipv6Bytes(ip);
  const embedded = embeddedIpv4(bytes);
  if (embedded) return rangeOf(embedded, ipv4Forbidden);
  const reserved = rangeOf(bytes, ipv6Forbidden);
  if (reserved) return reserved;
  // Only global unicast (2000::/3) is routable on the internet.
  return (bytes[0] & 0xe0) === 0x20 ? undefined : "not global unicast";
}

/**
 * Why a webhook URL is refused in this mode, or undefined when it is accepted. Registration calls
 * this; delivery calls it again and then checks each resolved address with `forbiddenAddress`.
 */
export function webhookUrlRefusal(raw: string, publicOnly: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "webhook_url is not a valid absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "webhook_url must be an http or https URL";
  if (!publicOnly) return undefined;
  if (url.protocol !== "https:") return "webhook_url must use https in production";
  if (url.username || url.password) return "webhook_url must not contain credentials";
  // WHATWG parsing already turned decimal, octal and hex IPv4 forms into dotted quads.
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[") || isIPv4(host)) {
    const reason = forbiddenAddress(host);
    return reason && `webhook_url must not point at a ${reason} address (${host})`;
  }
  if (host === "localhost" || internalSuffixes.some((suffix) => host.endsWith(suffix))) {
    return `webhook_url must not point at an internal host name (${host})`;
  }
  if (!host.includes(".")) return `webhook_url needs a fully qualified public host name, not ${host}`;
  return undefined;
}

function rangeOf(bytes: Uint8Array, ranges: readonly Range[]): string | undefined {
  for (const [network, prefixLength, label] of ranges) {
    const base = network.includes(":") ? ipv6Bytes(network) : ipv4Bytes(network);
    if (base.length === bytes.length && samePrefix(bytes, base, prefixLength)) return label;
  }
  return undefined;
}

function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const mask = 0x80 >> (i % 8);
    if ((a[i >> 3] & mask) !== (b[i >> 3] & mask)) return false;
  }
  return true;
}

/** The IPv4 address an IPv6 address carries, for the forms that route to it. */
function embeddedIpv4(bytes: Uint8Array): Uint8Array | undefined {
  const zero = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated)
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  if (zero(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(10, 12)) return bytes.slice(12);
  // 64:ff9b::/96 (NAT64 well-known prefix)
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12))
    return bytes.slice(12);
  // 2002::/16 (6to4)
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  return undefined;
}

function ipv4Bytes(ip: string): Uint8Array {
  return Uint8Array.from(ip.split(".").map(Number));
}

function ipv6Bytes(ip: string): Uint8Array {
  let text = ip;
  // A dotted IPv4 tail stands for the last two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = ipv4Bytes(tail[1]);
    text = text.slice(0, tail.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::");
  const headGroups = head ? head.split(":") : [];
  const restGroups = rest ? rest.split(":") : [];
  const groups =
    rest === undefined
      ? headGroups
      : [...headGroups, ...Array(8 - headGroups.length - restGroups.length).fill("0"), ...restGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}
