#!/usr/bin/env bash
# The programs `npm run bench:dnsperf` runs besides Node, installed from Debian's packages when
# missing: the load generator, CPU pinning, and the Go toolchain with miekg/dns for the Go peer
# (built in GOPATH mode from Debian's sources: no Go module proxy needed). knot, unbound and
# dnsdist are measured when installed, never installed here.
set -euo pipefail

missing=()
command -v dnsperf >/dev/null 2>&1 || missing+=(dnsperf)
command -v taskset >/dev/null 2>&1 || missing+=(util-linux)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
[ -d /usr/share/gocode/src/github.com/miekg/dns ] || missing+=(golang-github-miekg-dns-dev)
[ ${#missing[@]} -eq 0 ] && exit 0

packages="${missing[*]}"
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "the dnsperf benchmark needs these Debian packages: $packages (install them, or run it as root on Debian)" >&2
  exit 1
fi
echo "installing benchmark tools: $packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $packages >/dev/null
