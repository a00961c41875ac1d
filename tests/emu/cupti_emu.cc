/*
 * cupti_emu.cc - a host emulation of the part of CUPTI's activity API
 * that profiler/gpu.cu uses: buffer callbacks, enabling kernel and
 * external-correlation records, the external correlation id stacks,
 * walking a buffer's records, flushing, the timestamp, the version and
 * the result strings.  The functions are defined with the signatures of
 * the real cupti.h (CUDA 13), so gpu.cu links against them unchanged.
 *
 * The runtime emulation calls emu_cupti_kernel for every emulated
 * kernel; when kernel records are enabled that appends one
 * CUpti_ActivityKernel10 (the record the header names for KERNEL and
 * CONCURRENT_KERNEL), preceded, when EXTERNAL_CORRELATION is enabled, by
 * one CUpti_ActivityExternalCorrelation for each external correlation
 * kind that has an id pushed, as CUPTI does for the API call that
 * launched the kernel.
 *
 * Records lie back to back in the client's buffers, each at an 8-byte
 * boundary, with nothing between them: a record's kind gives its size,
 * as with the real library.  A buffer is requested when a record needs
 * one and handed back when the next record does not fit, when it holds
 * the client's maxNumRecords, and on cuptiActivityFlushAll.  Kernel
 * names are interned for the life of the process ("shared across all
 * activity records representing the same kernel").
 *
 * Everything runs on the calling thread, like the rest of the emulator;
 * the external id stacks are per thread, as CUPTI's are.  Kinds that
 * CUPTI knows but this emulator never records are refused with
 * CUPTI_ERROR_NOT_COMPATIBLE ("the activity kind cannot be enabled")
 * rather than accepted and left silent; kinds outside the enum get
 * CUPTI_ERROR_INVALID_KIND.  Records that find no buffer space (no
 * callbacks, a declined or too small buffer) are dropped and counted, as
 * cuptiActivityGetNumDroppedRecords reports.
 *
 * Environment: PD2BW_EMU_NO_CUPTI=1 makes cuptiActivityEnable fail with
 * CUPTI_ERROR_NOT_INITIALIZED, as CUPTI does when it cannot attach to the
 * driver, so that gpu.cu's "CUPTI unavailable" path can be tested.
 */
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include <cupti.h>

#include "emu.h"

#define ALIGN 8 /* ACTIVITY_RECORD_ALIGNMENT */

static_assert(sizeof(CUpti_ActivityKernel10) % ALIGN == 0,
	      "kernel records keep the 8-byte alignment");
static_assert(sizeof(CUpti_ActivityExternalCorrelation) % ALIGN == 0,
	      "external correlation records keep the 8-byte alignment");

struct cupti_state {
	CUpti_BuffersCallbackRequestFunc request;
	CUpti_BuffersCallbackCompleteFunc complete;
	bool on[CUPTI_ACTIVITY_KIND_COUNT];
	/* the buffer being filled: NULL when none is held */
	uint8_t *buf;
	size_t size;     /* as the client gave it */
	size_t first;    /* offset of the first record (alignment) */
	size_t used;     /* offset past the last record */
	size_t max;      /* most records, 0 = no limit */
	size_t nrec;
	size_t dropped;
};

static cupti_state st;

/* per thread, as cuptiActivityPushExternalCorrelationId's are */
static thread_local std::vector<uint64_t>
	ext_stack[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];

/*
 * Interned kernel names.  Never freed: a record's name must outlive the
 * buffer, and gpu.cu reads it in the completion callback; the pointer in
 * a static keeps LeakSanitizer quiet.
 */
static std::unordered_set<std::string> *names;

static const char *
intern(const char *name)
{
	if (!name)
		return NULL;
	if (!names)
		names = new std::unordered_set<std::string>();
	return names->insert(name).first->c_str();
}

/* Size of a record of kind KIND in our buffers; 0 if we never write one. */
static size_t
record_size(uint32_t kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		return sizeof(CUpti_ActivityExternalCorrelation);
	default:
		return 0;
	}
}

static int
kind_valid(CUpti_ActivityKind kind)
{
	return kind > CUPTI_ACTIVITY_KIND_INVALID &&
	       kind < CUPTI_ACTIVITY_KIND_COUNT;
}

static int
ext_kind_valid(CUpti_ExternalCorrelationKind kind)
{
	return kind > CUPTI_EXTERNAL_CORRELATION_KIND_INVALID &&
	       kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE;
}

static size_t
align_off(const uint8_t *buf)
{
	return (size_t)(-(uintptr_t)buf & (ALIGN - 1));
}

