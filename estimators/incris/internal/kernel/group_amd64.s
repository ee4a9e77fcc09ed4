//go:build !noasm && !gccgo

#include "textflag.h"

// Registers of groupAVX2:
//
//	Y0..Y7   x of block trajectories q = 0..7, lane l = row s0+l
//	Y8       c of the four rows' cells at j (lane l = row s0+l)
//	Y9..Y11  s1, s2, s3 of those cells
//	Y12, Y13 scratch (d and products); Y14 zero
//	DI, SI, R8, R9  c, s1, s2, s3 at j: the cells (s0+l, j), l = 0..3, in
//	         lanes form (see Flip)
//	AX, DX   rho and tda at j (8 block trajectories each, interleaved)
//	BX       rv: rv[q*4+l], 32 bytes per trajectory
//	CX       slots left in the main loop

// MULX multiplies every trajectory's x by its ratio at j:
// x = x * rho_j, one rounding per product (VMULPD, no FMA).
#define MULX \
	VBROADCASTSD 0(AX), Y13; VMULPD Y13, Y0, Y0; \
	VBROADCASTSD 8(AX), Y13; VMULPD Y13, Y1, Y1; \
	VBROADCASTSD 16(AX), Y13; VMULPD Y13, Y2, Y2; \
	VBROADCASTSD 24(AX), Y13; VMULPD Y13, Y3, Y3; \
	VBROADCASTSD 32(AX), Y13; VMULPD Y13, Y4, Y4; \
	VBROADCASTSD 40(AX), Y13; VMULPD Y13, Y5, Y5; \
	VBROADCASTSD 48(AX), Y13; VMULPD Y13, Y6, Y6; \
	VBROADCASTSD 56(AX), Y13; VMULPD Y13, Y7, Y7

// START sets lane l's x to its reward (the top cell j = t of row s0+l):
// lane 3 at j = s0+4 (imm 8), lane 2 at s0+3 (4), 1 at s0+2 (2), 0 at
// s0+1 (1).
#define START(imm) \
	VBLENDPD $imm, 0(BX), Y0, Y0; \
	VBLENDPD $imm, 32(BX), Y1, Y1; \
	VBLENDPD $imm, 64(BX), Y2, Y2; \
	VBLENDPD $imm, 96(BX), Y3, Y3; \
	VBLENDPD $imm, 128(BX), Y4, Y4; \
	VBLENDPD $imm, 160(BX), Y5, Y5; \
	VBLENDPD $imm, 192(BX), Y6, Y6; \
	VBLENDPD $imm, 224(BX), Y7, Y7

// ACC adds one trajectory's terms, as addRow1 does:
// d = x - c; s1 = s1 + d; s2 = s2 + d*d; s3 = s3 + tda_j*d.
#define ACC(X, off) \
	VSUBPD Y8, X, Y12; \
	VADDPD Y12, Y9, Y9; \
	VMULPD Y12, Y12, Y13; \
	VADDPD Y13, Y10, Y10; \
	VBROADCASTSD off(DX), Y13; \
	VMULPD Y12, Y13, Y13; \
	VADDPD Y13, Y11, Y11

// SLOT loads the four rows' c, s1, s2, s3 at j (the cells in lanes form:
// one vector each), adds the eight trajectories in order and stores the
// sums back.
#define SLOT \
	VMOVUPD 0(DI), Y8; \
	VMOVUPD 0(SI), Y9; \
	VMOVUPD 0(R8), Y10; \
	VMOVUPD 0(R9), Y11; \
	ACC(Y0, 0); \
	ACC(Y1, 8); \
	ACC(Y2, 16); \
	ACC(Y3, 24); \
	ACC(Y4, 32); \
	ACC(Y5, 40); \
	ACC(Y6, 48); \
	ACC(Y7, 56); \
	VMOVUPD Y9, 0(SI); \
	VMOVUPD Y10, 0(R8); \
	VMOVUPD Y11, 0(R9)

