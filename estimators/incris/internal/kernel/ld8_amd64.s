//go:build !noasm && !gccgo

#include "textflag.h"

// The Lepski rounds' kernels (ld8_amd64.go), eight trajectories a ZMM
// register, AX the index of the first, CX the end m (a multiple of 8).

// func chain2AVX512(rho0, rho1, bk *float64, m int)
// B = (B rho0) rho1, rounded after each product as chain2Go.
TEXT ·chain2AVX512(SB), NOSPLIT, $0-32
	MOVQ rho0+0(FP), DI
	MOVQ rho1+8(FP), SI
	MOVQ bk+16(FP), R11
	MOVQ m+24(FP), CX
	XORQ AX, AX

c2loop:
	CMPQ AX, CX
	JGE  c2done
	VMOVUPD (R11)(AX*8), Z0
	VMULPD  (DI)(AX*8), Z0, Z0
	VMULPD  (SI)(AX*8), Z0, Z0
	VMOVUPD Z0, (R11)(AX*8)
	ADDQ    $8, AX
	JMP     c2loop

c2done:
	VZEROUPPER
	RET

// func regenAVX512(rho, rw, bk, a *float64, m int, cx float64)
// x = B r; a = x - cx; B = B rho, as regenGo.
TEXT ·regenAVX512(SB), NOSPLIT, $0-48
	MOVQ         rho+0(FP), DI
	MOVQ         rw+8(FP), R10
	MOVQ         bk+16(FP), R11
	MOVQ         a+24(FP), R12
	MOVQ         m+32(FP), CX
	VBROADCASTSD cx+40(FP), Z5
	XORQ         AX, AX

r1loop:
	CMPQ    AX, CX
	JGE     r1done
	VMOVUPD (R11)(AX*8), Z0
	VMULPD  (R10)(AX*8), Z0, Z1
	VSUBPD  Z5, Z1, Z1
	VMOVUPD Z1, (R12)(AX*8)
	VMULPD  (DI)(AX*8), Z0, Z0
	VMOVUPD Z0, (R11)(AX*8)
	ADDQ    $8, AX
	JMP     r1loop

r1done:
	VZEROUPPER
	RET

// func regen2AVX512(rho0, rho1, rw, bk, a0, a1 *float64, m int, cx0, cx1 float64)
// x = B r; a0 = x - cx0; B = B rho0; x = B r; a1 = x - cx1; B = B rho1, as
// regen2Go.
TEXT ·regen2AVX512(SB), NOSPLIT, $0-72
	MOVQ         rho0+0(FP), DI
	MOVQ         rho1+8(FP), SI
	MOVQ         rw+16(FP), R10
	MOVQ         bk+24(FP), R11
	MOVQ         a0+32(FP), R12
	MOVQ         a1+40(FP), R13
	MOVQ         m+48(FP), CX
	VBROADCASTSD cx0+56(FP), Z5
	VBROADCASTSD cx1+64(FP), Z6
	XORQ         AX, AX

r2loop:
	CMPQ    AX, CX
	JGE     r2done
	VMOVUPD (R11)(AX*8), Z0
	VMOVUPD (R10)(AX*8), Z2
	VMULPD  Z2, Z0, Z1
	VSUBPD  Z5, Z1, Z1
	VMOVUPD Z1, (R12)(AX*8)
	VMULPD  (DI)(AX*8), Z0, Z0
	VMULPD  Z2, Z0, Z1
	VSUBPD  Z6, Z1, Z1
	VMOVUPD Z1, (R13)(AX*8)
	VMULPD  (SI)(AX*8), Z0, Z0
	VMOVUPD Z0, (R11)(AX*8)
	ADDQ    $8, AX
	JMP     r2loop

r2done:
	VZEROUPPER
	RET

// Registers of pairs8AVX512 (lane L = lag k+L of incris-ld's pass):
//
//	Z0..Z4   sx, sd, ss, l0, l1 of the eight cells
//	Z5, Z6   the shifts cx and cd
//	Z7       1.0 in every lane
//	Z8..Z15  rho of the eight lags, eight trajectories a vector, then
//	         rho - 1; after the transposes scratch
//	Z16..Z23 B of the eight lags, eight trajectories a vector; after the
//	         transposes (rho - 1) of trajectory j+i in Z16+i
//	Z24..Z31 B of trajectory j+i (its eight lags) in Z24+i
//	BX ptr (the rows), R10, R11 rewards and B (bk), AX trajectory index j,
//	CX its end m, DX acc (Acc8), DI a row

