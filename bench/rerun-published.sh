#!/usr/bin/env bash
# Reruns every figure the README publishes, each with the command its page in bench/results names, writing into
# bench/results (every page stamps itself: commit, date, CPU, cores, runtime, OS, command; bench/results/README.md).
# Hours in all (the soak alone is about 50 minutes, the perf tables about 10 minutes each): run it on a quiet machine,
# never inside `dotnet test`.
#
#   bench/rerun-published.sh --list                     the steps, in order, with what each writes
#   bench/rerun-published.sh [--dry-run] [STEP ...]     run the named steps (default: every step but the SpanNetty ones)
#   bench/rerun-published.sh --spannetty-feed DIR ...   also the SpanNetty steps (default: all of them when no step is
#                                                       named), building src/WebSocketCodec.SpanNetty.sln against the
#                                                       local SpanNetty feed DIR first (README, "SpanNetty")
#
# --dry-run prints each step's commands instead of running them. A step that fails stops the script (the pages of the
# steps before it are written). Pages that compare against older builds, record code since changed, or were written
# by hand are history, not figures to rerun: --list names them after the steps.
set -euo pipefail
cd "$(dirname "$0")/.."

perf='dotnet run -c Release --project bench/WebSocketCodec.PerfTest --'
r=bench/results
# name | spannetty (0/1) | what it writes | the commands (one a line, run from the repository's root)
steps=(
"benchmarks|0|$r/DecodeBenchmarks-report-github.md, EncodeBenchmarks-report-github.md, MaskingBenchmarks-report-github.md, Utf8Benchmarks-report-github.md, EchoBenchmarks-report-github.md, DeflateBenchmarks-report-github.md and their -report.csv|dotnet run -c Release --project bench/WebSocketCodec.Benchmarks -- --filter '*' --job short"
"perf-h1-plain|0|$r/perf-h1-plain.md, .json|$perf --variants all --payload 8,64,125,1000 --connections 1 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-h1-plain.md --json $r/perf-h1-plain.json"
"perf-h1-plain-100|0|$r/perf-h1-plain-100.md, .json|$perf --variants all --payload 8,64,125,1000 --connections 100 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-h1-plain-100.md --json $r/perf-h1-plain-100.json"
"perf-h1-tls|0|$r/perf-h1-tls.md, .json|$perf --tls --variants all --payload 8,64,125,1000 --connections 1 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-h1-tls.md --json $r/perf-h1-tls.json"
"perf-h1-tls-100|0|$r/perf-h1-tls-100.md, .json|$perf --tls --variants all --payload 8,64,125,1000 --connections 100 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-h1-tls-100.md --json $r/perf-h1-tls-100.json"
"perf-h2-plain|0|$r/perf-h2-plain.md, .json|$perf --h2 --variants all --payload 8,125 --connections 1,10 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-h2-plain.md --json $r/perf-h2-plain.json"
"perf-h2-plain-1stream|0|$r/perf-h2-plain-1stream.md, .json|$perf --h2 --variants all --payload 8,125 --connections 1 --seconds 3 --warmup 2 --repeat 5 --markdown $r/perf-h2-plain-1stream.md --json $r/perf-h2-plain-1stream.json"
"perf-h2-tls|0|$r/perf-h2-tls.md, .json|$perf --h2 --tls --variants all --payload 8,125 --connections 1,10 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-h2-tls.md --json $r/perf-h2-tls.json"
"perf-h1-window16|0|$r/perf-h1-window16.md, .json|$perf --window 16 --variants ours,ours-endpoint,aspnetcore,raw,raw-upgrade --payload 8,64,125,1000 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-h1-window16.md --json $r/perf-h1-window16.json"
"perf-h1-window2048|0|$r/perf-h1-window2048.md, .json|$perf --window 2048 --variants ours,ours-endpoint,aspnetcore,raw,raw-upgrade --payload 8,64,125,1000 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-h1-window2048.md --json $r/perf-h1-window2048.json"
"perf-h1-clientwebsocket|0|$r/perf-h1-clientwebsocket.md, .json|$perf --client clientwebsocket --variants ours,ours-endpoint-messages,aspnetcore --payload 8,125,1000 --connections 1 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-h1-clientwebsocket.md --json $r/perf-h1-clientwebsocket.json"
"perf-h1-alloc-10s|0|$r/perf-h1-alloc-10s.md, .json|$perf --variants ours,ours-bulk,ours-messages --payload 8,64,125 --connections 1 --seconds 10 --warmup 3 --markdown $r/perf-h1-alloc-10s.md --json $r/perf-h1-alloc-10s.json"
"deflate-perf-takeover|0|$r/deflate-perf-takeover.md, .json|$perf --deflate --variants ours-endpoint,aspnetcore --payload 64,1024,16384 --repeat 3 --seconds 5 --warmup 2 --markdown $r/deflate-perf-takeover.md --json $r/deflate-perf-takeover.json"
"deflate-perf-no-takeover|0|$r/deflate-perf-no-takeover.md, .json|$perf --deflate --no-context-takeover --variants ours-endpoint,aspnetcore --payload 64,1024,16384 --repeat 3 --seconds 5 --warmup 2 --markdown $r/deflate-perf-no-takeover.md --json $r/deflate-perf-no-takeover.json"
"deflate-memory-takeover|0|$r/deflate-memory-takeover.md, .json|$perf --deflate --memory --variants ours-endpoint,aspnetcore --payload 1024 --connections 1000,10000 --window 2 --seconds 6 --warmup 3 --repeat 2 --markdown $r/deflate-memory-takeover.md --json $r/deflate-memory-takeover.json"
"deflate-memory-no-takeover|0|$r/deflate-memory-no-takeover.md, .json|$perf --deflate --memory --no-context-takeover --variants ours-endpoint,aspnetcore --payload 1024 --connections 1000,10000 --window 2 --seconds 6 --warmup 3 --repeat 2 --markdown $r/deflate-memory-no-takeover.md --json $r/deflate-memory-no-takeover.json"
"deflate-level-fastest|0|$r/deflate-level-fastest.md, .json|$perf --deflate --deflate-level fastest --variants ours-endpoint,aspnetcore --payload 64,1024,16384 --seconds 5 --warmup 2 --repeat 3 --markdown $r/deflate-level-fastest.md --json $r/deflate-level-fastest.json"
"fuzz-10m|0|$r/fuzz-10m.md|dotnet run -c Release --project bench/WebSocketCodec.Fuzz -- --inputs 10000000 --seed 22 --markdown $r/fuzz-10m.md"
"afl-frames|0|$r/afl-frames.md (and the corpus in bench/WebSocketCodec.Fuzz/afl/corpus/frames)|bench/WebSocketCodec.Fuzz/afl/run.sh frames 20"
"afl-session|0|$r/afl-session.md (and the corpus in bench/WebSocketCodec.Fuzz/afl/corpus/session)|bench/WebSocketCodec.Fuzz/afl/run.sh session 20"
"afl-inflate|0|$r/afl-inflate.md (and the corpus in bench/WebSocketCodec.Fuzz/afl/corpus/inflate)|bench/WebSocketCodec.Fuzz/afl/run.sh inflate 20"
"afl-negotiation|0|$r/afl-negotiation.md (and the corpus in bench/WebSocketCodec.Fuzz/afl/corpus/negotiation)|bench/WebSocketCodec.Fuzz/afl/run.sh negotiation 20"
"soak-100m|0|$r/soak-100m.md, .state (a fresh run: the old state file is removed first)|rm -f $r/soak-100m.state
dotnet run -c Release --project bench/WebSocketCodec.Soak -- --frames 100000000 --seed 1 --segment 5000000 --state $r/soak-100m.state"
"soak-10m-driver|0|$r/soak-10m-driver.md, .state (the driver's first soak, issue 39: a fresh run)|rm -f $r/soak-10m-driver.state
dotnet run -c Release --project bench/WebSocketCodec.Soak -- --frames 10000000 --seed 2 --segment 2500000 --state $r/soak-10m-driver.state"
"scale-19k-after|0|$r/scale-19k-after.md, .json (against scale-19k.json, the run before the idle-memory work)|dotnet run -c Release --project bench/WebSocketCodec.Scale -- --websockets 19000 --client-processes 2 --hold 40 --variants ours-endpoint-messages,ours,raw-upgrade,aspnetcore --gc workstation,server --repeat 1 --before $r/scale-19k.json --markdown $r/scale-19k-after.md --json $r/scale-19k-after.json"
"echo-sample-19k|0|$r/echo-sample-19k.md|echo_sample 19000 40 2"
"broadcast-issue24-1000|0|$r/broadcast-issue24-1000.md, .csv|dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- --websockets 1000 --repeat 5 --variants group,sender-loop,aspnet-loop,group-fastpath --report $r/broadcast-issue24-1000"
"broadcast-issue24-10000|0|$r/broadcast-issue24-10000.md, .csv|dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- --websockets 10000 --repeat 3 --report $r/broadcast-issue24-10000"
"broadcast-issue24-stalled|0|$r/broadcast-issue24-stalled.md, .csv|dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- --variants group,group-fastpath,sender-loop,aspnet-loop --once sender-loop,aspnet-loop --stalled 0,10 --websockets 1000 --payloads 1024 --repeat 5 --report $r/broadcast-issue24-stalled"
"broadcast-burst-1000|0|$r/broadcast-burst-1000.md, .csv|dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- --burst 10 --websockets 1000 --payloads 64 --repeat 5 --report $r/broadcast-burst-1000"
"perf-peers|0|$r/perf-peers.md, .json|$perf --variants c-epoll,bun,lean,lean-messages,raw+tuned,ours+tuned,ours-endpoint-messages+tuned,ours-endpoint+tuned --payload 64,1000,16384 --connections 1,100 --repeat 5 --seconds 3 --warmup 1 --markdown $r/perf-peers.md --json $r/perf-peers.json"
"perf-peers-tls|0|$r/perf-peers-tls.md, .json|$perf --tls --variants bun,lean,lean-messages,ours+tuned,ours-endpoint-messages+tuned --payload 64,1000 --connections 1,100 --repeat 5 --seconds 3 --warmup 1 --markdown $r/perf-peers-tls.md --json $r/perf-peers-tls.json"
"scale-19k-peers|0|$r/scale-19k-peers.md, .json|dotnet run -c Release --project bench/WebSocketCodec.Scale -- --websockets 19000 --client-processes 2 --hold 30 --variants lean-messages,lean,bun,ours-endpoint-messages+tuned --gc workstation,workstation-gen0-4mib --repeat 3 --heap-types 16 --markdown $r/scale-19k-peers.md --json $r/scale-19k-peers.json"
"chat-burst-4000|0|$r/chat-burst-4000.md, .json|node bench/chat-burst/run.mjs --runs 10 --report $r/chat-burst-4000"
"broadcast-burst-1000-alloc|0|$r/broadcast-burst-1000-alloc.md, .csv|dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- --burst 10 --websockets 1000 --payloads 64 --repeat 1 --allocation-types --report $r/broadcast-burst-1000-alloc"
"broadcast-cluster|0|$r/broadcast-cluster.md, .csv|dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- cluster --websockets 1000 --payloads 64,1024 --rate 5 --seconds 10 --repeat 3 --report $r/broadcast-cluster"
"akka-pingpong|0|$r/akka-pingpong.md, .json, .csv|dotnet run -c Release --project bench/WebSocketCodec.Akka.PingPong -- --markdown $r/akka-pingpong.md"
"spannetty-benchmarks|1|$r/SpanNettyDecodeBenchmarks-report-github.md, SpanNettyEncodeBenchmarks-report-github.md, SpanNettyHttp2AdapterBenchmarks-report-github.md and their -report.csv|dotnet run -c Release --project bench/WebSocketCodec.SpanNetty.Benchmarks -p:WithSpanNetty=true \$SPANNETTY_SOURCES -- --filter '*'"
"perf-spannetty|1|$r/perf-spannetty.md, .json|$perf --variants spannetty --payload 8,64,125,1000 --connections 1 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-spannetty.md --json $r/perf-spannetty.json"
"perf-spannetty-libuv|1|$r/perf-spannetty-libuv.md, .json|$perf --transport libuv --variants ours-spannetty,spannetty-builtin,spannetty-raw --payload 8,64,125,1000 --connections 1 --seconds 3 --warmup 2 --repeat 3 --markdown $r/perf-spannetty-libuv.md --json $r/perf-spannetty-libuv.json"
"spannetty-h2-socket|1|$r/spannetty-h2-socket.md, .json|$perf --h2 --variants spannetty-h2,spannetty-h2-raw,ours-endpoint,raw-upgrade --payload 8,64,125,1000 --connections 1,10 --seconds 2 --warmup 2 --repeat 5 --transport socket --markdown $r/spannetty-h2-socket.md --json $r/spannetty-h2-socket.json"
"spannetty-h2-libuv|1|$r/spannetty-h2-libuv.md, .json|$perf --h2 --variants spannetty-h2,spannetty-h2-raw --payload 8,64,125,1000 --connections 1,10 --seconds 2 --warmup 2 --repeat 5 --transport libuv --markdown $r/spannetty-h2-libuv.md --json $r/spannetty-h2-libuv.json"
"spannetty-h2-tls-socket|1|$r/spannetty-h2-tls-socket.md, .json|$perf --h2 --tls --variants spannetty-h2,spannetty-h2-raw --payload 64,1000 --connections 1,10 --seconds 2 --warmup 2 --repeat 3 --transport socket --markdown $r/spannetty-h2-tls-socket.md --json $r/spannetty-h2-tls-socket.json"
"spannetty-h2-tls-libuv|1|$r/spannetty-h2-tls-libuv.md, .json|$perf --h2 --tls --variants spannetty-h2,spannetty-h2-raw --payload 64,1000 --connections 1,10 --seconds 2 --warmup 2 --repeat 3 --transport libuv --markdown $r/spannetty-h2-tls-libuv.md --json $r/spannetty-h2-tls-libuv.json"
"charts|0|$r/*-throughput.svg, *-latency.svg and scale-*-memory.svg (from the JSON above)|(cd bench/charts && npm ci && npm run render && npm run render-pingpong && npm run render-scale)"
)

