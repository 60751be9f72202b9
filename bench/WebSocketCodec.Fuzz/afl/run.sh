#!/usr/bin/env bash
# Coverage-guided fuzzing of one target of bench/WebSocketCodec.Fuzz with AFL++ (Debian) and SharpFuzz (NuGet).
#
#   bench/WebSocketCodec.Fuzz/afl/run.sh TARGET [MINUTES]     (MINUTES defaults to 20)
#
# Publishes the fuzz program, instruments the library assemblies in the published copy (sharpfuzz, from the local
# tool manifest .config/dotnet-tools.json), seeds afl-fuzz from the committed corpus afl/corpus/TARGET (or, when there
# is none yet, from the target's in-process seed corpus), fuzzes for MINUTES, minimises the queue with afl-cmin into
# afl/corpus/TARGET, copies any crashes and hangs to afl/findings/TARGET, and writes bench/results/afl-TARGET.md.
# Everything runs at nice -n 10. Installs what is missing: afl++ through apt-get, the dotnet tools from the manifest.
# Scratch space: $AFL_WORK (default ~/.cache/wsc-afl/TARGET; afl-cmin refuses to run under /tmp).
set -euo pipefail

target="${1:?usage: run.sh TARGET [MINUTES]}"
minutes="${2:-20}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
work="${AFL_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/wsc-afl/$target}"
corpus="$here/corpus/$target"
findings="$here/findings/$target"
results="$repo/bench/results/afl-$target.md"
timeout_ms="${AFL_TIMEOUT_MS:-5000}"

if ! command -v afl-fuzz >/dev/null || ! command -v afl-cmin >/dev/null; then
  echo "== installing afl++ (Debian)"
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y afl++
fi

cd "$repo"
echo "== dotnet tool restore (sharpfuzz)"
dotnet tool restore >/dev/null

echo "== publishing the fuzz program to $work/bin"
rm -rf "$work"
mkdir -p "$work"
nice -n 10 dotnet publish -c Release bench/WebSocketCodec.Fuzz -o "$work/bin" -v quiet -nologo
# afl-cmin wants the target as a path to an executable file, so the host's real path rather than a link on PATH.
harness=("$(readlink -f "$(command -v dotnet)")" "$work/bin/WebSocketCodec.Fuzz.dll" --target "$target" --afl)

# The library assemblies (WebSocketCodec.dll, and WebSocketCodec.Akka.dll and the like when a target uses them):
# every WebSocketCodec*.dll but the fuzz program itself, whose oracles should add no edges.
for dll in "$work"/bin/WebSocketCodec*.dll; do
  case "$(basename "$dll")" in
    WebSocketCodec.Fuzz.dll) ;;
    *) echo "== instrumenting $(basename "$dll")"; dotnet tool run sharpfuzz "$dll" ;;
  esac
done

mkdir -p "$work/in"
if [ -d "$corpus" ] && [ -n "$(ls -A "$corpus")" ]; then
  cp "$corpus"/* "$work/in/"
  echo "== seeds: $(ls "$work/in" | wc -l) files of the committed corpus $corpus"
else
  nice -n 10 dotnet "$work/bin/WebSocketCodec.Fuzz.dll" --target "$target" --dump-seeds "$work/in"
fi

# dotnet is not instrumented itself (the instrumented assemblies are loaded into it), so the binary check is off;
# the fork server of a .NET process needs more than the default 10 s to come up on a busy machine; no core binding on a
# shared VM; no curses UI in a log.
export AFL_SKIP_BIN_CHECK=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_NO_UI=1 AFL_FORKSRV_INIT_TMOUT=60000
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CRASHES=1
command=(afl-fuzz -i "$work/in" -o "$work/out" -t "$timeout_ms" -m none -V "$((minutes * 60))" -- "${harness[@]}")
echo "== ${command[*]}"
started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
nice -n 10 "${command[@]}" > "$work/afl-fuzz.log" 2>&1 || { tail -40 "$work/afl-fuzz.log"; exit 1; }
stats="$work/out/default/fuzzer_stats"
stat() { awk -F' *: *' -v k="$1" '$1 == k { print $2 }' "$stats"; }
# plot_data's last column is edges_found, its first the seconds since the start.
last_edge() { awk -F', ' 'NR > 1 && $NF + 0 > best { best = $NF + 0; t = $1 } END { print t + 0 }' "$work/out/default/plot_data"; }

echo "== minimising the queue with afl-cmin into $corpus"
nice -n 10 afl-cmin -i "$work/out/default/queue" -o "$work/cmin" -t "$timeout_ms" -m none -- "${harness[@]}" > "$work/afl-cmin.log" 2>&1 \
  || { tail -40 "$work/afl-cmin.log"; exit 1; }
rm -rf "$corpus"
mkdir -p "$corpus"
# Names by content (AFL's id:...,src:... names hold colons, which some file systems refuse).
for f in "$work/cmin"/*; do
  cp "$f" "$corpus/$(sha1sum "$f" | cut -c1-16)"
done

found=0
for kind in crashes hangs; do
  for f in "$work/out/default/$kind"/id*; do
    [ -e "$f" ] || continue
    mkdir -p "$findings"
    cp "$f" "$findings/$kind-$(sha1sum "$f" | cut -c1-16)"
    found=$((found + 1))
  done
done

# The stamp every results page carries (bench/results/README.md), written by the same code as the other tools' pages.
stamp="$(cd "$repo" && dotnet "$work/bin/WebSocketCodec.Fuzz.dll" --stamp "bench/WebSocketCodec.Fuzz/afl/run.sh $target $minutes")"
cat > "$results" <<MD
# AFL++ coverage-guided fuzzing: $target

$stamp

| | |
|---|---|
| Started (UTC) | $started |
| Tools | $(afl-fuzz -h 2>&1 | grep -o 'afl-fuzz++[0-9a-z.]*' | head -1) (Debian afl++ $(dpkg-query -W -f='${Version}' afl++ 2>/dev/null || echo '?')), SharpFuzz $(sed -n 's/.*"SharpFuzz" Version="\([^"]*\)".*/\1/p' Directory.Packages.props), $(dotnet --version | sed 's/^/.NET SDK /') |
| Command | \`bench/WebSocketCodec.Fuzz/afl/run.sh $target $minutes\` |
| afl-fuzz | \`${command[*]/#$work/\$AFL_WORK}\` at nice -n 10 |
| Minutes | $minutes (run_time $(stat run_time) s) |
| Seeds | $(ls "$work/in" | wc -l) files |
| Executions | $(stat execs_done) ($(stat execs_per_sec) /s) |
| Edges | $(stat edges_found) of $(stat total_edges) map entries (bitmap_cvg $(stat bitmap_cvg)); the last new edge after $(last_edge) s, the last new queue entry after $(( $(stat last_find) - $(stat start_time) )) s |
| Stability | $(stat stability) |
| Queue | $(stat corpus_count) entries; afl-cmin kept $(ls "$corpus" | wc -l) (committed in \`bench/WebSocketCodec.Fuzz/afl/corpus/$target\`) |
| Crashes | $(stat saved_crashes) |
| Hangs | $(stat saved_hangs) |

Crashes are failed oracles or undocumented exceptions (the same checks as the in-process fuzzer); each is copied to
\`bench/WebSocketCodec.Fuzz/afl/findings/$target\` and replays with
\`dotnet bench/WebSocketCodec.Fuzz/bin/Release/net10.0/WebSocketCodec.Fuzz.dll --target $target --afl < FILE\`.
MD
cat "$results"
[ "$found" = 0 ] || echo "== $found findings in $findings"
