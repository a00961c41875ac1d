/*
 * cudart_emu.cc - the CUDA runtime half of the host emulation (emu.h):
 * one device whose memory is host memory (capped by PD2BW_EMU_MEM), a
 * memory pool with its high-water mark, streams, events on a monotonic
 * clock, the sticky last error, and kernel launches that run each block's
 * threads as fibers (a stack switch of a few instructions on x86-64,
 * ucontext elsewhere), switching at barriers and warp
 * collectives (cuda_emu.h).  Everything is synchronous: a launch has
 * finished when it returns, so events measure host time.
 *
 * Misuse that a device would punish unpredictably is fatal here, with a
 * message: a barrier some live threads never reach, a full-mask warp
 * collective with exited lanes, a copy or memset outside an allocation,
 * freeing what was not allocated.
 */
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>

#include <cuda_runtime.h>

#include "emu.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define EMU_ASAN 1
#endif

extern "C" {
uint3 emu_threadIdx, emu_blockIdx;
dim3 emu_blockDim, emu_gridDim;
}

/* ---- diagnostics, clock ---- */

extern "C" void
emu_fatal(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("pd2bw emulator: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

extern "C" uint64_t
emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t next_corr = 1;

extern "C" uint32_t
emu_kernel_done(const char *name, uint64_t start_ns, uint64_t end_ns,
		uint32_t stream)
{
	uint32_t corr = next_corr++;

	emu_cupti_kernel(corr, name, start_ns, end_ns, stream);
	return corr;
}

/* ---- device math the CUDA headers declare for host code too ---- */

float
__expf(float x) __THROW
{
	return expf(x);
}

extern "C" float rsqrtf(float x);

extern "C" float
rsqrtf(float x)
{
	return 1.0f / sqrtf(x);
}

/* ---- errors ---- */

static cudaError_t last_error = cudaSuccess;

static cudaError_t
fail(cudaError_t e)
{
	if (e != cudaSuccess)
		last_error = e;
	return e;
}

cudaError_t
cudaGetLastError(void)
{
	cudaError_t e = last_error;

	last_error = cudaSuccess;
	return e;
}

cudaError_t
cudaPeekAtLastError(void)
{
	return last_error;
}

const char *
cudaGetErrorString(cudaError_t e)
{
	switch (e) {
	case cudaSuccess:
		return "no error";
	case cudaErrorInvalidValue:
		return "invalid argument";
	case cudaErrorMemoryAllocation:
		return "out of memory";
	case cudaErrorInvalidConfiguration:
		return "invalid configuration argument";
	case cudaErrorNoDevice:
		return "no CUDA-capable device is detected";
	case cudaErrorInvalidDevice:
		return "invalid device ordinal";
	case cudaErrorInvalidResourceHandle:
		return "invalid resource handle";
	case cudaErrorNotReady:
		return "device not ready";
	default:
		return "unknown error";
	}
}

const char *
cudaGetErrorName(cudaError_t e)
{
	return cudaGetErrorString(e);
}

extern "C" int
emu_dry(void)
{
	static int dry = -1;

	if (dry < 0) {
		const char *s = getenv("PD2BW_EMU_DRY");

		dry = s && *s && strcmp(s, "0");
	}
	return dry;
}

/* ---- device ---- */

static int
no_device(void)
{
	const char *s = getenv("PD2BW_EMU_NO_DEVICE");

	return s && *s && strcmp(s, "0");
}

static size_t
mem_cap(void)
{
	const char *s = getenv("PD2BW_EMU_MEM");
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return (size_t)8 << 30;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		emu_fatal("PD2BW_EMU_MEM=%s: not a byte count", s);
	return (size_t)v;
}

cudaError_t
cudaGetDeviceCount(int *n)
{
	if (no_device()) {
		*n = 0;
		return fail(cudaErrorNoDevice);
	}
	*n = 1;
	return cudaSuccess;
}

cudaError_t
cudaSetDevice(int d)
{
	return d == 0 && !no_device() ? cudaSuccess :
	       fail(cudaErrorInvalidDevice);
}

cudaError_t
cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
	if (d != 0 || no_device())
		return fail(cudaErrorInvalidDevice);
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "pd2bw emulated GPU");
	p->totalGlobalMem = mem_cap();
	p->major = 9;
	p->minor = 0;
	p->multiProcessorCount = 1;
	p->l2CacheSize = 1 << 20;
	p->warpSize = 32;
	p->maxThreadsPerBlock = 1024;
	return cudaSuccess;
}

