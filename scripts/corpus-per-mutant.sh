#!/bin/bash
# entries and distinct shrunk plans per mutant over 2000 seeds
# usage: scripts/corpus-per-mutant.sh [SIMRUN]  (default: go build into a temporary folder)
bin=${1:-}
if [ -z "$bin" ]; then bin=$(mktemp -d)/simrun; go build -o "$bin" ./cmd/simrun || exit 1; fi
total=0; tplans=0
for m in $(grep -o 'Name: *"[a-z-]*"' mutants/mutants.go | sed 's/.*"\(.*\)"/\1/'); do
  d=$(mktemp -d); $bin run --mutant $m --seeds 2000 --corpus $d -j 2 > $d.out 2>&1
  n=$(ls $d | wc -l)
  # a shrunk plan is its lines and the invariant its run gives
  plans=$(awk '/^  shrunk plan/{p=""; on=1; next} on && /^    /{p=p"|"$0; next} on && /^  the shrunk plan gives: /{print $5 p; on=0}' $d.out | sort -u | wc -l)
  printf "%-30s entries %2d  distinct shrunk plans %2d\n" $m $n $plans
  total=$((total+n)); tplans=$((tplans+plans)); rm -rf $d $d.out
done
echo "total entries $total, plans $tplans"