// TRANSPOSE8 transposes the 8 x 8 matrix whose rows are R0..R7 into T0..T7
// (T_c lane r = R_r lane c), R0..R7 overwritten: pairs of rows
// interleaved, then their 128-bit blocks twice.
#define TRANSPOSE8(R0, R1, R2, R3, R4, R5, R6, R7, T0, T1, T2, T3, T4, T5, T6, T7) \
	VUNPCKLPD R1, R0, T0; \
	VUNPCKHPD R1, R0, T1; \
	VUNPCKLPD R3, R2, T2; \
	VUNPCKHPD R3, R2, T3; \
	VUNPCKLPD R5, R4, T4; \
	VUNPCKHPD R5, R4, T5; \
	VUNPCKLPD R7, R6, T6; \
	VUNPCKHPD R7, R6, T7; \
	VSHUFF64X2 $0x88, T2, T0, R0; \
	VSHUFF64X2 $0xDD, T2, T0, R1; \
	VSHUFF64X2 $0x88, T3, T1, R2; \
	VSHUFF64X2 $0xDD, T3, T1, R3; \
	VSHUFF64X2 $0x88, T6, T4, R4; \
	VSHUFF64X2 $0xDD, T6, T4, R5; \
	VSHUFF64X2 $0x88, T7, T5, R6; \
	VSHUFF64X2 $0xDD, T7, T5, R7; \
	VSHUFF64X2 $0x88, R4, R0, T0; \
	VSHUFF64X2 $0xDD, R4, R0, T4; \
	VSHUFF64X2 $0x88, R5, R1, T2; \
	VSHUFF64X2 $0xDD, R5, R1, T6; \
	VSHUFF64X2 $0x88, R6, R2, T1; \
	VSHUFF64X2 $0xDD, R6, R2, T5; \
	VSHUFF64X2 $0x88, R7, R3, T3; \
	VSHUFF64X2 $0xDD, R7, R3, T7

// TRAJ8 adds trajectory j+I (its B in TB, rho - 1 in TF) to the eight
// cells, as pairs8Go does: x = B r; d = (rho - 1) x; sx += x; sd += d;
// ss += (d - cd)^2; LANE += (x - cx)^2.
#define TRAJ8(I, TB, TF, LANE) \
	VBROADCASTSD (8*I)(R10)(AX*8), Z8; \
	VMULPD Z8, TB, Z9; \
	VMULPD Z9, TF, Z10; \
	VADDPD Z9, Z0, Z0; \
	VADDPD Z10, Z1, Z1; \
	VSUBPD Z6, Z10, Z10; \
	VMULPD Z10, Z10, Z10; \
	VADDPD Z10, Z2, Z2; \
	VSUBPD Z5, Z9, Z9; \
	VMULPD Z9, Z9, Z9; \
	VADDPD Z9, LANE, LANE

// func pairs8AVX512(ptr *[8]*float64, rw, bk *float64, m int, acc *Acc8)
TEXT ·pairs8AVX512(SB), NOSPLIT, $0-40
	MOVQ    ptr+0(FP), BX
	MOVQ    rw+8(FP), R10
	MOVQ    bk+16(FP), R11
	MOVQ    m+24(FP), CX
	MOVQ    acc+32(FP), DX
	VMOVUPD 0(DX), Z0
	VMOVUPD 64(DX), Z1
	VMOVUPD 128(DX), Z2
	VMOVUPD 192(DX), Z3
	VMOVUPD 256(DX), Z4
	VMOVUPD 320(DX), Z5
	VMOVUPD 384(DX), Z6
	MOVQ    $0x3ff0000000000000, AX
	VPBROADCASTQ AX, Z7
	XORQ    AX, AX

