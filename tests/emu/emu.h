/*
 * emu.h - a host emulation of the parts of the CUDA runtime, cuBLASLt and
 * CUPTI that profiler/gpu.cu uses, so that the CUDA backend (its kernels,
 * launch shapes, GEMM descriptors, allocator and CUPTI attribution) runs
 * in the test suite on machines without a GPU.  gpu.cu is compiled as
 * host C++ with -DPD2BW_EMU against the real CUDA headers; the functions
 * those headers declare are defined by cudart_emu.cc, cublaslt_emu.cc and
 * cupti_emu.cc.  Everything runs synchronously on the calling thread, one
 * device, one logical stream at a time; "device" memory is host memory,
 * so AddressSanitizer sees every out-of-bounds access a kernel or a GEMM
 * makes.
 *
 * Environment: PD2BW_EMU_MEM=BYTES caps the device memory (default
 * 8 GiB) so that out-of-memory paths can be tested.
 */
#ifndef PD2BW_EMU_H
#define PD2BW_EMU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The emulated device's clock: monotonic nanoseconds. */
uint64_t emu_now_ns(void);

/*
 * Called by the runtime (kernel launches) and by cuBLASLt (each matmul)
 * when an emulated kernel has run: its name, start and end on
 * emu_now_ns's clock, and the stream id.  Forwards to CUPTI's activity
 * records when they are enabled.  Returns the correlation id of the API
 * call that launched it.
 */
uint32_t emu_kernel_done(const char *name, uint64_t start_ns,
			 uint64_t end_ns, uint32_t stream);

/* The id CUPTI reports for a stream (7 for the legacy default). */
uint32_t emu_stream_id(void *stream);

/* CUPTI's half of emu_kernel_done (cupti_emu.cc). */
void emu_cupti_kernel(uint32_t corr, const char *name, uint64_t start_ns,
		      uint64_t end_ns, uint32_t stream);

/*
 * 1 when [p, p + bytes) lies inside one live device allocation, else 0.
 * cuBLASLt's matmul checks every matrix it reads or writes with it.
 */
int emu_dev_range(const void *p, size_t bytes);

/*
 * 1 when PD2BW_EMU_DRY is set: a dry run checks every launch, copy and
 * GEMM (shapes, limits, alignment, ranges) but computes nothing, and
 * device memory is address space without pages, so whole models at real
 * sizes go through every path in moments.  Results are meaningless.
 */
int emu_dry(void);

/* Abort with "pd2bw emulator: MESSAGE" (a bug in the emulated code). */
#ifdef __GNUC__
__attribute__((noreturn, format(printf, 1, 2)))
#endif
void emu_fatal(const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif
