//go:build !noasm && !gccgo

#include "textflag.h"

// Registers of pairs4AVX2 (lane L = lag k+L of incris-ld's pass):
//
//	Y0..Y4   sx, sd, ss, l0, l1 of the four cells
//	Y5, Y6   the shifts cx and cd
//	Y7       1.0 in every lane
//	Y8..Y15  scratch
//	DI, SI, R8, R9  rho_{t-k-L} of the run's trajectories, L = 0..3
//	R10, R11 rewards and B (bk) of the run's trajectories
//	AX       trajectory index j; CX its end m
//	DX       acc (Acc4)

// CELL adds trajectory AX to the four cells, as Pairs4 (the Go twin) does, its
// (X - cx)^2 into LANE: B = (b, b rho0, b rho0 rho1, b rho0 rho1 rho2)
// multiplied left to right as the scalar chain is; bk[j] = B_3 rho3;
// x = B r; d = (rho - 1) x; sx += x; sd += d; ss += (d - cd)^2;
// LANE += (x - cx)^2.
#define CELL(LANE) \
	VMOVSD (R11)(AX*8), X8; \
	VMOVSD (DI)(AX*8), X9; \
	VMULSD X9, X8, X10; \
	VMOVSD (SI)(AX*8), X11; \
	VMULSD X11, X10, X12; \
	VUNPCKLPD X10, X8, X8; \
	VUNPCKLPD X11, X9, X9; \
	VMOVSD (R8)(AX*8), X13; \
	VMULSD X13, X12, X14; \
	VMOVSD (R9)(AX*8), X15; \
	VMULSD X15, X14, X10; \
	VMOVSD X10, (R11)(AX*8); \
	VUNPCKLPD X14, X12, X12; \
	VUNPCKLPD X15, X13, X13; \
	VINSERTF128 $1, X12, Y8, Y8; \
	VINSERTF128 $1, X13, Y9, Y9; \
	VSUBPD Y7, Y9, Y9; \
	VBROADCASTSD (R10)(AX*8), Y10; \
	VMULPD Y10, Y8, Y8; \
	VMULPD Y8, Y9, Y9; \
	VADDPD Y8, Y0, Y0; \
	VADDPD Y9, Y1, Y1; \
	VSUBPD Y6, Y9, Y9; \
	VMULPD Y9, Y9, Y9; \
	VADDPD Y9, Y2, Y2; \
	VSUBPD Y5, Y8, Y8; \
	VMULPD Y8, Y8, Y8; \
	VADDPD Y8, LANE, LANE; \
	INCQ AX

// func pairs4AVX2(rho0, rho1, rho2, rho3, rw, bk *float64, m int, acc *Acc4)
TEXT ·pairs4AVX2(SB), NOSPLIT, $0-64
	MOVQ rho0+0(FP), DI
	MOVQ rho1+8(FP), SI
	MOVQ rho2+16(FP), R8
	MOVQ rho3+24(FP), R9
	MOVQ rw+32(FP), R10
	MOVQ bk+40(FP), R11
	MOVQ m+48(FP), CX
	MOVQ acc+56(FP), DX
	VMOVUPD 0(DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD 64(DX), Y2
	VMOVUPD 96(DX), Y3
	VMOVUPD 128(DX), Y4
	VMOVUPD 160(DX), Y5
	VMOVUPD 192(DX), Y6
	MOVQ $0x3ff0000000000000, AX
	VMOVQ AX, X7
	VBROADCASTSD X7, Y7
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	CELL(Y3)
	CELL(Y4)
	JMP  loop

done:
	VMOVUPD Y0, 0(DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VZEROUPPER
	RET

// Registers of means4AVX2 (lane L = lag k+L of incris-ld's shifts): Y0, Y1
// sx and sd of the four lags, Y7 1.0 in every lane, Y8..Y15 scratch, DI,
// SI, R8, R9 rho_{t-k-L}, R10, R11 rewards and B (bk), AX the trajectory
// index j, CX its end m, DX and BX sx and sd.

// MEANS adds trajectory AX's X and D of the four lags, as Means4 (the Go
// twin) does: B = (b, b rho0, b rho0 rho1, b rho0 rho1 rho2) multiplied
// left to right as the scalar chain is; bk[j] = B_3 rho3; x = B r; d =
// (rho - 1) x; sx += x; sd += d.
#define MEANS \
	VMOVSD (R11)(AX*8), X8; \
	VMOVSD (DI)(AX*8), X9; \
	VMULSD X9, X8, X10; \
	VMOVSD (SI)(AX*8), X11; \
	VMULSD X11, X10, X12; \
	VUNPCKLPD X10, X8, X8; \
	VUNPCKLPD X11, X9, X9; \
	VMOVSD (R8)(AX*8), X13; \
	VMULSD X13, X12, X14; \
	VMOVSD (R9)(AX*8), X15; \
	VMULSD X15, X14, X10; \
	VMOVSD X10, (R11)(AX*8); \
	VUNPCKLPD X14, X12, X12; \
	VUNPCKLPD X15, X13, X13; \
	VINSERTF128 $1, X12, Y8, Y8; \
	VINSERTF128 $1, X13, Y9, Y9; \
	VSUBPD Y7, Y9, Y9; \
	VBROADCASTSD (R10)(AX*8), Y10; \
	VMULPD Y10, Y8, Y8; \
	VMULPD Y8, Y9, Y9; \
	VADDPD Y8, Y0, Y0; \
	VADDPD Y9, Y1, Y1; \
	INCQ AX

// func means4AVX2(rho0, rho1, rho2, rho3, rw, bk *float64, m int, sx, sd *float64)
TEXT ·means4AVX2(SB), NOSPLIT, $0-72
	MOVQ rho0+0(FP), DI
	MOVQ rho1+8(FP), SI
	MOVQ rho2+16(FP), R8
	MOVQ rho3+24(FP), R9
	MOVQ rw+32(FP), R10
	MOVQ bk+40(FP), R11
	MOVQ m+48(FP), CX
	MOVQ sx+56(FP), DX
	MOVQ sd+64(FP), BX
	VMOVUPD 0(DX), Y0
	VMOVUPD 0(BX), Y1
	MOVQ $0x3ff0000000000000, AX
	VMOVQ AX, X7
	VBROADCASTSD X7, Y7
	XORQ AX, AX

mloop:
	CMPQ AX, CX
	JGE  mdone
	MEANS
	JMP  mloop

mdone:
	VMOVUPD Y0, 0(DX)
	VMOVUPD Y1, 0(BX)
	VZEROUPPER
	RET
