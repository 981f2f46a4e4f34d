#!/bin/sh
# Runs the server scenarios of the official MCP conformance suite against a TEST BUILD of the MCP
# surface with bearer auth replaced by a fixed caller (test/e2e/mcp/conformance/no-auth-server.ts):
# the suite's server mode cannot send a token. Both protocol revisions the surface serves:
#
#   2025-11-25  devDependency @modelcontextprotocol/conformance (0.1.16), every server scenario;
#               expected failures in test/e2e/mcp/conformance/conformance-expected-failures.yml
#   2026-07-28  devDependency mcp-conformance-next (an alias of @modelcontextprotocol/conformance
#               0.2.0-alpha.12), the scenarios the revision requires (--requirements 2026-07-28),
#               or the one named by --scenario at that spec version; expected failures in
#               test/e2e/mcp/conformance/conformance-2026-expected-failures.yml
#
# Expected failures are scenarios (or single checks) that need the suite's "everything server"
# fixtures or capabilities the provider does not declare; any other failure fails the script.
# Both packages install a bin named `conformance`, so each is run by its file path.
# test/e2e/mcp/conformance/conformance.test.ts and conformance-2026.test.ts run the same under
# `npm test`. docs/mcp-conformance.md has the results.
#
#   PATH=$PWD/node_modules/.bin:$PATH scripts/mcp-conformance.sh \
#     [--revision 2025-11-25|2026-07-28|both] [--scenario NAME] [--verbose]
#
# --revision defaults to both; the other options go to the suite (a --scenario that only one
# revision's suite knows needs that --revision).
set -eu
cd "$(dirname "$0")/.."

REVISION=both
SCENARIO=no
n=$#
while [ "$n" -gt 0 ]; do
  a=$1
  shift
  n=$((n - 1))
  case $a in
  --revision)
    [ "$n" -gt 0 ] || { echo "--revision needs a value" >&2; exit 2; }
    REVISION=$1
    shift
    n=$((n - 1))
    ;;
  --revision=*) REVISION=${a#--revision=} ;;
  *)
    case $a in --scenario | --scenario=*) SCENARIO=yes ;; esac
    set -- "$@" "$a"
    ;;
  esac
done
case $REVISION in
2025-11-25 | 2026-07-28 | both) ;;
*) echo "--revision must be 2025-11-25, 2026-07-28 or both (got $REVISION)" >&2; exit 2 ;;
esac

# The suites need Node 22+ (fs.globSync); node_modules/.bin on PATH gives it.
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)' || {
  echo "the conformance suites need Node 22 or later (found $(node --version)): PATH=\$PWD/node_modules/.bin:\$PATH" >&2
  exit 2
}

DIR=test/e2e/mcp/conformance
OUT=$(mktemp -d)
node $DIR/no-auth-server.ts >"$OUT/ready" &
PID=$!
trap 'kill $PID 2>/dev/null || true; rm -rf "$OUT"' EXIT INT TERM
i=0
until [ -s "$OUT/ready" ]; do
  i=$((i + 1))
  [ $i -le 100 ] || { echo "no-auth server did not start" >&2; exit 1; }
  sleep 0.2
done
URL=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).url)' "$OUT/ready")

STATUS=0
if [ "$REVISION" != 2026-07-28 ]; then
  echo "conformance 2025-11-25 (@modelcontextprotocol/conformance) against $URL (test build, auth replaced by a fixed caller)" >&2
  node node_modules/@modelcontextprotocol/conformance/dist/index.js server --url "$URL" \
    --expected-failures $DIR/conformance-expected-failures.yml -o "$OUT/results-2025" "$@" || STATUS=1
fi
if [ "$REVISION" != 2025-11-25 ]; then
  # --requirements fixes the scenarios itself and cannot be combined with --scenario.
  if [ $SCENARIO = yes ]; then WHICH="--spec-version 2026-07-28"; else WHICH="--requirements 2026-07-28"; fi
  echo "conformance 2026-07-28 (mcp-conformance-next, $WHICH) against $URL (test build, auth replaced by a fixed caller)" >&2
  # shellcheck disable=SC2086 # WHICH is two words
  node node_modules/mcp-conformance-next/dist/index.js server --url "$URL" $WHICH \
    --expected-failures $DIR/conformance-2026-expected-failures.yml -o "$OUT/results-2026" "$@" || STATUS=1
fi
exit $STATUS