p8loop:
	CMPQ    AX, CX
	JGE     p8done
	VMOVUPD (R11)(AX*8), Z16
	MOVQ    0(BX), DI
	VMOVUPD (DI)(AX*8), Z8
	VMULPD  Z8, Z16, Z17
	MOVQ    8(BX), DI
	VMOVUPD (DI)(AX*8), Z9
	VMULPD  Z9, Z17, Z18
	MOVQ    16(BX), DI
	VMOVUPD (DI)(AX*8), Z10
	VMULPD  Z10, Z18, Z19
	MOVQ    24(BX), DI
	VMOVUPD (DI)(AX*8), Z11
	VMULPD  Z11, Z19, Z20
	MOVQ    32(BX), DI
	VMOVUPD (DI)(AX*8), Z12
	VMULPD  Z12, Z20, Z21
	MOVQ    40(BX), DI
	VMOVUPD (DI)(AX*8), Z13
	VMULPD  Z13, Z21, Z22
	MOVQ    48(BX), DI
	VMOVUPD (DI)(AX*8), Z14
	VMULPD  Z14, Z22, Z23
	MOVQ    56(BX), DI
	VMOVUPD (DI)(AX*8), Z15
	VMULPD  Z15, Z23, Z24
	VMOVUPD Z24, (R11)(AX*8)
	VSUBPD  Z7, Z8, Z8
	VSUBPD  Z7, Z9, Z9
	VSUBPD  Z7, Z10, Z10
	VSUBPD  Z7, Z11, Z11
	VSUBPD  Z7, Z12, Z12
	VSUBPD  Z7, Z13, Z13
	VSUBPD  Z7, Z14, Z14
	VSUBPD  Z7, Z15, Z15
	TRANSPOSE8(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)
	TRANSPOSE8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	TRAJ8(0, Z24, Z16, Z3)
	TRAJ8(1, Z25, Z17, Z4)
	TRAJ8(2, Z26, Z18, Z3)
	TRAJ8(3, Z27, Z19, Z4)
	TRAJ8(4, Z28, Z20, Z3)
	TRAJ8(5, Z29, Z21, Z4)
	TRAJ8(6, Z30, Z22, Z3)
	TRAJ8(7, Z31, Z23, Z4)
	ADDQ    $8, AX
	JMP     p8loop

