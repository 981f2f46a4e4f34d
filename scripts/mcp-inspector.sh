#!/bin/sh
# Lists the MCP tools with the official Inspector CLI (not a dependency: fetched by npx, needs
# Node 22+, so run with node_modules/.bin first on PATH).
#
#   PATH=$PWD/node_modules/.bin:$PATH npm start &          # or any running provider
#   a grant token whose audience is ${base}/mcp: from the OAuth flow (resource=${base}/mcp), or
#   in code issueGrantToken(deps, grant, ttl, `${base}/mcp`) (`ppx mint grant` mints for the HTTP API)
#   PPX_MCP_TOKEN=… scripts/mcp-inspector.sh http://127.0.0.1:8080/mcp [tools/list|resources/templates/list]
set -eu
URL=${1:-http://127.0.0.1:8080/mcp}
METHOD=${2:-tools/list}
: "${PPX_MCP_TOKEN:?set PPX_MCP_TOKEN to a grant token whose audience is $URL}"
exec npx --yes @modelcontextprotocol/inspector --cli "$URL" --transport http \
  --method "$METHOD" --header "Authorization: Bearer $PPX_MCP_TOKEN"
