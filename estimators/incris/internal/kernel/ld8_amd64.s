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