p8done:
	VMOVUPD Z0, 0(DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VMOVUPD Z4, 256(DX)
	VZEROUPPER
	RET

// PROD8 is entry I's products of the eight trajectories at AX, a times x
// as dotPairs8Go, in Z8+I.
#define PROD8(I, Z) \
	MOVQ    (8*I)(BX), DI; \
	MOVQ    (64+8*I)(BX), SI; \
	VMOVUPD (DI)(AX*8), Z; \
	VMULPD  (SI)(AX*8), Z, Z

// func dotPairs8AVX512(ptr *[16]*float64, m int, acc *[16]float64)
// Z0, Z1: L0 and L1 of the eight entries; Z8..Z15 the products, entry a
// vector; Z16..Z23 the products, trajectory a vector.
TEXT ·dotPairs8AVX512(SB), NOSPLIT, $0-24
	MOVQ    ptr+0(FP), BX
	MOVQ    m+8(FP), CX
	MOVQ    acc+16(FP), DX
	VMOVUPD 0(DX), Z0
	VMOVUPD 64(DX), Z1
	XORQ    AX, AX

d8loop:
	CMPQ   AX, CX
	JGE    d8done
	PROD8(0, Z8)
	PROD8(1, Z9)
	PROD8(2, Z10)
	PROD8(3, Z11)
	PROD8(4, Z12)
	PROD8(5, Z13)
	PROD8(6, Z14)
	PROD8(7, Z15)
	TRANSPOSE8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	VADDPD Z16, Z0, Z0
	VADDPD Z17, Z1, Z1
	VADDPD Z18, Z0, Z0
	VADDPD Z19, Z1, Z1
	VADDPD Z20, Z0, Z0
	VADDPD Z21, Z1, Z1
	VADDPD Z22, Z0, Z0
	VADDPD Z23, Z1, Z1
	ADDQ   $8, AX
	JMP    d8loop

d8done:
	VMOVUPD Z0, 0(DX)
	VMOVUPD Z1, 64(DX)
	VZEROUPPER
	RET

// func means8AVX512(ptr *[8]*float64, rw, bk *float64, m int, sx, sd *float64)
// Z0, Z1: sx and sd of the eight lags; Z7 1.0; Z8..Z15 rho, then rho - 1,
// then D, eight trajectories a vector (lag L in Z8+L); Z16..Z23 B, then
// X; Z24..Z31 X, then D, one trajectory a vector; Z25 the rewards.
TEXT ·means8AVX512(SB), NOSPLIT, $0-48
	MOVQ    ptr+0(FP), BX
	MOVQ    rw+8(FP), R10
	MOVQ    bk+16(FP), R11
	MOVQ    m+24(FP), CX
	MOVQ    sx+32(FP), DX
	MOVQ    sd+40(FP), R12
	VMOVUPD 0(DX), Z0
	VMOVUPD 0(R12), Z1
	MOVQ    $0x3ff0000000000000, AX
	VPBROADCASTQ AX, Z7
	XORQ    AX, AX

m8loop:
	CMPQ    AX, CX
	JGE     m8done
	VMOVUPD (R11)(AX*8), Z16
	MOVQ    0(BX), DI
	VMOVUPD (DI)(AX*8), Z8
	VMULPD  Z8, Z16, Z17
	MOVQ    8(BX), DI
	VMOVUPD (DI)(AX*8), Z9
	VMULPD  Z9, Z17, Z18
	MOVQ    16(BX), DI
	VMOVUPD (DI)(AX*8), Z10
	VMULPD  Z10, Z18, Z19
	MOVQ    24(BX), DI
	VMOVUPD (DI)(AX*8), Z11
	VMULPD  Z11, Z19, Z20
	MOVQ    32(BX), DI
	VMOVUPD (DI)(AX*8), Z12
	VMULPD  Z12, Z20, Z21
	MOVQ    40(BX), DI
	VMOVUPD (DI)(AX*8), Z13
	VMULPD  Z13, Z21, Z22
	MOVQ    48(BX), DI
	VMOVUPD (DI)(AX*8), Z14
	VMULPD  Z14, Z22, Z23
	MOVQ    56(BX), DI
	VMOVUPD (DI)(AX*8), Z15
	VMULPD  Z15, Z23, Z24
	VMOVUPD Z24, (R11)(AX*8)
	VMOVUPD (R10)(AX*8), Z25
	VMULPD  Z25, Z16, Z16
	VMULPD  Z25, Z17, Z17
	VMULPD  Z25, Z18, Z18
	VMULPD  Z25, Z19, Z19
	VMULPD  Z25, Z20, Z20
	VMULPD  Z25, Z21, Z21
	VMULPD  Z25, Z22, Z22
	VMULPD  Z25, Z23, Z23
	VSUBPD  Z7, Z8, Z8
	VSUBPD  Z7, Z9, Z9
	VSUBPD  Z7, Z10, Z10
	VSUBPD  Z7, Z11, Z11
	VSUBPD  Z7, Z12, Z12
	VSUBPD  Z7, Z13, Z13
	VSUBPD  Z7, Z14, Z14
	VSUBPD  Z7, Z15, Z15
	VMULPD  Z16, Z8, Z8
	VMULPD  Z17, Z9, Z9
	VMULPD  Z18, Z10, Z10
	VMULPD  Z19, Z11, Z11
	VMULPD  Z20, Z12, Z12
	VMULPD  Z21, Z13, Z13
	VMULPD  Z22, Z14, Z14
	VMULPD  Z23, Z15, Z15
	TRANSPOSE8(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)
	VADDPD  Z24, Z0, Z0
	VADDPD  Z25, Z0, Z0
	VADDPD  Z26, Z0, Z0
	VADDPD  Z27, Z0, Z0
	VADDPD  Z28, Z0, Z0
	VADDPD  Z29, Z0, Z0
	VADDPD  Z30, Z0, Z0
	VADDPD  Z31, Z0, Z0
	TRANSPOSE8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)
	VADDPD  Z24, Z1, Z1
	VADDPD  Z25, Z1, Z1
	VADDPD  Z26, Z1, Z1
	VADDPD  Z27, Z1, Z1
	VADDPD  Z28, Z1, Z1
	VADDPD  Z29, Z1, Z1
	VADDPD  Z30, Z1, Z1
	VADDPD  Z31, Z1, Z1
	ADDQ    $8, AX
	JMP     m8loop

m8done:
	VMOVUPD Z0, 0(DX)
	VMOVUPD Z1, 0(R12)
	VZEROUPPER
	RET

// Registers of steps8AVX512 (lane L = step s+L, four lags k+q):
//
//	Z0..Z19  sx, sd, ss, l0, l1 of lag k+q in Z(5q)..Z(5q+4)
//	Z26 B, Z27 the rewards, Z28 x, Z29 rho, Z30 scratch, Z31 1.0
//	SI ratios at step s-k, R10 rewards at step s (the trajectory's), R8
//	the bytes between trajectories, R11 bk, CX the trajectories left, DX
//	acc (Steps8Acc: lag q at 512q bytes, cx at +384, cd at +448)

// SLAG adds lag k+Q of one trajectory (B in Z26, rewards in Z27) to its
// cells, as steps8Go: x = B r; d = (rho - 1) x; sx += x; sd += d;
// ss += (d - cd)^2; LANE += (x - cx)^2; B = B rho.
#define SLAG(Q, SX, SD, SS, LANE) \
	VMULPD  Z27, Z26, Z28; \
	VMOVUPD (-8*Q)(SI), Z29; \
	VSUBPD  Z31, Z29, Z30; \
	VMULPD  Z28, Z30, Z30; \
	VADDPD  Z28, SX, SX; \
	VADDPD  Z30, SD, SD; \
	VSUBPD  (512*Q+448)(DX), Z30, Z30; \
	VMULPD  Z30, Z30, Z30; \
	VADDPD  Z30, SS, SS; \
	VSUBPD  (512*Q+384)(DX), Z28, Z28; \
	VMULPD  Z28, Z28, Z28; \
	VADDPD  Z28, LANE, LANE; \
	VMULPD  Z29, Z26, Z26

// SLOAD and SSTORE move lag Q's five sums between acc and registers.
#define SLOAD(Q, SX, SD, SS, L0, L1) \
	VMOVUPD (512*Q)(DX), SX; \
	VMOVUPD (512*Q+64)(DX), SD; \
	VMOVUPD (512*Q+128)(DX), SS; \
	VMOVUPD (512*Q+192)(DX), L0; \
	VMOVUPD (512*Q+256)(DX), L1

#define SSTORE(Q, SX, SD, SS, L0, L1) \
	VMOVUPD SX, (512*Q)(DX); \
	VMOVUPD SD, (512*Q+64)(DX); \
	VMOVUPD SS, (512*Q+128)(DX); \
	VMOVUPD L0, (512*Q+192)(DX); \
	VMOVUPD L1, (512*Q+256)(DX)

// func steps8AVX512(ratio, rw *float64, bs int, bk *float64, m int, acc *Steps8Acc)
TEXT ·steps8AVX512(SB), NOSPLIT, $0-48
	MOVQ ratio+0(FP), SI
	MOVQ rw+8(FP), R10
	MOVQ bs+16(FP), R8
	MOVQ bk+24(FP), R11
	MOVQ m+32(FP), CX
	MOVQ acc+40(FP), DX
	MOVQ         $0x3ff0000000000000, AX
	VPBROADCASTQ AX, Z31
	SLOAD(0, Z0, Z1, Z2, Z3, Z4)
	SLOAD(1, Z5, Z6, Z7, Z8, Z9)
	SLOAD(2, Z10, Z11, Z12, Z13, Z14)
	SLOAD(3, Z15, Z16, Z17, Z18, Z19)

s8loop:
	PREFETCHT0 -24(SI)(R8*8)
	PREFETCHT0 (R10)(R8*8)
	PREFETCHT0 56(R10)(R8*8)
	VMOVUPD    (R11), Z26
	VMOVUPD    (R10), Z27
	SLAG(0, Z0, Z1, Z2, Z3)
	SLAG(1, Z5, Z6, Z7, Z8)
	SLAG(2, Z10, Z11, Z12, Z13)
	SLAG(3, Z15, Z16, Z17, Z18)
	VMOVUPD Z26, (R11)
	ADDQ    R8, SI
	ADDQ    R8, R10
	PREFETCHT0 -24(SI)(R8*8)
	PREFETCHT0 (R10)(R8*8)
	PREFETCHT0 56(R10)(R8*8)
	VMOVUPD    64(R11), Z26
	VMOVUPD    (R10), Z27
	SLAG(0, Z0, Z1, Z2, Z4)
	SLAG(1, Z5, Z6, Z7, Z9)
	SLAG(2, Z10, Z11, Z12, Z14)
	SLAG(3, Z15, Z16, Z17, Z19)
	VMOVUPD Z26, 64(R11)
	ADDQ    R8, SI
	ADDQ    R8, R10
	ADDQ    $128, R11
	SUBQ    $2, CX
	JGT     s8loop

	SSTORE(0, Z0, Z1, Z2, Z3, Z4)
	SSTORE(1, Z5, Z6, Z7, Z8, Z9)
	SSTORE(2, Z10, Z11, Z12, Z13, Z14)
	SSTORE(3, Z15, Z16, Z17, Z18, Z19)
	VZEROUPPER
	RET