# Pages no step makes: they compare against older builds, record a state of the code since changed, or were written
# by hand from the pages above (--list names them, so every page in bench/results is accounted for).
history=(
"fuzz-issue22.md|the first 10 M fuzz run (four targets, no model oracle) and the bugs it found (issue 22)"
"perf-h1-noloss-issue21.md|against a build of 41f864a (--baseline)"
"perf-h1-noloss-issue22.md|against a build of 48430c3 (--baseline)"
"perf-h1-noloss-issue23.md|against a build of 578aa1c (--baseline)"
"perf-issue24-noloss.md|against the build before issue 24 (--baseline)"
"scale-19k.md|the run before the idle-memory work (scale-19k-after compares with it)"
"spannetty-h2-socket-before-coalescer.md|SpanNetty HTTP/2 before Http2WriteCoalescer (c6f629c)"
"spannetty-h2-libuv-before-coalescer.log|SpanNetty HTTP/2 on libuv before Http2WriteCoalescer (c6f629c)"
"spannetty-h2-libuv-gather-only.log|SpanNetty HTTP/2 on libuv with the gather-only coalescer (7ce356b)"
"spannetty-h2-tls-fixed-socket.md|SpanNetty HTTP/2 over TLS after the TLS output fix (measured at 7195547), the check beside the 3de665d page"
"spannetty-h2-tls-fixed-libuv.md|SpanNetty HTTP/2 over TLS on libuv after the TLS output fix (measured at 7195547), the check beside the 3de665d page"
"perf-lean-offloop-noloss.md|the lean transport's coalesced off-loop flushes against a build of main (--baseline)"
"broadcast-burst-lean-offloop.md|the lean transport's coalesced off-loop flushes against the build before (A/B, written by hand from six runs)"
"broadcast-burst-4000-budget.md|the broadcast budget against main at 4,000 B (A/B, written by hand from six runs)"
"deflate-summary.md|written by hand from the deflate pages"
"spannetty-h2-summary.md|written by hand from the spannetty-h2 pages"
)