cudaError_t
cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d)
{
	if (d != 0)
		return fail(cudaErrorInvalidDevice);
	switch (a) {
	case cudaDevAttrClockRate:
		*v = 1000000;     /* kHz */
		break;
	case cudaDevAttrMemoryClockRate:
		*v = 2000000;
		break;
	case cudaDevAttrMultiProcessorCount:
		*v = 1;
		break;
	default:
		*v = 0;
	}
	return cudaSuccess;
}

cudaError_t
cudaDriverGetVersion(int *v)
{
	*v = CUDART_VERSION;
	return cudaSuccess;
}

cudaError_t
cudaRuntimeGetVersion(int *v)
{
	*v = CUDART_VERSION;
	return cudaSuccess;
}

cudaError_t
cudaDeviceSynchronize(void)
{
	return cudaSuccess;
}

/* ---- memory ---- */

static std::map<uintptr_t, size_t> live;   /* base -> bytes */
static size_t used, used_high;

extern "C" int
emu_dev_range(const void *p, size_t bytes)
{
	uintptr_t a = (uintptr_t)p;
	std::map<uintptr_t, size_t>::const_iterator it = live.upper_bound(a);

	if (it == live.begin())
		return 0;
	--it;
	return a >= it->first && bytes <= it->second &&
	       a - it->first <= it->second - bytes;
}

static void
need_range(const char *what, const void *p, size_t bytes)
{
	if (bytes && !emu_dev_range(p, bytes))
		emu_fatal("%s of %zu bytes at %p is outside every device "
			  "allocation", what, bytes, p);
}

/* What an allocation takes from the pool: whole 256-byte granules. */
static size_t
granules(size_t bytes)
{
	return bytes ? (bytes + 255) / 256 * 256 : 256;
}

cudaError_t
cudaMalloc(void **p, size_t bytes)
{
	size_t n = granules(bytes);

	*p = NULL;
	if (no_device())
		return fail(cudaErrorNoDevice);
	if (used + n > mem_cap())
		return fail(cudaErrorMemoryAllocation);
	if (emu_dry()) {
		/* addresses without pages: nothing touches them */
		*p = mmap(NULL, n, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (*p == MAP_FAILED) {
			*p = NULL;
			return fail(cudaErrorMemoryAllocation);
		}
		live[(uintptr_t)*p] = bytes;
		used += n;
		if (used > used_high)
			used_high = used;
		return cudaSuccess;
	}
	*p = aligned_alloc(256, n);
	if (!*p)
		return fail(cudaErrorMemoryAllocation);
	/* fresh device memory is not zero: all-ones bytes are NaN in
	   every float type, so a kernel that reads what nobody wrote
	   poisons its results and the checks see it */
	memset(*p, 0xff, n);
	live[(uintptr_t)*p] = bytes;
	used += n;
	if (used > used_high)
		used_high = used;
	return cudaSuccess;
}

cudaError_t
cudaFree(void *p)
{
	std::map<uintptr_t, size_t>::iterator it;

	if (!p)
		return cudaSuccess;
	it = live.find((uintptr_t)p);
	if (it == live.end())
		emu_fatal("cudaFree(%p): not a live allocation", p);
	used -= granules(it->second);
	if (emu_dry())
		munmap(p, granules(it->second));
	else
		free(p);
	live.erase(it);
	return cudaSuccess;
}

cudaError_t
cudaMallocAsync(void **p, size_t bytes, cudaStream_t st)
{
	(void)st;
	return cudaMalloc(p, bytes);
}

cudaError_t
cudaFreeAsync(void *p, cudaStream_t st)
{
	(void)st;
	return cudaFree(p);
}

static int the_pool;   /* the one pool's handle points here */

cudaError_t
cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int d)
{
	if (d != 0)
		return fail(cudaErrorInvalidDevice);
	*pool = (cudaMemPool_t)&the_pool;
	return cudaSuccess;
}

