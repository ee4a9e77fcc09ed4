# Reproduce the figures of Guo, Thomas & Brunskill (NIPS 2017) and test the harness.
GO       ?= go
BIN      := bin/runexp
WORKERS  ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build fig2 fig3 fig4 theory sweep beyond baselines bounds suite regimes long horizon selection benchmarks figs test bench bench-long bench-all clean readme docs

all: build

build:
	$(GO) build -o $(BIN) ./cmd/runexp

## fig4: Figure 4 (Experiment 3, INCRIS on the sub-episode MDP) -> results/fig4/
fig4: build
	$(BIN) run -workers $(WORKERS) configs/fig4.yaml

## fig2: Figure 2 (Experiment 1, PDIS with m-step options on NoisyTaxi) -> results/fig2/
fig2: build
	$(BIN) run -workers $(WORKERS) configs/fig2.yaml

## fig3: Figure 3 (Experiment 2, PDIS vs partitioned PDIS on NoisyTaxi) -> results/fig3/
fig3: build
	$(BIN) run -workers $(WORKERS) configs/fig3.yaml

## theory: Theorems 1, 2 and Corollaries 1, 2 on the chain MDP, simulated
## against their closed forms (four panels) -> results/theory/
theory: build
	$(BIN) run -workers $(WORKERS) configs/theory.yaml

## sweep: Experiment 1 swept over eps_b x option length -> results/sweep_taxi/
sweep: build
	$(BIN) run -workers $(WORKERS) configs/sweep_taxi.yaml

## beyond: incris-ld (SPEC 1b) beside the paper's estimators -> results/beyond/
beyond: build
	$(BIN) run -workers $(WORKERS) configs/beyond.yaml

## baselines: dm, dr, wdr, magic (SPEC 1d) beside the paper's estimators -> results/baselines/
baselines: build
	$(BIN) run -workers $(WORKERS) configs/baselines.yaml

## bounds: high-confidence lower bounds (SPEC 1e): t, hcope, coverage -> results/bounds/
bounds: build
	$(BIN) run -workers $(WORKERS) configs/bounds.yaml

## suite: six new tabular domains and the paper's three, with adaptive (issue 16) -> results/suite/
suite: build
	$(BIN) run -workers $(WORKERS) configs/suite.yaml

## regimes: INCRIS, its printed form and an oracle over the sub-episode
## MDP's unspecified choices (issue 23) -> results/regimes/
regimes: build
	$(BIN) run -workers $(WORKERS) configs/regimes.yaml

## benchmarks: the field's benchmark reproduced (issue 30): Voloshin et al.
## 2021, Tables 12-14 on COBS's Graph, 1000 replicates of the 10-seed
## experiment -> results/benchmarks/ (published.csv, .md, .tex); then
## ModelWin, ModelFail and Graph-POMDP with every Q-function learner
## -> results/benchsuite/
benchmarks: build
	$(BIN) run -workers $(WORKERS) configs/benchmarks.yaml
	$(BIN) run -workers $(WORKERS) configs/benchsuite.yaml

## long: the long horizon, H = 1000 (sub-episode and chain MDPs) -> results/long/
long: build
	$(BIN) run -workers $(WORKERS) configs/long.yaml

## horizon: MSE and relative RMSE against the horizon H = 10 ... 3000 at
## n = 1000 on four domains, with slopes.csv (issue 24) -> results/horizon/
horizon: build
	$(BIN) run -workers $(WORKERS) configs/horizon.yaml

## selection: off-policy selection (issue 31): per estimator Spearman, regret@1,
## regret@3 and interval coverage over candidate policies on five domains
## -> results/selection/ (selection.csv, selection.md, selection.png)
selection: build
	$(BIN) select -workers $(WORKERS) configs/selection.yaml

## figs: every figure that exists (long apart: minutes, not seconds)
figs: fig2 fig3 fig4 theory sweep beyond

## test: the whole test suite (what .ci/run runs), then the package whose
## code changes with -tags noasm (the INCRIS family's kernels: their Go
## twins replace the assembly) again in that build, which must give the
## same bits
NOASM_PKGS := ./estimators/incris/internal/kernel
test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...
	$(GO) vet -tags noasm $(NOASM_PKGS)
	$(GO) test -count=1 -tags noasm $(NOASM_PKGS)