# The echo sample prints its page; this wraps it with the stamp block (the same fields the tools write, see
# bench/Shared/ResultsStamp.cs; a shell script cannot link that file).
echo_sample() {
  local out=$r/echo-sample-$(( $1 / 1000 ))k.md dirty=""
  # as ResultsStamp.CurrentCommit: changes outside bench/results and the AFL corpus (what earlier steps wrote) make it dirty
  [ -z "$(git status --porcelain --untracked-files=no -- ':(top)' ':(top,exclude)bench/results' ':(top,exclude)bench/WebSocketCodec.Fuzz/afl/corpus')" ] || dirty=" (with uncommitted changes)"
  {
    echo "# samples/EchoServer with no flags, $1 websockets (the scale tool's client processes)"
    echo
    echo "<!-- stamp: where this was measured (bench/results/README.md) -->"
    echo "- commit: $(git rev-parse --short HEAD)$dirty"
    echo "- date: $(date -u '+%Y-%m-%d %H:%M') UTC"
    echo "- cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    echo "- cores: $(nproc)"
    echo "- runtime: .NET $(dotnet --list-runtimes | awk '/Microsoft.NETCore.App/ {v=$2} END {print v}')"
    echo "- os: $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "- command: \`bench/WebSocketCodec.Scale/echo-sample.sh $*\`"
    echo
    echo '```'
    bench/WebSocketCodec.Scale/echo-sample.sh "$@"
    echo '```'
  } >"$out.tmp"
  mv "$out.tmp" "$out"
}

