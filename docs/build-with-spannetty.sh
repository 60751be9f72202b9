#!/usr/bin/env bash
# Builds the docs site with the SpanNetty package's API reference too (docs/_site, as `dotnet docfx docs/docfx.json`
# does without it). SpanNetty's packages are not on every feed: FEED is the local folder the SpanNetty guide's recipe
# builds them into (docs/guides/spannetty.md).
#
#   docs/build-with-spannetty.sh FEED [--serve]
set -euo pipefail
feed=$(cd "${1:?usage: docs/build-with-spannetty.sh FEED [--serve]}" && pwd)
shift
cd "$(dirname "$0")"
# docfx.json plus the SpanNetty project in its metadata (written beside it, ignored by git).
python3 - <<'PY'
import json
config = json.load(open("docfx.json"))
config["metadata"][0]["src"][0]["files"].append("WebSocketCodec.SpanNetty/WebSocketCodec.SpanNetty.csproj")
json.dump(config, open("docfx.spannetty.json", "w"), indent=2)
PY
dotnet tool restore >/dev/null
# MSBuild reads environment variables as properties: docfx's own restore and design-time builds see these too.
export WithSpanNetty=true RestoreAdditionalProjectSources="$feed"
status=0
dotnet docfx docfx.spannetty.json --warningsAsErrors "$@" || status=$?
# The SpanNetty pages' metadata stays out of the default build (docfx does not remove what it did not write).
rm -f api/WebSocketCodec.SpanNetty*.yml
exit $status