cudaError_t
cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr a,
			void *v)
{
	if (pool != (cudaMemPool_t)&the_pool)
		return fail(cudaErrorInvalidValue);
	if (a == cudaMemPoolAttrUsedMemHigh) {
		/* only a reset to zero is allowed: to the current use */
		if (*(uint64_t *)v != 0)
			return fail(cudaErrorInvalidValue);
		used_high = used;
	}
	return cudaSuccess;
}

cudaError_t
cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr a,
			void *v)
{
	if (pool != (cudaMemPool_t)&the_pool)
		return fail(cudaErrorInvalidValue);
	switch (a) {
	case cudaMemPoolAttrUsedMemHigh:
		*(uint64_t *)v = used_high;
		break;
	case cudaMemPoolAttrUsedMemCurrent:
		*(uint64_t *)v = used;
		break;
	default:
		*(uint64_t *)v = 0;
	}
	return cudaSuccess;
}

cudaError_t
cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind k)
{
	switch (k) {
	case cudaMemcpyHostToDevice:
		need_range("cudaMemcpy destination", dst, n);
		break;
	case cudaMemcpyDeviceToHost:
		need_range("cudaMemcpy source", src, n);
		break;
	case cudaMemcpyDeviceToDevice:
		need_range("cudaMemcpy destination", dst, n);
		need_range("cudaMemcpy source", src, n);
		break;
	case cudaMemcpyHostToHost:
		break;
	default:
		if (!emu_dev_range(dst, n) && !emu_dev_range(src, n))
			emu_fatal("cudaMemcpyDefault between host pointers");
	}
	if (emu_dry()) {
		/* the host reads zeros from the device */
		if (n && k == cudaMemcpyDeviceToHost)
			memset(dst, 0, n);
		return cudaSuccess;
	}
	if (n)
		memmove(dst, src, n);
	return cudaSuccess;
}

cudaError_t
cudaMemcpyAsync(void *dst, const void *src, size_t n,
		enum cudaMemcpyKind k, cudaStream_t st)
{
	(void)st;
	return cudaMemcpy(dst, src, n, k);
}

cudaError_t
cudaMemset(void *p, int v, size_t n)
{
	need_range("cudaMemset", p, n);
	if (!emu_dry())
		memset(p, v, n);
	return cudaSuccess;
}

cudaError_t
cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t st)
{
	(void)st;
	return cudaMemset(p, v, n);
}

/* ---- streams and events ---- */

struct emu_stream {
	uint32_t id;
};

struct emu_event {
	uint64_t ns;
	int recorded;
};

static uint32_t next_stream = 13;

extern "C" uint32_t
emu_stream_id(void *st)
{
	return st ? ((emu_stream *)st)->id : 7;
}

cudaError_t
cudaStreamCreate(cudaStream_t *st)
{
	emu_stream *s = new emu_stream;

	s->id = next_stream++;
	*st = (cudaStream_t)s;
	return cudaSuccess;
}

cudaError_t
cudaStreamDestroy(cudaStream_t st)
{
	delete (emu_stream *)st;
	return cudaSuccess;
}

cudaError_t
cudaStreamSynchronize(cudaStream_t st)
{
	(void)st;
	return cudaSuccess;
}

cudaError_t
cudaEventCreate(cudaEvent_t *ev)
{
	emu_event *e = new emu_event();

	*ev = (cudaEvent_t)e;
	return cudaSuccess;
}

cudaError_t
cudaEventDestroy(cudaEvent_t ev)
{
	delete (emu_event *)ev;
	return cudaSuccess;
}

