# turnsim's tasks. 'make sim' is the main job, 'make test' the test suite
# that CI runs (.ci/run).

GO       ?= go
FUZZTIME ?= 10m

.PHONY: all sim hunt explore slow test lint staticcheck bench fuzz fuzz-ci build clean conformance conformance-soak dsh-loop

all: lint test

# The main job: seeded fault-injection runs across every fault kind with
# the default policies (the corpus replayed first; --stats: what each
# fault kind, choice point and invariant saw, and where cancels landed),
# then the scenarios.
# SEEDS sets the number of seeds (here 10,000; for conformance-soak, 200).
SEEDS ?=
sim:
	$(GO) run ./cmd/simrun run --stats --seeds $(or $(SEEDS),10000)
	$(GO) run ./cmd/simrun scenario --quiet scenarios/*.json

# The search against every mutant of the zoo: each must be found.
hunt:
	$(GO) run ./cmd/simrun hunt

# Every plan of at most two faults over a one-turn, two-step workload, on
# the correct loop (must be clean) and against every mutant of the zoo
# (each must be found); first, the explore tests too slow under make
# test's -race: that de-duplicating reached states loses none, and that
# each mutant is found with the faults its row says.
MAX_FAULTS ?= 2
# Tests too slow under -race for make test, and with nothing concurrent
# to race: a statistical match over 50,000 turns, a heap measurement, and
# a count of allocations (the race detector allocates on its own; CI runs
# them).
slow:
	$(GO) test ./budget ./oracle ./campaign -count=1 -run '^(TestIncidentExhaustionMatchesAnalytic|TestStreamMemoryIsBoundedByTurn|TestOneThrowBugOnePlanPerPath)$$'
	$(GO) test ./judge -count=1 -run '^TestARunAllocatesLessThanAnEvent$$'

explore:
	$(GO) test ./explore -count=1 -run '^(TestDedupeLosesNoState|TestMutantsFound)$$'
	$(GO) run ./cmd/simrun explore --max-faults $(MAX_FAULTS)
	$(GO) run ./cmd/simrun explore --max-faults $(MAX_FAULTS) --mutant all

# The whole test suite, under the race detector. The real DSH logs in
# ../shared/dsh-logs are read in place; without them those tests skip, and
# under CI they fail.
test:
	$(GO) test -race -count=1 ./...

# The real DSH against turnsim's model: every conformance scenario, the
# known findings about DSH, then a small seeded batch (installs DSH from
# the npm registry into .cache/dsh the first time).
CONFORMANCE_SEEDS ?= 10
conformance:
	bash scripts/conformance.sh $(CONFORMANCE_SEEDS)

# DSH's own loop packages in one Node process, beside the model: a seeded
# campaign (SEEDS, here 2,000), the recorded findings, and each
# patch of dshloop/patches (a bug put into DSH's code) found within
# PATCH_SEEDS seeds (installs the packages into .cache/dsh-loop the first
# time; skips with one line without the npm registry).
dsh-loop:
	bash scripts/dsh-loop.sh $(or $(SEEDS),2000)

# Seeded differential runs against the real DSH only, for long: make
# conformance-soak SEEDS=1000 (START=s to begin elsewhere).
START ?= 1
conformance-soak:
	bash scripts/conformance.sh --soak $(or $(SEEDS),200) $(START)

# gofmt must print nothing; go vet must pass.
lint:
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt -l: these files are not formatted:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

# staticcheck from the module proxy (not part of lint, which CI runs).
staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# The side-by-side table (turnsim's kernel and the baseline harness on the
# same plans: speed, ratio, flakiness, mutants found), then every other
# benchmark with -benchmem.
bench:
	$(GO) test ./baseline -run '^$$' -bench SideBySide -benchtime 1x
	$(GO) test -run '^$$' -bench . -skip SideBySide -benchmem ./...

# Every fuzz target, one after the other (go test fuzzes one target at a
# time), each for FUZZTIME: 10m by default, the bar a change to a reader
# must pass before it lands (29 targets: 290 minutes). CI runs each for a
# number of executions instead (make fuzz-ci: the count after each target,
# about what 10–15 s made on a loaded 2-core machine): with a duration,
# Go 1.26's fuzz coordinator can fail a clean run with "context deadline
# exceeded" as the time runs out (go.dev/issue/75804, fixed in Go 1.27),
# and a count has no deadline to race. Both follow make test, which
# replays every target's seeds and the inputs fuzzing once found
# (testdata/fuzz) as plain tests.
FUZZ_TARGETS = \
	./loop/session:FuzzReadLine:70000 \
	./loop/session:FuzzExpandPacked:80000 \
	./loop/session:FuzzAppendString:75000 \
	./loop/session:FuzzToolCallIDs:200000 \
	./loop/session:FuzzFastPayload:150000 \
	./loop/session:FuzzFastPacked:150000 \
	./loop/session:FuzzStringEnd:200000 \
	./loop/session:FuzzCheckedFastPayload:200000 \
	./loop/session:FuzzCheckedPacked:200000 \
	./loop/session:FuzzSplitRead:150000 \
	./loop/session:FuzzMembersAreScanned:60000 \
	./loop/session:FuzzAppendCompact:200000 \
	./loop/session:FuzzPlainHeaderField:200000 \
	./loop/session:FuzzLegacyAssistantBody:200000 \
	./loop/session:FuzzRequestHeaderEdit:200000 \
	./loop/session:FuzzParseIntegers:200000 \
	./loop/retry:FuzzKey:200000 \
	./internal/strictjson:FuzzCheck:200000 \
	./internal/strictjson:FuzzLocate:200000 \
	./internal/strictjson:FuzzNumber:200000 \
	./internal/strictjson:FuzzCheckMembers:200000 \
	./internal/strictjson:FuzzCheckMembersReading:200000 \
	./internal/strictjson:FuzzCheckValue:200000 \
	./internal/plain:FuzzRun:20000 \
	./sim:FuzzParseScenario:150000 \
	./budget:FuzzParsePolicy:150000 \
	./budget:FuzzParseEnvironment:90000 \
	./campaign:FuzzParseEntry:70000 \
	./oracle:FuzzStream:100000
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; \
	  echo "== $$name ($$pkg) for $(FUZZTIME)"; \
	  $(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME); \
	done
fuzz-ci:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; count=$${rest#*:}; \
	  echo "== $$name ($$pkg) for $$count executions"; \
	  $(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $${count}x; \
	done

build:
	$(GO) build -o bin/simrun ./cmd/simrun

clean:
	rm -rf bin
