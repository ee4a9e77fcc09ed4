# Reproduce the figures of Guo, Thomas & Brunskill (NIPS 2017) and test the harness.
GO       ?= go
REV      := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
BIN      := bin/runexp
WORKERS  ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build fig2 fig3 fig4 theory sweep beyond long figs test bench clean readme docs

all: build

build:
	$(GO) build -ldflags "-X main.revision=$(REV)" -o $(BIN) ./cmd/runexp

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

## long: the long horizon, H = 1000 (sub-episode and chain MDPs) -> results/long/
long: build
	$(BIN) run -workers $(WORKERS) configs/long.yaml

## figs: every figure that exists (long apart: minutes, not seconds)
figs: fig2 fig3 fig4 theory sweep beyond

## test: the whole test suite (what .ci/run runs)
test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

## bench: every benchmark, 5 runs each, into bench.txt, then its benchstat summary
BENCHSTAT := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./... > bench.txt
	$(GO) run $(BENCHSTAT) bench.txt

clean:
	rm -rf bin

## docs: regenerate docs/reference.md from the registries (runexp help reference)
docs: build
	$(BIN) help reference > docs/reference.md

## readme: refresh the README's claims table from the committed results
CLAIM_RUNS := results/fig2 results/fig3 results/fig4 results/beyond results/long
readme: build
	$(BIN) claims $(CLAIM_RUNS) > .claims.md
	awk 'BEGIN{while((getline l < ".claims.md")>0) t=t l "\n"} /<!-- claims:begin -->/{print; printf "%s", t; skip=1; next} /<!-- claims:end -->/{skip=0} !skip' README.md > .README.tmp && mv .README.tmp README.md && rm -f .claims.md