cudaError_t
cudaEventRecord(cudaEvent_t ev, cudaStream_t st)
{
	emu_event *e = (emu_event *)ev;

	(void)st;
	if (!e)
		return fail(cudaErrorInvalidResourceHandle);
	e->ns = emu_now_ns();
	e->recorded = 1;
	return cudaSuccess;
}

cudaError_t
cudaEventSynchronize(cudaEvent_t ev)
{
	return ev ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t
cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	emu_event *x = (emu_event *)a, *y = (emu_event *)b;

	if (!x || !y)
		return fail(cudaErrorInvalidResourceHandle);
	if (!x->recorded || !y->recorded)
		return fail(cudaErrorInvalidResourceHandle);
	*ms = (float)(((double)y->ns - (double)x->ns) * 1e-6);
	return cudaSuccess;
}

/*
 * Kernels opt in to more than 48 KiB of dynamic shared memory on the
 * device; launches here allow the device's opt-in limit anyway, so this
 * only checks the request.
 */
cudaError_t
cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute a, int v)
{
	if (!func)
		return fail(cudaErrorInvalidValue);
	if (a == cudaFuncAttributeMaxDynamicSharedMemorySize &&
	    (v < 0 || v > 227 * 1024))
		return fail(cudaErrorInvalidValue);
	return cudaSuccess;
}

/* ---- kernel launches ---- */

/*
 * Switching stacks.  swapcontext makes a system call per switch (the
 * signal mask), which cost 85% of a kernel check; on x86-64 a switch
 * saves the callee-saved registers on the old stack, swaps stack
 * pointers and pops them from the new one.
 */
#if defined(__x86_64__) && !defined(PD2BW_EMU_UCONTEXT)
#define EMU_FAST_SWITCH 1
extern "C" void pd2bw_emu_switch(void **save_sp, void *to_sp);
__asm__(".text\n"
	".globl pd2bw_emu_switch\n"
	".type pd2bw_emu_switch, @function\n"
	"pd2bw_emu_switch:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n"
	"\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n"
	"\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size pd2bw_emu_switch, .-pd2bw_emu_switch\n");
#endif

enum { T_READY, T_WARP, T_BLOCK, T_DONE };

struct fiber {
#ifdef EMU_FAST_SWITCH
	void *sp;
#else
	ucontext_t ctx;
#endif
	char *stack;
	int state;
	void *fake;          /* AddressSanitizer's fake stack while away */
	const char *site_file;   /* the __syncthreads it waits at */
	int site_line;
	unsigned nx;         /* warp collectives so far */
	uint3 tid;
};

#define STACK_BYTES (256 << 10)
#define MAX_THREADS 1024

static struct {
	int active;          /* inside a launch */
	int fibers;          /* running as fibers (else one by one) */
	int synced;          /* a barrier or collective was used */
	const char *name;
	void (*body)(void *);
	void *arg;
	int n;               /* threads per block */
	int cur;             /* running thread */
	std::vector<fiber> th;
	std::vector<uint64_t> slot;
#ifdef EMU_FAST_SWITCH
	void *sched_sp;
#else
	ucontext_t sched;
#endif
	void *sched_fake;
	const void *sched_bottom;
	size_t sched_size;
} L;

static void
to_sched(int dying)
{
	fiber *f = &L.th[L.cur];

#ifdef EMU_ASAN
	__sanitizer_start_switch_fiber(dying ? NULL : &f->fake,
				       L.sched_bottom, L.sched_size);
#endif
#ifdef EMU_FAST_SWITCH
	pd2bw_emu_switch(&f->sp, L.sched_sp);
#else
	swapcontext(&f->ctx, &L.sched);
#endif
#ifdef EMU_ASAN
	__sanitizer_finish_switch_fiber(f->fake, &L.sched_bottom,
					&L.sched_size);
#endif
	(void)dying;
}

static void
fiber_main(void)
{
#ifdef EMU_ASAN
	__sanitizer_finish_switch_fiber(NULL, &L.sched_bottom, &L.sched_size);
#endif
	L.body(L.arg);
	L.th[L.cur].state = T_DONE;
	to_sched(1);
	emu_fatal("a finished thread was resumed");
}