// NEXT moves every pointer from j to j-1.
#define NEXT \
	SUBQ $32, DI; \
	SUBQ $32, SI; \
	SUBQ $32, R8; \
	SUBQ $32, R9; \
	SUBQ $64, AX; \
	SUBQ $64, DX

// func groupAVX2(cells *Cell, s0 int, rv *[32]float64, rho, tda *float64)
TEXT ·groupAVX2(SB), NOSPLIT, $0-40
	MOVQ cells+0(FP), DI
	MOVQ s0+8(FP), CX
	MOVQ rv+16(FP), BX
	MOVQ rho+24(FP), AX
	MOVQ tda+32(FP), DX

	// rows of s0+5 cells (32 bytes each); start at j = s0+4
	LEAQ 5(CX), R10
	SHLQ $5, R10
	LEAQ 4(CX), R11
	SHLQ $5, R11
	ADDQ R11, DI
	LEAQ (DI)(R10*1), SI
	LEAQ (SI)(R10*1), R8
	LEAQ (R8)(R10*1), R9
	SHLQ $1, R11
	ADDQ R11, AX
	ADDQ R11, DX
	INCQ CX // main loop: j = s0 .. 0

	// j = s0+4: lane 3 starts (x = r), the others hold 0
	VXORPD Y14, Y14, Y14
	VBLENDPD $8, 0(BX), Y14, Y0
	VBLENDPD $8, 32(BX), Y14, Y1
	VBLENDPD $8, 64(BX), Y14, Y2
	VBLENDPD $8, 96(BX), Y14, Y3
	VBLENDPD $8, 128(BX), Y14, Y4
	VBLENDPD $8, 160(BX), Y14, Y5
	VBLENDPD $8, 192(BX), Y14, Y6
	VBLENDPD $8, 224(BX), Y14, Y7
	SLOT
	NEXT

	// j = s0+3, s0+2, s0+1: lanes 2, 1, 0 start
	MULX
	START(4)
	SLOT
	NEXT
	MULX
	START(2)
	SLOT
	NEXT
	MULX
	START(1)
	SLOT
	NEXT

loop:
	MULX
	SLOT
	NEXT
	DECQ CX
	JNZ  loop

	VZEROUPPER
	RET

// The AVX-512 kernel, pairAVX512, adds the block to two groups at
// once: group A (rows s0+4..s0+7) in lanes 0..3 and group B (rows
// s0..s0+3) in lanes 4..7 of a 512-bit vector, where both are at the same
// j; above that (A's first four cells, j = s0+8 .. s0+5) it runs A alone
// in 256-bit vectors. Lane by lane the operations are those of
// groupAVX2. It adds the first m trajectories of the block (pairAVX512's
// masks: 8 bytes per trajectory, all ones for q < m, else 0): trajectory
// q's d is zeroed (masked, mask register Kq, q >= 1) where q >= m, and
// d = 0 adds exactly nothing (S1 + 0 = S1, d^2 = 0, tda_j 0 = +-0, and
// no sum is ever -0), so the bits are those of the m trajectories alone.
//
// Registers: Z0..Z7 x (A | B), Z8 c, Z9..Z11 s1, s2, s3, Z12, Z13 scratch,
// Y14 zero; DI, SI, R8, R9 A's c, s1, s2, s3 at j; R10..R13 B's; AX, DX
// rho and tda at j; BX rv (B's 32 values, then A's); K1..K7 trajectories
// 1..7's masks until the tiny loop, R14 the masks in memory.

// MULXZ is MULX in 512 bits.
#define MULXZ \
	VBROADCASTSD 0(AX), Z13; VMULPD Z13, Z0, Z0; \
	VBROADCASTSD 8(AX), Z13; VMULPD Z13, Z1, Z1; \
	VBROADCASTSD 16(AX), Z13; VMULPD Z13, Z2, Z2; \
	VBROADCASTSD 24(AX), Z13; VMULPD Z13, Z3, Z3; \
	VBROADCASTSD 32(AX), Z13; VMULPD Z13, Z4, Z4; \
	VBROADCASTSD 40(AX), Z13; VMULPD Z13, Z5, Z5; \
	VBROADCASTSD 48(AX), Z13; VMULPD Z13, Z6, Z6; \
	VBROADCASTSD 56(AX), Z13; VMULPD Z13, Z7, Z7

