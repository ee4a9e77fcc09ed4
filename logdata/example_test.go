package logdata_test

import (
	"fmt"
	"strings"

	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Two logged episodes, one row per step with the probabilities of the
// logged action under behavior and evaluation, become a batch whose ratio
// per step is pi_e/pi_b. A bad row is named by line and column.
func ExampleRead() {
	csv := `episode,step,reward,pi_b,pi_e
a,0,1,0.5,0.75
a,1,0,0.5,0.25
b,0,2,0.5,0.75
`
	var b trajectory.Batch
	info, err := logdata.Read(strings.NewReader(csv), logdata.CSV, &b, logdata.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Episodes, info.Steps, b.Horizon(), b.Ratio)
	_, err = logdata.Read(strings.NewReader("episode,step,reward,pi_b,pi_e\na,0,1,0,1\n"), logdata.CSV, &b, logdata.Options{})
	fmt.Println(err)
	// Output:
	// 2 3 2 [1.5 0.5 1.5]
	// line 2: column "pi_b": 0 is not in (0, 1]: the behavior policy must give what it logged positive probability
}