// MLAG adds lag k+Q of one trajectory to the shifts' sums, as
// meansSteps8Go: x = B r; sx += x; sd += (rho - 1) x; B = B rho.
#define MLAG(Q, SX, SD) \
	VMULPD  Z27, Z26, Z28; \
	VMOVUPD (-8*Q)(SI), Z29; \
	VADDPD  Z28, SX, SX; \
	VSUBPD  Z31, Z29, Z30; \
	VMULPD  Z28, Z30, Z30; \
	VADDPD  Z30, SD, SD; \
	VMULPD  Z29, Z26, Z26

// func meansSteps8AVX512(ratio, rw *float64, bs int, bk *float64, m int, acc *MeansSteps8Acc)
// Z0..Z7: sx, sd of lag k+q in Z(2q), Z(2q+1); the rest as steps8AVX512.
TEXT ·meansSteps8AVX512(SB), NOSPLIT, $0-48
	MOVQ         ratio+0(FP), SI
	MOVQ         rw+8(FP), R10
	MOVQ         bs+16(FP), R8
	MOVQ         bk+24(FP), R11
	MOVQ         m+32(FP), CX
	MOVQ         acc+40(FP), DX
	MOVQ         $0x3ff0000000000000, AX
	VPBROADCASTQ AX, Z31
	VMOVUPD      0(DX), Z0
	VMOVUPD      64(DX), Z1
	VMOVUPD      128(DX), Z2
	VMOVUPD      192(DX), Z3
	VMOVUPD      256(DX), Z4
	VMOVUPD      320(DX), Z5
	VMOVUPD      384(DX), Z6
	VMOVUPD      448(DX), Z7