extern "C" int
emu_lane(void)
{
	return (int)((emu_threadIdx.z * emu_blockDim.y + emu_threadIdx.y) *
		     emu_blockDim.x + emu_threadIdx.x) % 32;
}

static void
wait_at(int state, const char *what)
{
	if (!L.active)
		emu_fatal("%s outside a kernel", what);
	L.synced = 1;
	if (!L.fibers)
		emu_fatal("kernel %s used %s in a launch after one that did "
			  "not; its barriers depend on its data", L.name,
			  what);
	L.th[L.cur].state = state;
	to_sched(0);
}

extern "C" void
emu_syncthreads(const char *file, int line)
{
	if (L.active && L.fibers) {
		L.th[L.cur].site_file = file;
		L.th[L.cur].site_line = line;
	}
	wait_at(T_BLOCK, "__syncthreads");
}

extern "C" uint64_t
emu_warp_exchange(unsigned mask, uint64_t v, int src)
{
	int me = L.cur, w0 = me / 32 * 32, par;
	uint64_t r;

	if (mask != 0xffffffffu)
		emu_fatal("kernel %s: warp collective with mask %#x (only "
			  "full warps are emulated)", L.name, mask);
	if (src < 0 || src >= 32)
		emu_fatal("kernel %s: shuffle from lane %d", L.name, src);
	/*
	 * Two slots per thread, used in turn: a lane can write the same
	 * slot again only two collectives later, after a barrier every
	 * lane reaches after reading this one.
	 */
	par = L.th[me].nx++ & 1;
	L.slot[2 * me + par] = v;
	wait_at(T_WARP, "a warp collective");
	if (w0 + src >= L.n)
		emu_fatal("kernel %s: shuffle from lane %d of a partial warp",
			  L.name, src);
	r = L.slot[2 * (w0 + src) + par];
	return r;
}

static void
set_ids(int t, dim3 block)
{
	emu_threadIdx.x = (unsigned)t % block.x;
	emu_threadIdx.y = (unsigned)t / block.x % block.y;
	emu_threadIdx.z = (unsigned)t / (block.x * block.y);
}

/*
 * After every runnable thread has run: release the warps whose live
 * lanes all wait at a collective, else the block if every live thread
 * waits at __syncthreads.  0 when every thread is done.
 */
static int
release(void)
{
	int done = 0, at_block = 0, freed = 0;

	for (int t = 0; t < L.n; t++) {
		done += L.th[t].state == T_DONE;
		at_block += L.th[t].state == T_BLOCK;
	}
	if (done == L.n)
		return 0;
	for (int w0 = 0; w0 < L.n; w0 += 32) {
		int end = w0 + 32 < L.n ? w0 + 32 : L.n, waiting = 0, dead = 0;

		for (int t = w0; t < end; t++) {
			waiting += L.th[t].state == T_WARP;
			dead += L.th[t].state == T_DONE;
		}
		if (waiting && dead)
			emu_fatal("kernel %s: warp %d: a full-mask collective "
				  "after %d of its lanes exited", L.name,
				  w0 / 32, dead);
		if (waiting == end - w0) {
			for (int t = w0; t < end; t++)
				L.th[t].state = T_READY;
			freed = 1;
		}
	}
	if (freed)
		return 1;
	if (at_block == L.n - done) {
		const fiber *first = NULL;

		for (int t = 0; t < L.n; t++) {
			fiber *f = &L.th[t];

			if (f->state != T_BLOCK)
				continue;
			if (first &&
			    (f->site_line != first->site_line ||
			     strcmp(f->site_file, first->site_file)))
				emu_fatal("kernel %s: block (%u,%u,%u): threads "
					  "wait at different __syncthreads "
					  "(%s:%d and %s:%d)", L.name,
					  emu_blockIdx.x, emu_blockIdx.y,
					  emu_blockIdx.z, first->site_file,
					  first->site_line, f->site_file,
					  f->site_line);
			if (!first)
				first = f;
			f->state = T_READY;
		}
		return 1;
	}
	emu_fatal("kernel %s: block (%u,%u,%u) deadlocks: %d threads wait "
		  "at __syncthreads, %d at warp collectives, %d exited",
		  L.name, emu_blockIdx.x, emu_blockIdx.y, emu_blockIdx.z,
		  at_block, L.n - done - at_block, done);
}

