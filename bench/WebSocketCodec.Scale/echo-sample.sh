#!/usr/bin/env bash
# The demo server as a newcomer runs it (samples/EchoServer with no flags: the library's defaults, port 8080) under
# many websockets at once, opened and held by the scale tool's own client processes (its hidden `client` command):
# how many open, how many fail and why, the echoes during the hold, the close exchanges, and the server's RSS per
# websocket (VmRSS with every websocket open minus VmRSS before, no forced collection: the sample takes no commands).
# Usage: bench/WebSocketCodec.Scale/echo-sample.sh [WEBSOCKETS=19000] [HOLD_SECONDS=40] [CLIENT_PROCESSES=2]
# Needs ulimit -n above WEBSOCKETS + 100 for the server and above WEBSOCKETS / CLIENT_PROCESSES for each client.
set -euo pipefail
cd "$(dirname "$0")/../.."
total=${1:-19000}
hold=${2:-40}
processes=${3:-2}
share=$(( (total + processes - 1) / processes ))
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

for project in samples/EchoServer bench/WebSocketCodec.Scale; do
  dotnet build -c Release "$project" -v q -nologo | grep -E ': error ' && exit 1
done
echo "commit $(git rev-parse --short HEAD), $(date -u +%FT%TZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(dotnet --version)"
echo "command: $0 $total $hold $processes"

dotnet samples/EchoServer/bin/Release/net10.0/EchoServer.dll >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 200); do grep -q 'listening on' "$work/server.log" && break; sleep 0.1; done
grep 'listening on' "$work/server.log"
rss() { awk '/VmRSS/ {print $2}' "/proc/$server/status"; }
baseline=$(rss)

# One source address per 5,000 websockets (127.0.0.2, ...), so the client side never runs out of ports.
next=2
for p in $(seq 1 "$processes"); do
  count=$(( p < processes ? share : total - share * (processes - 1) ))
  sources=""
  for _ in $(seq 1 $(( (count + 4999) / 5000 ))); do sources="${sources:+$sources,}127.0.0.$next"; next=$((next + 1)); done
  mkfifo "$work/in$p"
  dotnet bench/WebSocketCodec.Scale/bin/Release/net10.0/WebSocketCodec.Scale.dll client --port 8080 --websockets "$count" \
    --sources "$sources" --seed "$p" --path /echo <"$work/in$p" >"$work/out$p" 2>&1 &
  exec {fd}>"$work/in$p"
  eval "in$p=$fd"
done

wait_for() { # event, seconds
  for _ in $(seq 1 $(( $2 * 10 ))); do
    local done=0
    for p in $(seq 1 "$processes"); do grep -q "\"event\":\"$1\"" "$work/out$p" && done=$((done + 1)); done
    [ "$done" -eq "$processes" ] && return 0
    sleep 0.1
  done
  echo "timed out waiting for $1"; cat "$work"/out*; return 1
}
say() { for p in $(seq 1 "$processes"); do eval "echo $1 >&\$in$p"; done; }

wait_for connected 300
grep -h '"event":"connected"' "$work"/out* | sed 's/"handshakes":\[[^]]*\]\(,\[[^]]*\]\)*\],//'
say start; sleep "$hold"; say stop
wait_for held 120
open_rss=$(rss)
grep -h '"event":"held"' "$work"/out* | sed 's/"roundTrips":\[[^]]*\]\(,\[[^]]*\]\)*\],//'
say close
wait_for closed 300
grep -h '"event":"closed"' "$work"/out*
opened=$(grep -h '"event":"held"' "$work"/out* | sed 's/.*"open":\([0-9]*\).*/\1/' | paste -sd+ | bc)
[ "$opened" -gt 0 ] || { echo "no websocket opened"; exit 1; }
echo "server RSS: baseline $((baseline / 1024)) MiB, $opened websockets open $((open_rss / 1024)) MiB: $(( (open_rss - baseline) / opened )) KiB per websocket; after the close $(( $(rss) / 1024 )) MiB"
grep -c ' 503 \|refused' "$work/server.log" || true
