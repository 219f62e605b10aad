#!/usr/bin/env bash
# deploy/run with --data-dir: the demo certificates are made in that data dir
# (not in var/cfx), the exchange serves them on its TLS listeners, and
# SIGTERM stops it with status 0.
#
#   tests/deploy/run_test.sh --server build/bin/cfx-exchanged
#
# Runs deploy/run with CFX_EXCHANGED=<server> (no build), --clock simulated
# and every port ephemeral (read from the "listening: ..." line). Each wait is
# bounded (WAIT_S); the server is killed on every path.
set -euo pipefail
repo=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
server=
while (($# > 0)); do
  case $1 in
    --server) server=$(readlink -f "$2"); shift 2 ;;
    *) echo "usage: $0 --server <cfx-exchanged>" >&2; exit 2 ;;
  esac
done
[[ -x $server ]] || { echo "run_test: FAIL: no cfx-exchanged at '$server'" >&2; exit 1; }
WAIT_S=60

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cfx-deploy-run-XXXXXX")
pid=
cleanup() {
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "run_test: FAIL: $*" >&2
  echo "run_test: deploy/run printed:" >&2
  sed 's/^/  | /' "$tmp/log" >&2 || true
  exit 1
}

# A relative --data-dir is taken from where deploy/run is called.
cd "$tmp"
data=$tmp/data
var_tls_before=no
[[ -e $repo/var/cfx/tls ]] && var_tls_before=yes
mkfifo out
CFX_EXCHANGED=$server "$repo/deploy/run" --data-dir data --clock simulated \
  --fix-port 0 --protobuf-port 0 --http-port 0 \
  --fix-tls-port 0 --protobuf-tls-port 0 --https-port 0 >out 2>&1 &
pid=$!
exec 3<out
: >log
listening=
while IFS= read -r -t "$WAIT_S" -u 3 line; do
  printf '%s\n' "$line" >>log
  if [[ $line == *"listening: "* ]]; then
    listening=$line
    break
  fi
done
[[ -n $listening ]] || fail "no \"listening: ...\" line within $WAIT_S s"

# The certificates are in the given data dir, private.
for f in ca.crt ca.key server.crt server.key; do
  [[ -f $data/tls/$f ]] || fail "no $data/tls/$f"
  mode=$(stat -c %a "$data/tls/$f")
  [[ $mode == 600 ]] || fail "$data/tls/$f has mode $mode, not 600"
done
[[ $(stat -c %a "$data/tls") == 700 ]] || fail "$data/tls is not 0700"
if [[ $var_tls_before == no && -e $repo/var/cfx/tls ]]; then
  fail "deploy/run --data-dir made $repo/var/cfx/tls"
fi
grep -q "demo CA $data/tls/ca.crt" log || fail "the banner does not name $data/tls/ca.crt"

port_of() {
  local m
  m=$(grep -oE "$1 [0-9.]+:[0-9]+" <<<"$listening" | head -n 1) ||
    fail "no \"$1 <addr>:<port>\" in: $listening"
  echo "${m##*:}"
}
fix_tls=$(port_of "fix TLS")
pb_tls=$(port_of "protobuf TLS")
https=$(port_of "https")

# Every TLS listener presents exactly the certificate in the data dir, and it
# verifies against the data dir's demo CA.
want=$(openssl x509 -in "$data/tls/server.crt" -noout -fingerprint -sha256)
for port in "$fix_tls" "$pb_tls" "$https"; do
  timeout "$WAIT_S" openssl s_client -connect "127.0.0.1:$port" \
    -CAfile "$data/tls/ca.crt" -verify_return_error -verify_ip 127.0.0.1 \
    </dev/null >s_client.out 2>s_client.err ||
    fail "openssl s_client to port $port: $(cat s_client.err)"
  got=$(openssl x509 -in s_client.out -noout -fingerprint -sha256 2>/dev/null) ||
    fail "port $port presented no certificate"
  [[ $got == "$want" ]] || fail "port $port presents $got, not $data/tls/server.crt ($want)"
done
body=$(timeout "$WAIT_S" curl -sS --cacert "$data/tls/ca.crt" \
  "https://localhost:$https/healthz") || fail "curl --cacert over HTTPS failed"
[[ $body == *'"status":"ok"'* ]] || fail "HTTPS /healthz answered: $body"

kill -TERM "$pid"
while IFS= read -r -t "$WAIT_S" -u 3 line; do printf '%s\n' "$line" >>log; done
status=0
wait "$pid" || status=$?
pid=
[[ $status == 0 ]] || fail "cfx-exchanged exited with status $status after SIGTERM"
echo "run_test: PASS: deploy/run --data-dir made and served $data/tls (fix TLS $fix_tls, protobuf TLS $pb_tls, https $https)"
