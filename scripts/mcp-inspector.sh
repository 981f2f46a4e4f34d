#!/bin/sh
# Calls the provider's MCP endpoint with the official Inspector CLI (devDependency
# @modelcontextprotocol/inspector 2.x, installed by `npm install`; needs Node 22+, so run with
# node_modules/.bin first on PATH). Nothing is fetched at run time.
# test/e2e/mcp/conformance/inspector.test.ts runs the same CLI under `npm test`.
#
#   PATH=$PWD/node_modules/.bin:$PATH npm start &          # or any running provider
#   a grant token whose audience is ${base}/mcp: from the OAuth flow (resource=${base}/mcp), or
#   `npx ppx mint grant --client fragrance-demo --namespaces core,fragrance --for mcp`
#   (docs/connect-an-agent.md has the configurations of other MCP clients)
#   PPX_MCP_TOKEN=… scripts/mcp-inspector.sh http://127.0.0.1:8787/mcp [tools/list|resources/templates/list]
#   PPX_MCP_TOKEN=… scripts/mcp-inspector.sh URL tools/call --tool-name ppx_get_profile_summary
set -eu
URL=${1:-http://127.0.0.1:8787/mcp}
METHOD=${2:-tools/list}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
: "${PPX_MCP_TOKEN:?set PPX_MCP_TOKEN to a grant token whose audience is $URL}"
CLI="$(dirname "$0")/../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
[ -f "$CLI" ] || { echo "the Inspector is not installed: run npm install" >&2; exit 1; }
exec node "$CLI" --cli "$URL" --transport http \
  --method "$METHOD" --header "Authorization: Bearer $PPX_MCP_TOKEN" "$@"
