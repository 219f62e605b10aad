#!/usr/bin/env bash
# ctest tls_bench_smoke: `cfx-bench gateway --tls` and `cfx-bench fix --tls`
# run over the TLS listeners with the run's own certificates, every order
# acknowledged, and report the TLS/plaintext ratio and the handshakes.
# Usage: tls_bench_test.sh CFX_BENCH
set -euo pipefail
bench=$1
fail() { echo "tls_bench_test: $*" >&2; exit 1; }
expect() {  # expect NAME TEXT NEEDLE
  [[ $2 == *"$3"* ]] || fail "$1: no $3 in: $2"
}

out=$("$bench" gateway --tls --smoke --json -q) || fail "gateway --tls exited $?"
expect gateway "$out" '"workload":"gateway_tls"'
expect gateway "$out" '"tls_ratio":'
expect gateway "$out" '"plaintext":{"workload":"gateway","transport":"plaintext"'
expect gateway "$out" '"tls":{"workload":"gateway","transport":"tls"'
# 4 logged-on connections and the smoke handshake phase's 20.
expect gateway "$out" '"handshake_ns":{"count":24,'
verified=$(grep -o '"verified":true' <<< "$out" | wc -l)
[[ $verified -eq 2 ]] || fail "gateway: $verified of 2 transports verified: $out"

out=$("$bench" fix --tls --smoke --json -q --target gateway) ||
  fail "fix --tls exited $?"
expect fix "$out" '"gateway_tls":{'
expect fix "$out" '"tls_ratio":'
expect fix "$out" '"handshake_ns":{"count":4,'
expect fix "$out" '"verified":true'
echo "tls_bench_test: gateway and fix over TLS verified"
