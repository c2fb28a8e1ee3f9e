#!/usr/bin/env bash
# The capstone server checked with the real redis-cli: PING, SET/GET with expiry,
# pipelined input, SUBSCRIBE/PUBLISH. Uses the debug binary the tests phase built;
# installs Debian's redis-tools when redis-cli is missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fail() {
  echo "redis-cli phase: $*"
  exit 1
}

bin=target/debug/capstone-redis
[ -x "$bin" ] || fail "$bin is missing: the tests phase builds it (cargo test --workspace --all-features)"

if ! command -v redis-cli >/dev/null 2>&1; then
  echo "redis-cli not found: installing Debian's redis-tools"
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-tools || true
  fi
  command -v redis-cli >/dev/null 2>&1 ||
    fail "redis-cli could not be had ('apt-get install -y redis-tools' failed); it is needed to check the server with the real client"
fi
redis-cli --version

work=$(mktemp -d)
"$bin" --port 0 >"$work/server.out" 2>"$work/server.err" &
server=$!
subscriber=
cleanup() {
  # Either may have exited already: a failed kill is no failure.
  if [ -n "$subscriber" ]; then kill "$subscriber" 2>/dev/null || true; fi
  kill "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The server prints its address once it accepts (bounded wait).
for _ in $(seq 100); do
  grep -q '^listening on ' "$work/server.out" && break
  sleep 0.1
done
port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/server.out")
[ -n "$port" ] || fail "the server printed no address: $(cat "$work/server.out" "$work/server.err")"

cli() { timeout 10 redis-cli -p "$port" "$@"; }
expect() {
  local want=$1 got
  shift
  got=$(cli "$@") || fail "redis-cli $* failed"
  [ "$got" = "$want" ] || fail "redis-cli $*: expected '$want', got '$got'"
  echo "redis-cli -p PORT $* -> ${got:-(nil)}"
}

expect PONG ping
expect OK set greeting hello EX 100
expect hello get greeting
ttl=$(cli ttl greeting)
[ "$ttl" -ge 1 ] && [ "$ttl" -le 100 ] || fail "ttl greeting: expected 1..100, got '$ttl'"
echo "redis-cli -p PORT ttl greeting -> $ttl"
expect OK set short lived PX 100
sleep 0.3 # Past the deadline: the key must be gone, whether its timer ran or not.
expect "" get short
expect -2 ttl short

# Pipelined: a thousand INCRs in RESP through --pipe, then the counter.
resp() {
  printf '*%d\r\n' "$#"
  for part in "$@"; do printf '$%d\r\n%s\r\n' "${#part}" "$part"; done
}
for _ in $(seq 1000); do resp INCR counter; done >"$work/pipe.resp"
cli --pipe <"$work/pipe.resp" >"$work/pipe.out" 2>&1 || fail "redis-cli --pipe: $(cat "$work/pipe.out")"
grep -q 'errors: 0, replies: 1000' "$work/pipe.out" || fail "redis-cli --pipe: $(cat "$work/pipe.out")"
echo "redis-cli -p PORT --pipe (1000 INCR) -> $(tail -1 "$work/pipe.out")"
expect 1000 get counter

# SUBSCRIBE in the background (bounded), PUBLISH until it is counted.
timeout 10 redis-cli -p "$port" subscribe news >"$work/sub.out" 2>&1 &
subscriber=$!
receivers=0
for _ in $(seq 100); do
  receivers=$(cli publish news "hello subscribers")
  [ "$receivers" = 1 ] && break
  sleep 0.1
done
[ "$receivers" = 1 ] || fail "publish news never reached the subscriber"
for _ in $(seq 100); do
  grep -q 'hello subscribers' "$work/sub.out" && break
  sleep 0.1
done
grep -q 'hello subscribers' "$work/sub.out" || fail "the subscriber got: $(cat "$work/sub.out")"
echo "redis-cli -p PORT subscribe news <- $(tr '\n' ' ' <"$work/sub.out")"

# Graceful shutdown: SIGTERM, exit 0, and the report.
kill -TERM "$server"
status=0
wait "$server" || status=$?
[ "$status" = 0 ] || fail "the server exited $status: $(cat "$work/server.err")"
# The subscriber was one of the connections the shutdown closed.
wait "$subscriber" || true
subscriber=
grep -q '^shutdown: ' "$work/server.out" || fail "no shutdown report: $(cat "$work/server.out")"
grep '^shutdown: ' "$work/server.out"
