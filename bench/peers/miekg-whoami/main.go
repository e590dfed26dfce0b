// The Go peer for `npm run bench:dnsperf`: a whoami responder written the way a miekg/dns user
// writes one (the library CoreDNS is built on), answering every question with the client's
// address (A) and port (SRV in the additional section), as CoreDNS's whoami plugin does.
// Built by bench/dnsperf.ts in GOPATH mode against Debian's golang-github-miekg-dns-dev.
// Prints "PORT <n>" once listening on 127.0.0.1.
package main

import (
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/miekg/dns"
)

func whoami(w dns.ResponseWriter, r *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	if len(r.Question) == 1 {
		name := strings.ToLower(r.Question[0].Name)
		addr := w.RemoteAddr().(*net.UDPAddr)
		m.Extra = []dns.RR{
			&dns.A{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeA, Class: dns.ClassINET}, A: addr.IP.To4()},
			&dns.SRV{Hdr: dns.RR_Header{Name: "_udp." + name, Rrtype: dns.TypeSRV, Class: dns.ClassINET}, Port: uint16(addr.Port), Target: "."},
		}
	}
	w.WriteMsg(m)
}

func main() {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server := &dns.Server{PacketConn: conn, Handler: dns.HandlerFunc(whoami)}
	server.NotifyStartedFunc = func() { fmt.Printf("PORT %d\n", conn.LocalAddr().(*net.UDPAddr).Port) }
	if err := server.ActivateAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
