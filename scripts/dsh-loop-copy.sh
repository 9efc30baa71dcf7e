#!/usr/bin/env bash
# A copy of the install of DSH's loop packages (make dsh-loop), to change:
# its node_modules copied (new files: the install itself is untouched), its
# Node shared by a link.
#
#   scripts/dsh-loop-copy.sh DIR              a plain copy: put your own build
#                                             in DIR/node_modules/@deepseek-ai/PKG/lib
#   scripts/dsh-loop-copy.sh DIR PATCH...     a copy with each patch applied
#                                             (dshloop/patches/*.patch)
#
# Then: simrun run --sut dsh --dsh-loop DIR (docs/dsh-loop.md, "Check your change to DSH").
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/dsh-loop-copy.sh DIR [PATCH...]" >&2; exit 2; }
# DIR, the patches and DSH_LOOP are read from where the script was run.
dir=$(realpath -m "$1")
shift
patches=()
for p in "$@"; do patches+=("$(realpath -m "$p")"); done
install=$(realpath -m "${DSH_LOOP:-$(dirname "$0")/../.cache/dsh-loop}")
if [ ! -f "$install/node_modules/@deepseek-ai/dsh-agent-loop/package.json" ]; then
	echo "dsh-loop-copy: no install of DSH's loop packages in $install: run make dsh-loop first" >&2
	exit 2
fi
if [ -e "$dir" ]; then
	echo "dsh-loop-copy: $dir exists: give a new folder" >&2
	exit 2
fi
mkdir -p "$dir"
cp -a "$install/node_modules" "$install/package.json" "$install/pnpm-lock.yaml" "$dir/"
ln -s "$(cd "$install/tools" && pwd)" "$dir/tools"
# pnpm links each package into node_modules/.pnpm, and patch will not walk
# a link: each patch is applied inside the folder its package resolves to
# (the patches name their files a/PKG/lib/..., one package per patch).
for p in "${patches[@]}"; do
	[ -f "$p" ] || { echo "dsh-loop-copy: $p: no such patch" >&2; exit 2; }
	pkg=$(sed -n 's|^--- a/\([^/]*\)/.*|\1|p' "$p" | sort -u)
	if [ -z "$pkg" ] || [ "$(printf '%s\n' "$pkg" | wc -l)" -ne 1 ]; then
		echo "dsh-loop-copy: $p: a patch names its files a/PKG/..., all in one package" >&2
		exit 2
	fi
	target=$(readlink -f "$dir/node_modules/@deepseek-ai/$pkg") ||
		{ echo "dsh-loop-copy: $p: no package @deepseek-ai/$pkg in the install" >&2; exit 2; }
	patch --quiet --forward --batch -p2 -d "$target" <"$p" ||
		{ echo "dsh-loop-copy: $p does not apply to $install's @deepseek-ai/$pkg" >&2; exit 2; }
	echo "dsh-loop-copy: applied $p"
done
echo "dsh-loop-copy: $dir is ready: simrun run --sut dsh --dsh-loop $dir"