list=0 dry=0 feed="" chosen=()
while [ $# -gt 0 ]; do
  case "$1" in
    --list) list=1 ;;
    --dry-run) dry=1 ;;
    --spannetty-feed) feed=$(cd "${2:?--spannetty-feed needs a folder}" && pwd); shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *) chosen+=("$1") ;;
  esac
  shift
done

names=()
for step in "${steps[@]}"; do names+=("${step%%|*}"); done
for name in "${chosen[@]}"; do
  [[ " ${names[*]} " == *" $name "* ]] || { echo "no step '$name' (see --list)" >&2; exit 2; }
done

if [ $list -eq 1 ]; then
  for step in "${steps[@]}"; do
    IFS='|' read -r name spannetty writes _ <<<"$step"
    printf '%-28s %-10s %s\n' "$name" "$([ "$spannetty" = 1 ] && echo spannetty)" "$writes"
  done
  for page in "${history[@]}"; do
    printf '%-28s %-10s %s\n' "(no step)" "history" "$r/${page%%|*}: ${page#*|}"
  done
  exit 0
fi

export SPANNETTY_SOURCES=""
if [ -n "$feed" ]; then
  SPANNETTY_SOURCES="-p:RestoreAdditionalProjectSources=$feed"
fi

selected() { # name spannetty
  if [ ${#chosen[@]} -gt 0 ]; then [[ " ${chosen[*]} " == *" $1 "* ]]; else [ "$2" = 0 ] || [ -n "$feed" ]; fi
}

built_spannetty=0
for step in "${steps[@]}"; do
  IFS='|' read -r name spannetty writes commands <<<"$step"
  commands=${step#*|*|*|}
  selected "$name" "$spannetty" || continue
  if [ "$spannetty" = 1 ] && [ -z "$feed" ]; then
    echo "$name: a SpanNetty step needs --spannetty-feed DIR" >&2; exit 2
  fi
  echo "=== $name -> $writes"
  if [ "$spannetty" = 1 ] && [ $built_spannetty = 0 ]; then
    build="dotnet build src/WebSocketCodec.SpanNetty.sln -c Release -p:WithSpanNetty=true $SPANNETTY_SOURCES"
    if [ $dry = 1 ]; then echo "$build"; else eval "$build"; fi
    built_spannetty=1
  fi
  while IFS= read -r command; do
    if [ $dry = 1 ]; then
      echo "${command//\$SPANNETTY_SOURCES/$SPANNETTY_SOURCES}"
    else
      echo "+ $command"
      eval "$command"
    fi
  done <<<"$commands"
done