/* Hand the buffer being filled back to the client, even an empty one. */
static void
complete_buffer(void)
{
	uint8_t *buf = st.buf;
	size_t size = st.size, valid = st.nrec ? st.used : 0;

	if (!buf)
		return;
	/* detach first: the callback may start the next buffer */
	st.buf = NULL;
	st.size = st.first = st.used = st.max = st.nrec = 0;
	st.complete(NULL, 0, buf, size, valid);
}

/* Ask the client for a buffer; 0 if it declined or gave none usable. */
static int
request_buffer(void)
{
	uint8_t *buf = NULL;
	size_t size = 0, max = 0;

	st.request(&buf, &size, &max);
	if (!buf)
		return 0;
	st.buf = buf;
	st.size = size;
	st.first = align_off(buf);
	if (st.first > size)
		st.first = size;
	st.used = st.first;
	st.max = max;
	st.nrec = 0;
	return 1;
}

/* Copy the record REC of LEN bytes into the current buffer. */
static void
append(const void *rec, size_t len)
{
	if (!st.request || !st.complete) {
		st.dropped++;
		return;
	}
	if (st.buf && st.size - st.used < len)
		complete_buffer();
	if (!st.buf && !request_buffer()) {
		st.dropped++;
		return;
	}
	if (st.size - st.used < len) {
		/* a fresh buffer too small for even this record: give it
		 * back and lose the record, as CUPTI drops records it has
		 * no space for */
		st.dropped++;
		complete_buffer();
		return;
	}
	memcpy(st.buf + st.used, rec, len);
	st.used += len;
	st.nrec++;
	if (st.max && st.nrec >= st.max)
		complete_buffer();
}

static int
profiling_refused(void)
{
	const char *e = getenv("PD2BW_EMU_NO_CUPTI");

	return e && *e && strcmp(e, "0") != 0;
}

extern "C" void
emu_cupti_kernel(uint32_t corr, const char *name, uint64_t start_ns,
		 uint64_t end_ns, uint32_t stream)
{
	if (end_ns < start_ns)
		emu_fatal("kernel %s ends (%llu ns) before it starts (%llu ns)",
			  name ? name : "?", (unsigned long long)end_ns,
			  (unsigned long long)start_ns);
	if (st.on[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION]) {
		for (int k = CUPTI_EXTERNAL_CORRELATION_KIND_INVALID + 1;
		     k < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; k++) {
			CUpti_ActivityExternalCorrelation e;

			if (ext_stack[k].empty())
				continue;
			memset(&e, 0, sizeof(e));
			e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
			e.externalKind = (CUpti_ExternalCorrelationKind)k;
			e.externalId = ext_stack[k].back();
			e.correlationId = corr;
			append(&e, sizeof(e));
		}
	}
	if (st.on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] ||
	    st.on[CUPTI_ACTIVITY_KIND_KERNEL]) {
		CUpti_ActivityKernel10 k;

		memset(&k, 0, sizeof(k));
		k.kind = st.on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] ?
			 CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL :
			 CUPTI_ACTIVITY_KIND_KERNEL;
		k.start = start_ns;
		k.end = end_ns;
		/* no child kernels: it completes when it ends */
		k.completed = end_ns;
		k.deviceId = 0;
		k.contextId = 1;
		k.streamId = stream;
		/* the launch shape is not known here (emu.h does not pass
		 * it): grid and block stay 0 */
		k.correlationId = corr;
		k.gridId = corr;
		k.name = intern(name);
		k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
		/* queued and submitted stay CUPTI_TIMESTAMP_UNKNOWN, as
		 * without cuptiActivityEnableLatencyTimestamps */
		append(&k, sizeof(k));
	}
}

