#!/bin/sh
# Runs the server scenarios of the official MCP conformance suite (devDependency
# @modelcontextprotocol/conformance, Node 22+) against a TEST BUILD of the MCP surface with bearer
# auth replaced by a fixed caller (test/e2e/mcp/conformance/no-auth-server.ts): the suite's server mode
# cannot send a token. Scenarios that need the suite's "everything server" fixtures, or
# capabilities the provider does not declare, are listed in
# test/e2e/mcp/conformance/conformance-expected-failures.yml; any other failure fails the script.
# test/e2e/mcp/conformance/conformance.test.ts runs the same thing under `npm test`.
#
#   PATH=$PWD/node_modules/.bin:$PATH scripts/mcp-conformance.sh [--scenario NAME] [--verbose]
set -eu
cd "$(dirname "$0")/.."
OUT=$(mktemp -d)
node test/e2e/mcp/conformance/no-auth-server.ts >"$OUT/ready" &
PID=$!
trap 'kill $PID 2>/dev/null || true; rm -rf "$OUT"' EXIT INT TERM
i=0
until [ -s "$OUT/ready" ]; do
  i=$((i + 1))
  [ $i -le 100 ] || { echo "no-auth server did not start" >&2; exit 1; }
  sleep 0.2
done
URL=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).url)' "$OUT/ready")
echo "conformance against $URL (test build, auth replaced by a fixed caller)" >&2
node node_modules/@modelcontextprotocol/conformance/dist/index.js server --url "$URL" \
  --expected-failures test/e2e/mcp/conformance/conformance-expected-failures.yml -o "$OUT/results" "$@"