// STARTA(imm) is START for group A, whose rewards follow B's in rv.
#define STARTA(imm) \
	VBLENDPD $imm, 256(BX), Y0, Y0; \
	VBLENDPD $imm, 288(BX), Y1, Y1; \
	VBLENDPD $imm, 320(BX), Y2, Y2; \
	VBLENDPD $imm, 352(BX), Y3, Y3; \
	VBLENDPD $imm, 384(BX), Y4, Y4; \
	VBLENDPD $imm, 416(BX), Y5, Y5; \
	VBLENDPD $imm, 448(BX), Y6, Y6; \
	VBLENDPD $imm, 480(BX), Y7, Y7

// STARTB(imm) sets lane 4+l of every x (B's row s0+l) to its reward
// rv[q*4+l], imm = 1 << l, as START does, on the high half (the mask
// registers hold the trajectories' masks).
#define STARTB1(X, off, imm) \
	VEXTRACTF64X4 $1, X, Y13; \
	VBLENDPD $imm, off(BX), Y13, Y13; \
	VINSERTF64X4 $1, Y13, X, X

#define STARTB(imm) \
	STARTB1(Z0, 0, imm); \
	STARTB1(Z1, 32, imm); \
	STARTB1(Z2, 64, imm); \
	STARTB1(Z3, 96, imm); \
	STARTB1(Z4, 128, imm); \
	STARTB1(Z5, 160, imm); \
	STARTB1(Z6, 192, imm); \
	STARTB1(Z7, 224, imm)

// ACCM is ACC with trajectory mask K on d (EVEX, 256 bits).
#define ACCM(X, K, off) \
	VSUBPD.Z Y8, X, K, Y12; \
	VADDPD Y12, Y9, Y9; \
	VMULPD Y12, Y12, Y13; \
	VADDPD Y13, Y10, Y10; \
	VBROADCASTSD off(DX), Y13; \
	VMULPD Y12, Y13, Y13; \
	VADDPD Y13, Y11, Y11

// SLOTM is SLOT with the trajectories' masks.
#define SLOTM \
	VMOVUPD 0(DI), Y8; \
	VMOVUPD 0(SI), Y9; \
	VMOVUPD 0(R8), Y10; \
	VMOVUPD 0(R9), Y11; \
	ACC(Y0, 0); \
	ACCM(Y1, K1, 8); \
	ACCM(Y2, K2, 16); \
	ACCM(Y3, K3, 24); \
	ACCM(Y4, K4, 32); \
	ACCM(Y5, K5, 40); \
	ACCM(Y6, K6, 48); \
	ACCM(Y7, K7, 56); \
	VMOVUPD Y9, 0(SI); \
	VMOVUPD Y10, 0(R8); \
	VMOVUPD Y11, 0(R9)

// ACCZ is ACC in 512 bits, d = x - c in Z12 (ACCZD, or masked: ACCZM).
#define ACCZ(off) \
	VADDPD Z12, Z9, Z9; \
	VMULPD Z12, Z12, Z13; \
	VADDPD Z13, Z10, Z10; \
	VBROADCASTSD off(DX), Z13; \
	VMULPD Z12, Z13, Z13; \
	VADDPD Z13, Z11, Z11

#define ACCZD(X, off) \
	VSUBPD Z8, X, Z12; \
	ACCZ(off)

#define ACCZM(X, K, off) \
	VSUBPD.Z Z8, X, K, Z12; \
	ACCZ(off)