/* Run thread t until it waits or exits (out of line: swapcontext). */
static void __attribute__((noinline))
resume(int t, dim3 block)
{
	fiber *f = &L.th[t];

	L.cur = t;
	set_ids(t, block);
#ifdef EMU_ASAN
	__sanitizer_start_switch_fiber(&L.sched_fake, f->stack, STACK_BYTES);
#endif
#ifdef EMU_FAST_SWITCH
	pd2bw_emu_switch(&L.sched_sp, f->sp);
#else
	swapcontext(&L.sched, &f->ctx);
#endif
#ifdef EMU_ASAN
	__sanitizer_finish_switch_fiber(L.sched_fake, NULL, NULL);
#endif
}

/* Make thread t a fresh fiber at the start of the kernel. */
static void __attribute__((noinline))
start(int t)
{
	fiber *f = &L.th[t];

	if (!f->stack) {
		f->stack = (char *)mmap(NULL, STACK_BYTES,
					PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (f->stack == MAP_FAILED)
			emu_fatal("no memory for a thread's stack");
	}
#ifdef EMU_FAST_SWITCH
	{
		/* what pd2bw_emu_switch pops: six registers, then the
		 * return address fiber_main, entered with the stack
		 * aligned as after a call */
		uintptr_t top = ((uintptr_t)f->stack + STACK_BYTES) &
				~(uintptr_t)15;
		void **sp = (void **)top;

		*--sp = NULL;
		*--sp = (void *)fiber_main;
		for (int i = 0; i < 6; i++)
			*--sp = NULL;
		f->sp = sp;
	}
#else
	getcontext(&f->ctx);
	f->ctx.uc_stack.ss_sp = f->stack;
	f->ctx.uc_stack.ss_size = STACK_BYTES;
	f->ctx.uc_link = NULL;
	makecontext(&f->ctx, fiber_main, 0);
#endif
	f->state = T_READY;
	f->fake = NULL;
	f->nx = 0;
}

/*
 * The order threads and blocks run in.  The device promises none, so a
 * kernel whose result depends on it has a race: PD2BW_EMU_ORDER=reverse
 * or shuffle (a fixed pseudo-random permutation per block and launch,
 * PD2BW_EMU_SEED choosing it) runs them otherwise, and the checks that
 * compare with a reference then fail where forward order hid the race.
 */
enum { ORDER_FORWARD, ORDER_REVERSE, ORDER_SHUFFLE };

static int
order_mode(void)
{
	const char *s = getenv("PD2BW_EMU_ORDER");

	if (!s || !*s || !strcmp(s, "forward"))
		return ORDER_FORWARD;
	if (!strcmp(s, "reverse"))
		return ORDER_REVERSE;
	if (!strcmp(s, "shuffle"))
		return ORDER_SHUFFLE;
	emu_fatal("PD2BW_EMU_ORDER=%s: expected forward, reverse or "
		  "shuffle", s);
}

static uint64_t order_state;

/* perm[0..n) := 0..n-1 in the order of the mode */
static void
order_fill(std::vector<int> &perm, int n, int mode)
{
	perm.resize((size_t)n);
	for (int i = 0; i < n; i++)
		perm[(size_t)i] = mode == ORDER_REVERSE ? n - 1 - i : i;
	if (mode != ORDER_SHUFFLE)
		return;
	if (!order_state) {
		const char *s = getenv("PD2BW_EMU_SEED");

		order_state = (s && *s ? strtoull(s, NULL, 10) : 0) * 2 + 1;
	}
	for (int i = n - 1; i > 0; i--) {
		int j;

		order_state ^= order_state << 13;
		order_state ^= order_state >> 7;
		order_state ^= order_state << 17;
		j = (int)(order_state % (uint64_t)(i + 1));
		std::swap(perm[(size_t)i], perm[(size_t)j]);
	}
}

static void
run_block_fibers(dim3 block, const std::vector<int> &perm)
{
	for (int t = 0; t < L.n; t++)
		start(t);
	do {
		for (int i = 0; i < L.n; i++) {
			int t = perm[(size_t)i];

			if (L.th[t].state == T_READY)
				resume(t, block);
		}
	} while (release());
}

/*
 * Dynamic shared memory: what the largest launch asked for so far,
 * 128-byte aligned as kernels may declare it (__align__(128) in
 * flash.cuh), so alignment rules on it can be checked.
 */
static unsigned char *dyn_smem;
static size_t dyn_cap, dyn_bytes;

extern "C" void *
emu_dynamic_shared(void)
{
	if (!L.active)
		emu_fatal("dynamic shared memory outside a kernel");
	if (!dyn_bytes)
		emu_fatal("kernel %s uses dynamic shared memory but was "
			  "launched without any", L.name);
	return dyn_smem;
}

extern "C" void
emu_launch_raw(const char *name, dim3 grid, dim3 block, size_t smem,
	       cudaStream_t st, int *mode, void (*body)(void *), void *arg)
{
	uint64_t n = (uint64_t)block.x * block.y * block.z, t0;

	if (L.active)
		emu_fatal("kernel %s launched from a kernel", name);
	if (!grid.x || !grid.y || !grid.z || !n || n > MAX_THREADS ||
	    block.z > 64 || grid.y > 65535 || grid.z > 65535) {
		fail(cudaErrorInvalidConfiguration);
		return;
	}
	/* the device's limit with the opt-in attribute (sm_90: 227 KiB) */
	if (smem > 227 * 1024) {
		fail(cudaErrorInvalidValue);
		return;
	}
	if (dyn_cap < smem) {
		free(dyn_smem);
		dyn_cap = (smem + 127) / 128 * 128;
		dyn_smem = (unsigned char *)aligned_alloc(128, dyn_cap);
		if (!dyn_smem)
			emu_fatal("no memory for %zu bytes of shared memory",
				  smem);
	}
	dyn_bytes = smem;
	t0 = emu_now_ns();
	L.active = 1;
	L.fibers = *mode != 2;
	L.synced = 0;
	L.name = name;
	L.body = body;
	L.arg = arg;
	L.n = (int)n;
	if (L.th.size() < n) {
		L.th.resize(n);
		L.slot.resize(2 * n);
	}
	emu_blockDim = block;
	emu_gridDim = grid;
	if (emu_dry())
		grid = dim3(0, 0, 0);  /* checked, not run */
	{
		static std::vector<int> blocks, threads;
		uint64_t nb = (uint64_t)grid.x * grid.y * grid.z;
		int mode_o = order_mode();

		if (nb > (1u << 30))
			emu_fatal("kernel %s: %llu blocks are more than the "
				  "emulation runs", name,
				  (unsigned long long)nb);
		order_fill(blocks, (int)nb, mode_o);
		for (uint64_t bi = 0; bi < nb; bi++) {
			unsigned lin = (unsigned)blocks[(size_t)bi];

			emu_blockIdx.x = lin % grid.x;
			emu_blockIdx.y = lin / grid.x % grid.y;
			emu_blockIdx.z = lin / grid.x / grid.y;
			order_fill(threads, L.n, mode_o);
			if (L.fibers) {
				run_block_fibers(block, threads);
				continue;
			}
			for (int i = 0; i < L.n; i++) {
				L.cur = threads[(size_t)i];
				set_ids(L.cur, block);
				body(arg);
			}
		}
	}
	L.active = 0;
	if (*mode == 0)
		*mode = L.synced ? 1 : 2;
	emu_kernel_done(name, t0, emu_now_ns(), emu_stream_id(st));
}