ms8loop:
	PREFETCHT0 -24(SI)(R8*8)
	PREFETCHT0 (R10)(R8*8)
	PREFETCHT0 56(R10)(R8*8)
	VMOVUPD    (R11), Z26
	VMOVUPD    (R10), Z27
	MLAG(0, Z0, Z1)
	MLAG(1, Z2, Z3)
	MLAG(2, Z4, Z5)
	MLAG(3, Z6, Z7)
	VMOVUPD Z26, (R11)
	ADDQ    R8, SI
	ADDQ    R8, R10
	ADDQ    $64, R11
	DECQ    CX
	JGT     ms8loop

	VMOVUPD Z0, 0(DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VMOVUPD Z4, 256(DX)
	VMOVUPD Z5, 320(DX)
	VMOVUPD Z6, 384(DX)
	VMOVUPD Z7, 448(DX)
	VZEROUPPER
	RET

// FAILS8 sets K to the lanes where Fails(skk, sd, Y, mk, mean, nf) is
// true, with Z15 = skk + sd, Z16 = d, Z19 = t (1 - 2^-40), Z22 = t (1 +
// 2^-40), K1 the lanes in the fast path's range (scanClassAVX512's
// registers): v = max((skk + sd) - 2 Y, 0), NaN kept; fails if v <
// t (1 - 2^-40), passes if v > t (1 + 2^-40), in range; else fails if
// d > 2 sqrt(v/nf). Z23, Z24, K2..K4 scratch; LBL a local label.
#define FAILS8(Y, K, LBL) \
	VMULPD  Z8, Y, Z23; \
	VSUBPD  Z23, Z15, Z23; \
	VMAXPD  Z23, Z13, Z23; \
	VCMPPD  $0x11, Z19, Z23, K2; \
	KANDW   K1, K2, K; \
	VCMPPD  $0x1e, Z22, Z23, K3; \
	KANDW   K1, K3, K3; \
	KORW    K, K3, K4; \
	KMOVW   K4, BX; \
	CMPQ    BX, $0xff; \
	JEQ     LBL; \
	VDIVPD  Z6, Z23, Z24; \
	VSQRTPD Z24, Z24; \
	VMULPD  Z8, Z24, Z24; \
	VCMPPD  $0x1e, Z24, Z16, K2; \
	KANDNW  K2, K4, K2; \
	KORW    K2, K, K; \
LBL:

// CALLAPPEND writes Unknown{K2: k2 + AX + i} at R13 for each lane i set
// in DX, in order (R13 and the count R14 advance; BX, DX scratch).
#define CALLAPPEND(LOOP, DONE) \
LOOP: \
	TESTQ DX, DX; \
	JZ    DONE; \
	BSFQ  DX, BX; \
	ADDQ  AX, BX; \
	ADDQ  R15, BX; \
	MOVQ  BX, 0(R13); \
	MOVQ  $0, 8(R13); \
	ADDQ  $16, R13; \
	INCQ  R14; \
	LEAQ  -1(DX), BX; \
	ANDQ  BX, DX; \
	JMP   LOOP; \
DONE:

// func scanClassAVX512(p *ScanRow, sd, sq, mean, cx, dm *float64, m, k2 int, unk *Unknown) (int, int)
// Z0 sqk, Z1 2^-1000, Z2 tmp1, Z3 tmp2, Z4 skk, Z5 mk, Z6 nf, Z7 0.5,
// Z8 2, Z9 2^-950, Z10 2^990, Z11 1+2^-40, Z12 the sign mask's
// complement, Z13 0, Z18 1-2^-40, Z25 the sign mask; R8, R9 tmp1 != 0,
// tmp2 != 0; R13 unk, R14 the number written, R15 k2.
TEXT ·scanClassAVX512(SB), NOSPLIT, $0-88
	MOVQ         p+0(FP), DX
	MOVQ         sd+8(FP), SI
	MOVQ         sq+16(FP), DI
	MOVQ         mean+24(FP), R10
	MOVQ         cx+32(FP), R11
	MOVQ         dm+40(FP), R12
	MOVQ         m+48(FP), CX
	MOVQ         k2+56(FP), R15
	MOVQ         unk+64(FP), R13
	XORQ         R14, R14
	VBROADCASTSD 8(DX), Z0
	VBROADCASTSD 0(DX), Z4
	VBROADCASTSD 16(DX), Z5
	VBROADCASTSD 24(DX), Z6
	VBROADCASTSD 32(DX), Z2
	VBROADCASTSD 40(DX), Z3
	VPXORQ       Z13, Z13, Z13
	VCMPPD       $4, Z13, Z2, K6                  // tmp1 != 0 (NEQ_UQ)
	KMOVW        K6, R8
	VCMPPD       $4, Z13, Z3, K6
	KMOVW        K6, R9
	MOVQ         $0x0170000000000000, AX          // 2^-1000
	VPBROADCASTQ AX, Z1
	MOVQ         $0x3fe0000000000000, AX          // 0.5
	VPBROADCASTQ AX, Z7
	MOVQ         $0x4000000000000000, AX          // 2
	VPBROADCASTQ AX, Z8
	MOVQ         $0x0490000000000000, AX          // 2^-950
	VPBROADCASTQ AX, Z9
	MOVQ         $0x7dd0000000000000, AX          // 2^990
	VPBROADCASTQ AX, Z10
	MOVQ         $0x3ff0000000001000, AX          // 1 + 2^-40
	VPBROADCASTQ AX, Z11
	MOVQ         $0x3fefffffffffe000, AX          // 1 - 2^-40
	VPBROADCASTQ AX, Z18
	MOVQ         $0x7fffffffffffffff, AX
	VPBROADCASTQ AX, Z12
	MOVQ         $0x8000000000000000, AX
	VPBROADCASTQ AX, Z25
	XORQ         AX, AX

ccloop:
	VMULPD  (DI)(AX*8), Z0, Z14                   // sqk sq
	VADDPD  Z1, Z14, Z14                          // bnd = + 2^-1000
	VPXORQ  Z25, Z14, Z21                         // -bnd
	TESTQ   R8, R8
	JZ      cc1
	VMULPD  (R11)(AX*8), Z2, Z15                  // y += cx tmp1
	VADDPD  Z15, Z14, Z14
	VADDPD  Z15, Z21, Z21

cc1:
	TESTQ   R9, R9
	JZ      cc2
	VMULPD  (R12)(AX*8), Z3, Z15                  // y += dm tmp2
	VADDPD  Z15, Z14, Z14
	VADDPD  Z15, Z21, Z21

cc2:
	VADDPD  (SI)(AX*8), Z4, Z15                   // skk + sd
	VMOVUPD (R10)(AX*8), Z16
	VSUBPD  Z5, Z16, Z16
	VPANDQ  Z12, Z16, Z16                         // d = |mean - mk|
	VMULPD  Z7, Z16, Z17                          // h
	VMULPD  Z17, Z17, Z17
	VMULPD  Z6, Z17, Z17                          // t
	VCMPPD  $0x1e, Z9, Z17, K1                    // t > 2^-950 (GT_OQ)
	VCMPPD  $0x11, Z10, Z17, K2                   // t < 2^990 (LT_OQ)
	KANDW   K1, K2, K1                            // the fast path's range
	VMULPD  Z18, Z17, Z19                         // t (1 - 2^-40)
	VMULPD  Z11, Z17, Z22                         // t (1 + 2^-40)
	FAILS8(Z14, K5, ccup)                         // fails at the upper bound
	FAILS8(Z21, K6, cclo)                         // and at the lower
	KANDW   K5, K6, K7                            // fails
	KANDNW  K5, K6, K6                            // undecided: upper, not lower
	KMOVW   K6, DX
	KMOVW   K7, BX
	ANDQ    $0xff, DX
	ANDQ    $0xff, BX
	JNZ     ccfail
	CALLAPPEND(ccapp1, ccnext)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JLT     ccloop
	MOVQ    R14, ret+72(FP)
	MOVQ    $-1, ret1+80(FP)
	VZEROUPPER
	RET

ccfail:
	BSFQ    BX, BX                                // the first failing lane
	MOVQ    BX, R9
	ADDQ    AX, R9
	MOVQ    R9, ret1+80(FP)
	MOVQ    BX, CX                                // (m is no longer needed)
	MOVQ    $1, R8
	SHLQ    CX, R8
	DECQ    R8
	ANDQ    R8, DX                                // the undecided lanes before it
	CALLAPPEND(ccapp2, ccdone)
	MOVQ    R14, ret+72(FP)
	VZEROUPPER
	RET

// func countRunAVX512(alive, rneg *[8]uint64, eq1, lt1, zero *uint64, n int, cnt, neg *int)
// Z0 alive, Z1 rneg (the block's 512 trajectories a vector); per lag k:
// nz = eq1's complement and alive, cnt[k] += popcount(nz), neg[k] +=
// popcount(nz and (lt1 xor rneg)) (both summed in one vector, neg's in
// the high halves), alive = zero's complement and alive.
TEXT ·countRunAVX512(SB), NOSPLIT, $0-64
	MOVQ      alive+0(FP), AX
	VMOVDQU64 (AX), Z0
	MOVQ      rneg+8(FP), AX
	VMOVDQU64 (AX), Z1
	MOVQ      eq1+16(FP), SI
	MOVQ      lt1+24(FP), DI
	MOVQ      zero+32(FP), R8
	MOVQ      n+40(FP), CX
	MOVQ      cnt+48(FP), R10
	MOVQ      neg+56(FP), R11
	XORQ      AX, AX

crloop:
	VMOVDQU64     (SI), Z2
	VPANDNQ       Z0, Z2, Z3                      // nz
	VPXORQ        (DI), Z1, Z4
	VPANDQ        Z3, Z4, Z4                      // nz and (lt1 xor rneg)
	VPOPCNTQ      Z3, Z3
	VPOPCNTQ      Z4, Z4
	VPSLLQ        $32, Z4, Z4
	VPADDQ        Z4, Z3, Z3
	VEXTRACTI64X4 $1, Z3, Y4
	VPADDQ        Y4, Y3, Y3
	VEXTRACTI128  $1, Y3, X4
	VPADDQ        X4, X3, X3
	VPSHUFD       $0x4e, X3, X4
	VPADDQ        X4, X3, X3
	VMOVQ         X3, BX
	MOVL          BX, DX
	SHRQ          $32, BX
	ADDQ          DX, (R10)(AX*8)
	ADDQ          BX, (R11)(AX*8)
	VMOVDQU64     (R8), Z5
	VPANDNQ       Z0, Z5, Z0                      // alive
	SUBQ          $64, SI
	SUBQ          $64, DI
	SUBQ          $64, R8
	INCQ          AX
	CMPQ          AX, CX
	JLT           crloop
	VZEROUPPER
	RET
