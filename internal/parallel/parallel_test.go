package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestDoRunsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 100} {
		const n = 1000
		var hits [n]atomic.Int32
		var jobs atomic.Int32
		err := Do(context.Background(), n, workers, func() func(int) error {
			jobs.Add(1)
			return func(i int) error { hits[i].Add(1); return nil }
		})
		if err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
		for i := range hits {
			if h := hits[i].Load(); h != 1 {
				t.Fatalf("workers %d: index %d ran %d times", workers, i, h)
			}
		}
		if workers > 0 && int(jobs.Load()) > min(workers, n) {
			t.Errorf("workers %d: %d job functions built", workers, jobs.Load())
		}
	}
}

func TestDoStopsAtFirstError(t *testing.T) {
	boom := errors.New("boom")
	var ran atomic.Int32
	err := Do(context.Background(), 10000, 2, func() func(int) error {
		return func(i int) error {
			ran.Add(1)
			if i == 10 {
				return boom
			}
			return nil
		}
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if ran.Load() == 10000 {
		t.Error("every index ran after an error")
	}
}

func TestDoHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Int32
	err := Do(ctx, 100, 2, func() func(int) error {
		return func(int) error { ran.Add(1); return nil }
	})
	if !errors.Is(err, context.Canceled) || ran.Load() != 0 {
		t.Errorf("err %v after %d jobs, want context.Canceled after 0", err, ran.Load())
	}
}
