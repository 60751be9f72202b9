#!/usr/bin/env bash
# Rewrites every src/ project's PublicAPI.Shipped.txt from the code as it is: the whole public surface becomes the
# shipped baseline (sorted, ordinal), PublicAPI.Unshipped.txt is left empty. It empties both files, lets the public API
# analyzer's own code fix declare every public member (dotnet format analyzers, RS0016), then moves the result.
#
#   build/update-public-api.sh                      every src/*/*.csproj but WebSocketCodec.SpanNetty
#   build/update-public-api.sh --spannetty [FEED]   also WebSocketCodec.SpanNetty (-p:WithSpanNetty=true), restoring
#                                                   SpanNetty from FEED when given (a local folder of SpanNetty packages)
#
# Review the diff: a line that leaves PublicAPI.Shipped.txt is a breaking change for users of the packages.
set -euo pipefail
cd "$(dirname "$0")/.."

projects=()
for csproj in src/*/*.csproj; do
    p=$(basename "$csproj" .csproj)
    if [[ "$p" != WebSocketCodec.SpanNetty ]]; then projects+=("$p"); fi
done
if [[ "${1:-}" == "--spannetty" ]]; then
    projects+=(WebSocketCodec.SpanNetty)
    # dotnet format takes no -p: MSBuild reads environment variables as properties.
    export WithSpanNetty=true
    if [[ -n "${2:-}" ]]; then export RestoreAdditionalProjectSources="$2"; fi
fi

for p in "${projects[@]}"; do
    dir="src/$p"
    printf '#nullable enable\n' > "$dir/PublicAPI.Shipped.txt"
    printf '#nullable enable\n' > "$dir/PublicAPI.Unshipped.txt"
    # RS0016: a public member not declared; RS0017: a declared member that is gone; RS0037: the #nullable header.
    dotnet format analyzers "$dir/$p.csproj" --diagnostics RS0016 RS0017 RS0037 --severity warn
    {
        printf '#nullable enable\n'
        { grep -v -e '^#nullable enable$' -e '^$' "$dir/PublicAPI.Unshipped.txt" || true; } | LC_ALL=C sort -u
    } > "$dir/PublicAPI.Shipped.txt.new"
    mv "$dir/PublicAPI.Shipped.txt.new" "$dir/PublicAPI.Shipped.txt"
    printf '#nullable enable\n' > "$dir/PublicAPI.Unshipped.txt"
    echo "$p: $(($(wc -l < "$dir/PublicAPI.Shipped.txt") - 1)) public API entries"
done

# dotnet format fixes a whole project in one pass; a build proves nothing was left undeclared (RS0016 is an error).
for p in "${projects[@]}"; do
    dotnet build "src/$p/$p.csproj" -c Release --nologo -v q -clp:NoSummary
done