CUptiResult CUPTIAPI
cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc
			       funcBufferRequested,
			       CUpti_BuffersCallbackCompleteFunc
			       funcBufferCompleted)
{
	if (!funcBufferRequested || !funcBufferCompleted)
		return CUPTI_ERROR_INVALID_PARAMETER;
	st.request = funcBufferRequested;
	st.complete = funcBufferCompleted;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiActivityEnable(CUpti_ActivityKind kind)
{
	if (profiling_refused())
		return CUPTI_ERROR_NOT_INITIALIZED;
	if (!kind_valid(kind))
		return CUPTI_ERROR_INVALID_KIND;
	if (!record_size(kind))
		return CUPTI_ERROR_NOT_COMPATIBLE;
	st.on[kind] = true;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiActivityDisable(CUpti_ActivityKind kind)
{
	if (!kind_valid(kind))
		return CUPTI_ERROR_INVALID_KIND;
	st.on[kind] = false;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
				       uint64_t id)
{
	if (!ext_kind_valid(kind))
		return CUPTI_ERROR_INVALID_PARAMETER;
	ext_stack[kind].push_back(id);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
				      uint64_t *lastId)
{
	if (!ext_kind_valid(kind))
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (ext_stack[kind].empty())
		return CUPTI_ERROR_QUEUE_EMPTY;
	if (lastId)
		*lastId = ext_stack[kind].back();
	ext_stack[kind].pop_back();
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSizeBytes,
			   CUpti_Activity **record)
{
	size_t off, len;
	uint32_t kind;

	if (!buffer || !record)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (!*record) {
		off = align_off(buffer);
	} else {
		const uint8_t *p = (const uint8_t *)*record;

		if (p < buffer || p >= buffer + validBufferSizeBytes)
			return CUPTI_ERROR_INVALID_PARAMETER;
		off = (size_t)(p - buffer);
		len = record_size((uint32_t)(*record)->kind);
		if (!len)
			return CUPTI_ERROR_INVALID_KIND;
		off += len;
	}
	if (off >= validBufferSizeBytes)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	/* the kind, then the whole record, must lie in the valid bytes */
	if (validBufferSizeBytes - off < sizeof(kind))
		return CUPTI_ERROR_INVALID_KIND;
	memcpy(&kind, buffer + off, sizeof(kind));
	len = record_size(kind);
	if (!len || validBufferSizeBytes - off < len)
		return CUPTI_ERROR_INVALID_KIND;
	*record = (CUpti_Activity *)(buffer + off);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId,
				  size_t *dropped)
{
	(void)context; /* one global queue, as since CUDA 6.0 */
	(void)streamId;
	if (!dropped)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*dropped = st.dropped;
	st.dropped = 0;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiActivityFlushAll(uint32_t flag)
{
	(void)flag; /* every record is complete: forced or not, the same */
	if (!st.request || !st.complete)
		return CUPTI_ERROR_INVALID_OPERATION;
	complete_buffer();
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiGetTimestamp(uint64_t *timestamp)
{
	if (!timestamp)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*timestamp = emu_now_ns();
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiGetVersion(uint32_t *version)
{
	if (!version)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*version = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiGetResultString(CUptiResult result, const char **str)
{
	static const struct {
		CUptiResult r;
		const char *s;
	} tab[] = {
#define R(x) {x, #x}
		R(CUPTI_SUCCESS),
		R(CUPTI_ERROR_INVALID_PARAMETER),
		R(CUPTI_ERROR_INVALID_DEVICE),
		R(CUPTI_ERROR_INVALID_CONTEXT),
		R(CUPTI_ERROR_INVALID_EVENT_DOMAIN_ID),
		R(CUPTI_ERROR_INVALID_EVENT_ID),
		R(CUPTI_ERROR_INVALID_EVENT_NAME),
		R(CUPTI_ERROR_INVALID_OPERATION),
		R(CUPTI_ERROR_OUT_OF_MEMORY),
		R(CUPTI_ERROR_HARDWARE),
		R(CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT),
		R(CUPTI_ERROR_API_NOT_IMPLEMENTED),
		R(CUPTI_ERROR_MAX_LIMIT_REACHED),
		R(CUPTI_ERROR_NOT_READY),
		R(CUPTI_ERROR_NOT_COMPATIBLE),
		R(CUPTI_ERROR_NOT_INITIALIZED),
		R(CUPTI_ERROR_INVALID_METRIC_ID),
		R(CUPTI_ERROR_INVALID_METRIC_NAME),
		R(CUPTI_ERROR_QUEUE_EMPTY),
		R(CUPTI_ERROR_INVALID_HANDLE),
		R(CUPTI_ERROR_INVALID_STREAM),
		R(CUPTI_ERROR_INVALID_KIND),
		R(CUPTI_ERROR_INVALID_EVENT_VALUE),
		R(CUPTI_ERROR_DISABLED),
		R(CUPTI_ERROR_INVALID_MODULE),
		R(CUPTI_ERROR_INVALID_METRIC_VALUE),
		R(CUPTI_ERROR_HARDWARE_BUSY),
		R(CUPTI_ERROR_NOT_SUPPORTED),
		R(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED),
		R(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE),
		R(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES),
		R(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS),
		R(CUPTI_ERROR_CDP_TRACING_NOT_SUPPORTED),
		R(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED),
		R(CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE),
		R(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
		R(CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED),
		R(CUPTI_ERROR_OPENACC_UNDEFINED_ROUTINE),
		R(CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED),
		R(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
		R(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES),
		R(CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED),
		R(CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED),
		R(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED),
		R(CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED),
		R(CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED),
		R(CUPTI_ERROR_INVALID_CHIP_NAME),
		R(CUPTI_ERROR_UNKNOWN),
#undef R
	};

	if (!str)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].r == result) {
			*str = tab[i].s;
			return CUPTI_SUCCESS;
		}
	return CUPTI_ERROR_INVALID_PARAMETER;
}