## bench: the speed targets (issues 13 and 29) in one benchstat table: INCRIS
## and incris-ld at n = 10^4, H = 100, one Figure 4 trial, the NoisyTaxi
## rollout (one core each), the marginal cost of a trial and the fixed cost
## of a run of fig4 with one worker on one core (RunTrials), and `make fig4`
## and `make figs` as whole runs (2 workers, no build step). Raw results go
## to docs/bench.txt, from which `make readme` fills the README's speed
## table. About 5 minutes.
BENCHSTAT := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
bench:
	{ $(GO) test -run '^$$' -bench '^BenchmarkINCRIS(LD)?$$/n=10000' -benchmem -count 6 -cpu 1 ./estimators/incris && \
	  $(GO) test -run '^$$' -bench '^BenchmarkTrial$$/fig4' -benchmem -count 6 -cpu 1 ./experiments/run && \
	  $(GO) test -run '^$$' -bench '^BenchmarkRolloutBatch$$/rand/m=1' -benchmem -count 6 -cpu 1 ./policies && \
	  $(GO) test -run '^$$' -bench '^BenchmarkRunTrials$$/fig4' -benchtime 3x -count 6 -cpu 1 ./experiments && \
	  $(GO) test -run '^$$' -bench '^BenchmarkFigure$$/fig4' -count 6 -cpu 2 -timeout 30m ./experiments && \
	  $(GO) test -run '^$$' -bench '^BenchmarkFigure$$/figs' -benchtime 1x -count 3 -cpu 2 -timeout 30m ./experiments; } > docs/bench.txt
	$(GO) run $(BENCHSTAT) -table '' docs/bench.txt

## bench-long: `make long` as a benchmark (one run, about 10 minutes)
bench-long:
	LONGHORIZON_BENCH_LONG=1 $(GO) test -run '^$$' -bench '^BenchmarkFigure$$/long' -benchtime 1x -count 1 -cpu 2 -timeout 60m ./experiments

## bench-all: every benchmark of every package, 5 runs each, into bench.txt
bench-all:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./... > bench.txt
	$(GO) run $(BENCHSTAT) bench.txt

clean:
	rm -rf bin

## leaderboard: the estimators of the committed runs that have trials.csv
## ranked over domains, one comparison per set of estimators run in the
## same cells: log10 MSE ratios to cwpdis, Friedman, Nemenyi (runexp help
## leaderboard) -> results/leaderboard.md, .csv, .tex, .png, .svg
LEADER_RUNS := $(patsubst %/trials.csv,%,$(wildcard $(addsuffix /trials.csv,$(addprefix results/,fig2 fig3 fig4 beyond baselines bounds suite regimes long horizon benchsuite))))
.PHONY: leaderboard
leaderboard: build
	$(BIN) leaderboard $(LEADER_RUNS)

## docs: regenerate docs/reference.md from the registries (runexp help reference)
docs: build
	$(BIN) help reference > docs/reference.md

## readme: refresh the README's speed table (from docs/bench.txt), the
## claims tables: the paper's figures in the README, every run in
## docs/results.md (from the committed results), and the README's
## leaderboard: the tests and the first 8 rows of the table of results/leaderboard.md's first
## comparison (the one over the most domains)
PAPER_RUNS := results/fig2 results/fig3 results/fig4
CLAIM_RUNS := $(PAPER_RUNS) results/beyond results/baselines results/bounds results/suite results/regimes results/long results/horizon results/benchsuite
FILL = awk 'BEGIN{while((getline l < "$(1)")>0) t=t l "\n"} /<!-- $(2):begin -->/{print; printf "%s", t; skip=1; next} /<!-- $(2):end -->/{skip=0} !skip'
readme: build
	$(GO) run $(BENCHSTAT) -table '' docs/bench.txt | awk -v RS= '/sec\/op|steps\/s|sec\/trial|fixed-sec/{print; print ""}' | awk 'BEGIN{print "```"} {print} END{print "```"}' > .bench.md
	$(call FILL,.bench.md,bench) README.md > .README.tmp && mv .README.tmp README.md && rm -f .bench.md
	$(BIN) claims $(PAPER_RUNS) > .claims.md
	$(call FILL,.claims.md,claims) README.md > .README.tmp && mv .README.tmp README.md
	$(BIN) claims $(CLAIM_RUNS) > .claims.md
	$(call FILL,.claims.md,claims) docs/results.md > .results.tmp && mv .results.tmp docs/results.md && rm -f .claims.md
	$(BIN) leaderboard $(LEADER_RUNS)
	awk '/^Friedman/{p=1} p && /^$$/ && t{exit} p && /^\|/ && ++t > 10{next} p{print}' results/leaderboard.md > .leaderboard.md
	$(call FILL,.leaderboard.md,leaderboard) README.md > .README.tmp && mv .README.tmp README.md && rm -f .leaderboard.md