// LOADZ loads both groups' c, s1, s2, s3 at j: A's vectors in the low
// 256 bits, B's in the high.
#define LOADZ \
	VMOVUPD 0(DI), Y8; \
	VINSERTF64X4 $1, 0(R10), Z8, Z8; \
	VMOVUPD 0(SI), Y9; \
	VINSERTF64X4 $1, 0(R11), Z9, Z9; \
	VMOVUPD 0(R8), Y10; \
	VINSERTF64X4 $1, 0(R12), Z10, Z10; \
	VMOVUPD 0(R9), Y11; \
	VINSERTF64X4 $1, 0(R13), Z11, Z11

// STOREZ stores both groups' s1, s2, s3 at j.
#define STOREZ \
	VMOVUPD Y9, 0(SI); \
	VEXTRACTF64X4 $1, Z9, 0(R11); \
	VMOVUPD Y10, 0(R8); \
	VEXTRACTF64X4 $1, Z10, 0(R12); \
	VMOVUPD Y11, 0(R9); \
	VEXTRACTF64X4 $1, Z11, 0(R13)

// SLOTZ is SLOT for both groups, with the trajectories' masks.
#define SLOTZ \
	LOADZ; \
	ACCZD(Z0, 0); \
	ACCZM(Z1, K1, 8); \
	ACCZM(Z2, K2, 16); \
	ACCZM(Z3, K3, 24); \
	ACCZM(Z4, K4, 32); \
	ACCZM(Z5, K5, 40); \
	ACCZM(Z6, K6, 48); \
	ACCZM(Z7, K7, 56); \
	STOREZ

// Squares that are subnormal. A multiply whose result is subnormal
// takes a microcode assist of about 120 cycles (measured here: 55 to 69
// ns against 0.4 to 0.8 for a normal one, for results from 2^-1022 down
// to about 2^-1084; none at 2^-1092 or below). In configs/horizon.yaml's
// B and C at H = 3000, X = B_k r_t falls below 2^-511 at the largest
// lags, where the products of ratios 0.5 and 1.5 shrink by about 0.2
// bits a step, and the assists made INCRIS there about 1.4 times as slow
// as on A. ACCZT computes those squares without one, to the same bits:
// for 2^-548 <= |d| < 2^-512 (a "band" lane), with ds = d 2^600 (exact,
// |ds| < 2^88), the square d^2 = ds^2 2^-1200 is rounded to the
// subnormal grid 2^-1074, which is the grid 2^126 for ds^2. hz = ds^2
// rounded toward zero and lo = ds^2 - hz (exact, by one FMA) give ds^2
// rounded to odd at 53 bits (hz with its last bit set when lo != 0);
// rounding that to nearest on a grid at least 4 times as coarse (ds^2 <
// 2^176, so ulp(hz) <= 2^123) is the correct rounding of ds^2 (rounding
// to odd first makes a double rounding innocuous when the second keeps
// at least 2 bits fewer). Adding M = 2^178, whose ulp is 2^126, rounds
// so, ties to even as the subnormal grid does; bits(t) - bits(M) are
// then the bits of the subnormal d^2 (m 2^-1074 is stored as the integer
// m; a square that rounds up to 2^-1022 gives 1<<52, its bits too). The
// other lanes take the multiply as ACCZ does, and a slot whose lanes are
// all outside the band skips the rest (branches that follow long runs:
// a trajectory's products stay in the band for about 180 lags). |d| in
// [2^-512, 2^-511) still rounds to a subnormal there, rarely enough.
//
// Registers: Z16 the sign mask, Z26 bits(2^-548), Z27 bits(2^-512) -
// bits(2^-548), Z18 2^600, Z19 M, Z20 the integer 1, Z21..Z24 scratch,
// K5 band lanes, K6 the others, K7 inexact (the trajectories' masks are
// then read from memory, R14).
#define ACCZT(off, skip) \
	VADDPD Z12, Z9, Z9; \
	VANDPD Z16, Z12, Z21; \
	VPSUBQ Z26, Z21, Z21; \
	VPCMPUQ $1, Z27, Z21, K5; \
	KNOTB K5, K6; \
	VMULPD.Z Z12, Z12, K6, Z13; \
	KORTESTB K5, K5; \
	JZ skip; \
	VMULPD.Z Z18, Z12, K5, Z22; \
	VMULPD.RZ_SAE.Z Z22, Z22, K5, Z23; \
	VMOVAPD Z23, Z24; \
	VFMSUB231PD Z22, Z22, Z24; \
	VCMPPD $4, Z14, Z24, K7; \
	VPORQ Z20, Z23, K7, Z23; \
	VADDPD Z19, Z23, Z23; \
	VPSUBQ Z19, Z23, K5, Z13; \
