import { describe, expect, it } from "vitest";
import { clientAddressBucket } from "./client-address.js";

describe("clientAddressBucket", () => {
  it("counts every loopback address of a host as one", () => {
    for (const address of ["127.0.0.1", "127.0.0.2", "127.255.3.9", "::1", "::ffff:127.0.0.5"])
      expect(clientAddressBucket(address)).toBe("loopback");
  });

  it("counts an IPv4 address as itself, mapped or not", () => {
    expect(clientAddressBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(clientAddressBucket("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientAddressBucket("203.0.113.8")).not.toBe(clientAddressBucket("203.0.113.7"));
  });

  it("counts an IPv6 address by its /64", () => {
    const a = clientAddressBucket("2001:db8:1:2:aaaa::1");
    expect(a).toBe("2001:db8:1:2::/64");
    expect(clientAddressBucket("2001:0db8:0001:0002:ffff:1:2:3")).toBe(a);
    expect(clientAddressBucket("2001:db8:1:3::1")).not.toBe(a);
    expect(clientAddressBucket("2001:db8::1")).toBe("2001:db8:0:0::/64");
  });
});
