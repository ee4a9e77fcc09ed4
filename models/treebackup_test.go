package models

import "testing"

// TestTreeBackupHand: traceHand with Tree-Backup's c = pi_e(a|o): c2 =
// pi_e(a1|o1) = 3/4, c3 = pi_e(a0|o0) = 1/2, cb = pi_e(a0|o1) = 1/4.
// Then Q2(o1,a1) = 3.25, V2(o1) = 2.6875, V2(o0) = 3.75 - 3/4 = 3;
// C(A1) = 2.6875 + 3/4 (1/4 - 1) = 2.125, C(A2) = 3 + 1/2 = 3.5,
// C(B1) = 2.6875; Q3(o0,a0) = 4.125, Q3(o0,a1) = 4.6875, Q3(o1,a1) = 2 +
// 3.5/2 = 3.75; V3(o0) = (4.125 + 4.6875)/2 = 4.40625, V3(o1) = 1/4 + 3/4
// 3.75 = 3.0625.
func TestTreeBackupHand(t *testing.T) {
	checkHand(t, "tree-backup",
		[]float64{4.125, 3.25, 2, 4.6875, 1, 3.75},
		[]float64{4.40625, 2.6875, 2, 4.40625, 2.6875, 3.0625})
}

// TestTreeBackupDirect: the tree-backup learner against the direct
// implementation (checkTraceRef).
func TestTreeBackupDirect(t *testing.T) { checkTraceRef(t, TreeBackup) }