skip: \
	VADDPD Z13, Z10, Z10; \
	VBROADCASTSD off(DX), Z21; \
	VMULPD Z12, Z21, Z21; \
	VADDPD Z21, Z11, Z11

#define ACCZTD(X, off, skip) \
	VSUBPD Z8, X, Z12; \
	ACCZT(off, skip)

#define ACCZTM(X, off, skip) \
	VSUBPD Z8, X, Z12; \
	VANDPD.BCST off(R14), Z12, Z12; \
	ACCZT(off, skip)

// SLOTZT is SLOTZ with ACCZT's squares.
#define SLOTZT \
	LOADZ; \
	ACCZTD(Z0, 0, tiny0); \
	ACCZTM(Z1, 8, tiny1); \
	ACCZTM(Z2, 16, tiny2); \
	ACCZTM(Z3, 24, tiny3); \
	ACCZTM(Z4, 32, tiny4); \
	ACCZTM(Z5, 40, tiny5); \
	ACCZTM(Z6, 48, tiny6); \
	ACCZTM(Z7, 56, tiny7); \
	STOREZ

// TINY sets K0 to the lanes where some x (Z0..Z7) is nonzero and below
// 2^-480 in magnitude: v = 2 bits(x) - 1 (the sign shifted out; 0 wraps
// to the largest unsigned) is below 2 bits(2^-480) - 1 (Z15) exactly
// then. The pair loop checks every 16 slots and turns to SLOTZT for the
// rest of the row once a product of ratios comes within 2^32 of where
// squares turn subnormal (a speed choice: both slots give the same bits).
#define TINY \
	VPSLLQ $1, Z0, Z21; VPADDQ Z25, Z21, Z21; \
	VPSLLQ $1, Z1, Z22; VPADDQ Z25, Z22, Z22; \
	VPMINUQ Z22, Z21, Z21; \
	VPSLLQ $1, Z2, Z22; VPADDQ Z25, Z22, Z22; \
	VPMINUQ Z22, Z21, Z21; \
	VPSLLQ $1, Z3, Z22; VPADDQ Z25, Z22, Z22; \
	VPMINUQ Z22, Z21, Z21; \
	VPSLLQ $1, Z4, Z22; VPADDQ Z25, Z22, Z22; \
	VPMINUQ Z22, Z21, Z21; \
	VPSLLQ $1, Z5, Z22; VPADDQ Z25, Z22, Z22; \
	VPMINUQ Z22, Z21, Z21; \
	VPSLLQ $1, Z6, Z22; VPADDQ Z25, Z22, Z22; \
	VPMINUQ Z22, Z21, Z21; \
	VPSLLQ $1, Z7, Z22; VPADDQ Z25, Z22, Z22; \
	VPMINUQ Z22, Z21, Z21; \
	VPCMPUQ $1, Z15, Z21, K0

// NEXTZ moves both groups' pointers from j to j-1.
#define NEXTZ \
	NEXT; \
	SUBQ $32, R10; \
	SUBQ $32, R11; \
	SUBQ $32, R12; \
	SUBQ $32, R13

