package store

import (
	"fmt"
	"net/netip"
	"strings"
)

// ParseCIDR accepts a range ("203.0.113.0/24", "2001:db8::/48") or a
// single address ("203.0.113.7"), and returns it masked, with IPv4-mapped
// IPv6 addresses read as IPv4 so one ban covers both spellings.
func ParseCIDR(s string) (netip.Prefix, error) {
	if len(s) > 64 {
		return netip.Prefix{}, fmt.Errorf("invalid address range: length %d", len(s))
	}
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("invalid address range: %w", err)
		}
		a = a.Unmap().WithZone("")
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("invalid address range: %w", err)
	}
	if a := p.Addr(); a.Is4In6() {
		bits := p.Bits() - 96
		if bits < 0 {
			return netip.Prefix{}, fmt.Errorf("invalid address range %s: IPv4-mapped prefix shorter than /96", p)
		}
		p = netip.PrefixFrom(a.Unmap(), bits)
	}
	return p.Masked(), nil
}