// func pairAVX512(a, b *Cell, s0 int, rv *[64]float64, rho, tda *float64, masks *[8]uint64)
TEXT ·pairAVX512(SB), NOSPLIT, $0-56
	MOVQ b+8(FP), R10
	MOVQ s0+16(FP), CX
	MOVQ rv+24(FP), BX
	MOVQ rho+32(FP), AX
	MOVQ tda+40(FP), DX

	// B: rows of s0+5 cells, from j = s0+4
	LEAQ 5(CX), R14
	SHLQ $5, R14
	LEAQ 4(CX), R11
	SHLQ $5, R11
	ADDQ R11, R10
	LEAQ (R10)(R14*1), R11
	LEAQ (R11)(R14*1), R12
	LEAQ (R12)(R14*1), R13

	// A: rows of s0+9 cells, from j = s0+8; rho, tda from j = s0+8
	MOVQ a+0(FP), DI
	LEAQ 9(CX), R14
	SHLQ $5, R14
	LEAQ 8(CX), SI
	SHLQ $5, SI
	ADDQ SI, DI
	SHLQ $1, SI
	ADDQ SI, AX
	ADDQ SI, DX
	LEAQ (DI)(R14*1), SI
	LEAQ (SI)(R14*1), R8
	LEAQ (R8)(R14*1), R9
	INCQ CX // main loop: j = s0 .. 0

	// ACCZT's and TINY's constants
	MOVQ $0x7fffffffffffffff, R14
	VPBROADCASTQ R14, Z16
	MOVQ $0x1db0000000000000, R14 // 2^-548
	VPBROADCASTQ R14, Z26
	MOVQ $0x0240000000000000, R14 // bits(2^-512) - bits(2^-548)
	VPBROADCASTQ R14, Z27
	MOVQ $0x6570000000000000, R14 // 2^600
	VPBROADCASTQ R14, Z18
	MOVQ $0x4b10000000000000, R14 // 2^178
	VPBROADCASTQ R14, Z19
	MOVQ $1, R14
	VPBROADCASTQ R14, Z20
	MOVQ $0x43dfffffffffffff, R14 // 2 bits(2^-480) - 1
	VPBROADCASTQ R14, Z15
	VPTERNLOGD $0xff, Z25, Z25, Z25 // every bit 1: the integer -1

	// the trajectories' masks
	MOVQ masks+48(FP), R14
	KMOVB 8(R14), K1
	KMOVB 16(R14), K2
	KMOVB 24(R14), K3
	KMOVB 32(R14), K4
	KMOVB 40(R14), K5
	KMOVB 48(R14), K6
	KMOVB 56(R14), K7

	// j = s0+8 .. s0+5: A alone (256 bits; the high halves stay 0)
	VXORPD Y14, Y14, Y14
	VBLENDPD $8, 256(BX), Y14, Y0
	VBLENDPD $8, 288(BX), Y14, Y1
	VBLENDPD $8, 320(BX), Y14, Y2
	VBLENDPD $8, 352(BX), Y14, Y3
	VBLENDPD $8, 384(BX), Y14, Y4
	VBLENDPD $8, 416(BX), Y14, Y5
	VBLENDPD $8, 448(BX), Y14, Y6
	VBLENDPD $8, 480(BX), Y14, Y7
	SLOTM
	NEXT
	MULX
	STARTA(4)
	SLOTM
	NEXT
	MULX
	STARTA(2)
	SLOTM
	NEXT
	MULX
	STARTA(1)
	SLOTM
	NEXT

	// j = s0+4 .. s0+1: B's rows start, lanes 7, 6, 5, 4
	MULXZ
	STARTB(8)
	SLOTZ
	NEXTZ
	MULXZ
	STARTB(4)
	SLOTZ
	NEXTZ
	MULXZ
	STARTB(2)
	SLOTZ
	NEXTZ
	MULXZ
	STARTB(1)
	SLOTZ
	NEXTZ

pairloop:
	MULXZ
	SLOTZ
	NEXTZ
	DECQ CX
	JZ   pairdone
	TESTQ $15, CX
	JNZ  pairloop
	TINY
	KORTESTB K0, K0
	JZ   pairloop

	// From here on (larger lags) some x is tiny: the rest of the row
	// takes SLOTZT's squares, which never make the multiplier round to a
	// subnormal.
tinyloop:
	MULXZ
	SLOTZT
	NEXTZ
	DECQ CX
	JNZ  tinyloop

pairdone:
	VZEROUPPER
	RET
