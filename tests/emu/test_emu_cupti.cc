/*
 * test_emu_cupti.cc - tests of the CUPTI emulation (cupti_emu.cc): the
 * buffer callbacks, kernel and external correlation records in launch
 * order, the external id stacks, buffers split at their size and at
 * maxNumRecords, declined buffers, cuptiActivityGetNextRecord's walk and
 * errors, the result strings, and PD2BW_EMU_NO_CUPTI.
 */
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <cupti.h>

#include "emu.h"
#include "dies.h"
#include "harness.h"

#define KREC sizeof(CUpti_ActivityKernel10)
#define XREC sizeof(CUpti_ActivityExternalCorrelation)

/* what the buffer callbacks were asked for and given back */
struct got {
	uint32_t kind;
	uint32_t corr;
	uint64_t ext;
	int ext_kind;
	std::string name;
	uint64_t start, end;
	uint32_t stream, device, context;
	int buf;
};

static size_t req_size = 1 << 16, req_max;
static size_t req_misalign;    /* hand out buffers this far off 8 bytes */
static int req_decline;
static int nreq, ncomplete;
static std::vector<got> recs;
static std::vector<size_t> valids;
static int bad_walk;           /* a walk that did not end at the limit */
static int bad_size;           /* a completion with another size */
static std::map<uint8_t *, uint8_t *> bases;

static void CUPTIAPI
on_request(uint8_t **buf, size_t *size, size_t *max)
{
	uint8_t *base;

	nreq++;
	*max = req_max;
	if (req_decline) {
		*buf = NULL;
		*size = 0;
		return;
	}
	base = (uint8_t *)aligned_alloc(8, (req_size + req_misalign + 7) /
				       8 * 8);
	*buf = base + req_misalign;
	*size = req_size;
	bases[*buf] = base;
}

static void CUPTIAPI
on_complete(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
	    size_t valid)
{
	CUpti_Activity *rec = NULL;
	CUptiResult r;

	(void)ctx;
	(void)stream;
	if (size != req_size)
		bad_size++;
	valids.push_back(valid);
	while ((r = cuptiActivityGetNextRecord(buf, valid, &rec)) ==
	       CUPTI_SUCCESS) {
		got g = got();

		g.kind = rec->kind;
		g.buf = ncomplete;
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
		    rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
			const CUpti_ActivityKernel10 *k =
				(const CUpti_ActivityKernel10 *)rec;

			g.corr = k->correlationId;
			g.name = k->name ? k->name : "(null)";
			g.start = k->start;
			g.end = k->end;
			g.stream = k->streamId;
			g.device = k->deviceId;
			g.context = k->contextId;
		} else if (rec->kind ==
			   CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
			const CUpti_ActivityExternalCorrelation *e =
				(const CUpti_ActivityExternalCorrelation *)rec;

			g.corr = e->correlationId;
			g.ext = e->externalId;
			g.ext_kind = e->externalKind;
		}
		recs.push_back(g);
	}
	if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
		bad_walk++;
	ncomplete++;
	free(bases[buf]);
	bases.erase(buf);
}

static void
reset(void)
{
	recs.clear();
	valids.clear();
	nreq = ncomplete = 0;
	req_size = 1 << 16;
	req_max = 0;
	req_misalign = 0;
	req_decline = 0;
}

static int
is_kernel(const got &g, uint32_t corr, const char *name)
{
	return g.kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
	       g.corr == corr && g.name == name;
}

static int
is_ext(const got &g, uint32_t corr, uint64_t ext)
{
	return g.kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION &&
	       g.corr == corr && g.ext == ext &&
	       g.ext_kind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
}

static size_t
dropped(void)
{
	size_t n = 12345;

	if (cuptiActivityGetNumDroppedRecords(NULL, 0, &n) != CUPTI_SUCCESS)
		return 12345;
	return n;
}

static void
test_misc(void)
{
	uint32_t v = 0;
	uint64_t t0, ts = 0, t1;
	const char *s = NULL;

	CHECK(cuptiGetVersion(&v) == CUPTI_SUCCESS);
	CHECK_INT_EQ(v, CUPTI_API_VERSION);
	CHECK(cuptiGetVersion(NULL) == CUPTI_ERROR_INVALID_PARAMETER);
	t0 = emu_now_ns();
	CHECK(cuptiGetTimestamp(&ts) == CUPTI_SUCCESS);
	t1 = emu_now_ns();
	CHECK_MSG(t0 <= ts && ts <= t1, "timestamp on emu_now_ns's clock");
	CHECK(cuptiGetTimestamp(NULL) == CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiGetResultString(CUPTI_SUCCESS, &s) == CUPTI_SUCCESS);
	CHECK_STR_EQ(s, "CUPTI_SUCCESS");
	CHECK(cuptiGetResultString(CUPTI_ERROR_QUEUE_EMPTY, &s) ==
	      CUPTI_SUCCESS);
	CHECK_STR_EQ(s, "CUPTI_ERROR_QUEUE_EMPTY");
	CHECK(cuptiGetResultString(CUPTI_ERROR_UNKNOWN, &s) == CUPTI_SUCCESS);
	CHECK_STR_EQ(s, "CUPTI_ERROR_UNKNOWN");
	CHECK(cuptiGetResultString((CUptiResult)4242, &s) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiGetResultString(CUPTI_SUCCESS, NULL) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
}

/* Before the callbacks are registered: errors and dropped records. */
static void
test_unregistered(void)
{
	CHECK(cuptiActivityFlushAll(0) == CUPTI_ERROR_INVALID_OPERATION);
	CHECK(cuptiActivityRegisterCallbacks(NULL, on_complete) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiActivityRegisterCallbacks(on_request, NULL) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiActivityFlushAll(0) == CUPTI_ERROR_INVALID_OPERATION);
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_INVALID) ==
	      CUPTI_ERROR_INVALID_KIND);
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_COUNT) ==
	      CUPTI_ERROR_INVALID_KIND);
	CHECK(cuptiActivityEnable((CUpti_ActivityKind)1000) ==
	      CUPTI_ERROR_INVALID_KIND);
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EVENT) ==
	      CUPTI_ERROR_NOT_COMPATIBLE);
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME) ==
	      CUPTI_ERROR_NOT_COMPATIBLE);
	CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_INVALID) ==
	      CUPTI_ERROR_INVALID_KIND);
	CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY) ==
	      CUPTI_SUCCESS);
	/* enabled but nowhere to put it: dropped */
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
	      CUPTI_SUCCESS);
	emu_cupti_kernel(1, "early", 10, 20, 0);
	CHECK_INT_EQ(nreq, 0);
	CHECK_INT_EQ(dropped(), 1);
	CHECK_INT_EQ(dropped(), 0);
	CHECK(cuptiActivityGetNumDroppedRecords(NULL, 0, NULL) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
}

static void
test_stack(void)
{
	uint64_t id = 0;

	CHECK(cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id) ==
	      CUPTI_ERROR_QUEUE_EMPTY);
	CHECK(cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_INVALID, 1) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_SIZE, 1) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_SIZE, &id) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 5) == CUPTI_SUCCESS);
	CHECK(cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 6) == CUPTI_SUCCESS);
	/* per kind: CUSTOM0 is still empty */
	CHECK(cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id) ==
	      CUPTI_ERROR_QUEUE_EMPTY);
	CHECK(cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, &id) == CUPTI_SUCCESS);
	CHECK_INT_EQ(id, 6);
	/* lastId may be NULL */
	CHECK(cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, NULL) ==
	      CUPTI_SUCCESS);
	id = 77;
	CHECK(cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, &id) ==
	      CUPTI_ERROR_QUEUE_EMPTY);
	CHECK_MSG(id == 77, "a failed pop leaves lastId alone");
}

/* One buffer: kernels with and without an external id, in order. */
static void
test_records(void)
{
	char name[32];
	uint64_t id = 0;

	reset();
	CHECK(cuptiActivityRegisterCallbacks(on_request, on_complete) ==
	      CUPTI_SUCCESS);
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
	      CUPTI_SUCCESS);
	CHECK_MSG(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
		  CUPTI_SUCCESS, "enabling a kind twice");
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) ==
	      CUPTI_SUCCESS);

	/* the name is the caller's: it changes after the call */
	strcpy(name, "k_plain");
	emu_cupti_kernel(1, name, 100, 150, 7);
	strcpy(name, "overwritten");
	cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 100);
	emu_cupti_kernel(2, "k_a", 200, 260, 7);
	cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 101);
	emu_cupti_kernel(3, "k_b", 300, 300, 8);
	CHECK(cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id) == CUPTI_SUCCESS);
	CHECK_INT_EQ(id, 101);
	emu_cupti_kernel(4, "k_a", 400, 410, 7);
	CHECK(cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id) == CUPTI_SUCCESS);
	CHECK_INT_EQ(id, 100);
	CHECK(cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id) ==
	      CUPTI_ERROR_QUEUE_EMPTY);
	emu_cupti_kernel(5, "k_plain", 500, 600, 7);

	CHECK_INT_EQ(nreq, 1);
	CHECK_MSG(recs.empty(), "nothing delivered before the flush");
	CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) ==
	      CUPTI_SUCCESS);
	CHECK_INT_EQ(ncomplete, 1);
	CHECK_INT_EQ(bad_walk, 0);
	CHECK_INT_EQ(bad_size, 0);
	CHECK_INT_EQ(valids.size(), 1);
	CHECK_INT_EQ(valids[0], 5 * KREC + 3 * XREC);
	CHECK_INT_EQ(recs.size(), 8);
	if (recs.size() == 8) {
		CHECK(is_kernel(recs[0], 1, "k_plain"));
		CHECK(is_ext(recs[1], 2, 100));
		CHECK(is_kernel(recs[2], 2, "k_a"));
		CHECK(is_ext(recs[3], 3, 101));
		CHECK(is_kernel(recs[4], 3, "k_b"));
		CHECK(is_ext(recs[5], 4, 100));
		CHECK(is_kernel(recs[6], 4, "k_a"));
		CHECK(is_kernel(recs[7], 5, "k_plain"));
		CHECK_INT_EQ(recs[0].start, 100);
		CHECK_INT_EQ(recs[0].end, 150);
		CHECK_INT_EQ(recs[0].stream, 7);
		CHECK_INT_EQ(recs[4].stream, 8);
		CHECK_INT_EQ(recs[4].start, 300);
		CHECK_INT_EQ(recs[4].end, 300);
		CHECK_INT_EQ(recs[7].end, 600);
		CHECK_INT_EQ(recs[2].device, 0);
		CHECK_INT_EQ(recs[2].context, 1);
	}

	/* nothing held: a flush completes nothing */
	CHECK(cuptiActivityFlushAll(0) == CUPTI_SUCCESS);
	CHECK_INT_EQ(ncomplete, 1);

	/* one record per kind with an id, before the kernel's */
	reset();
	cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 9);
	cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 7);
	emu_cupti_kernel(6, "k_two", 700, 710, 0);
	cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
	cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, NULL);
	cuptiActivityFlushAll(0);
	CHECK_INT_EQ(recs.size(), 3);
	if (recs.size() == 3) {
		const got &g = recs[1];

		CHECK(is_ext(recs[0], 6, 7));
		CHECK(g.kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION &&
		      g.corr == 6 && g.ext == 9 &&
		      g.ext_kind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2);
		CHECK(is_kernel(recs[2], 6, "k_two"));
	}
	CHECK_INT_EQ(dropped(), 0);
}

/* Buffers too small for everything: split, misaligned, declined. */
static void
test_buffers(void)
{
	reset();
	/* room for one external record and one kernel record after 4
	 * bytes of alignment, not for a second external record */
	req_size = KREC + XREC + 16;
	req_misalign = 4;
	cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 55);
	for (uint32_t i = 0; i < 4; i++)
		emu_cupti_kernel(10 + i, "k_tiny", 1000 + i, 1001 + i, 0);
	cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
	CHECK_MSG(ncomplete == 3, "full buffers complete without a flush");
	cuptiActivityFlushAll(0);
	CHECK_INT_EQ(nreq, 4);
	CHECK_INT_EQ(ncomplete, 4);
	CHECK_INT_EQ(bad_walk, 0);
	CHECK_INT_EQ(bad_size, 0);
	CHECK_INT_EQ(recs.size(), 8);
	for (size_t i = 0; i < recs.size() && i < 8; i += 2) {
		uint32_t corr = 10 + (uint32_t)i / 2;

		CHECK(is_ext(recs[i], corr, 55));
		CHECK(is_kernel(recs[i + 1], corr, "k_tiny"));
		CHECK_INT_EQ(recs[i].buf, (int)i / 2);
		CHECK_INT_EQ(recs[i + 1].buf, (int)i / 2);
	}
	for (size_t i = 0; i < valids.size(); i++)
		CHECK_INT_EQ(valids[i], 4 + XREC + KREC);

	/* maxNumRecords: one record a buffer, completed at once */
	reset();
	req_max = 1;
	cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 56);
	emu_cupti_kernel(20, "k_max", 1, 2, 0);
	emu_cupti_kernel(21, "k_max", 3, 4, 0);
	cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
	CHECK_INT_EQ(ncomplete, 4);
	CHECK_INT_EQ(recs.size(), 4);
	if (recs.size() == 4) {
		CHECK(is_ext(recs[0], 20, 56));
		CHECK(is_kernel(recs[1], 20, "k_max"));
		CHECK(is_ext(recs[2], 21, 56));
		CHECK(is_kernel(recs[3], 21, "k_max"));
	}
	cuptiActivityFlushAll(0);
	CHECK_INT_EQ(ncomplete, 4);

	/* a buffer too small for a kernel record: returned, record lost */
	reset();
	req_size = KREC - 8;
	emu_cupti_kernel(30, "k_big", 1, 2, 0);
	CHECK_INT_EQ(ncomplete, 1);
	CHECK_MSG(valids.size() == 1 && valids[0] == 0,
		  "the too small buffer comes back empty");
	CHECK_INT_EQ(recs.size(), 0);
	CHECK_INT_EQ(dropped(), 1);

	/* a declined buffer: records dropped */
	reset();
	req_decline = 1;
	emu_cupti_kernel(31, "k_none", 1, 2, 0);
	emu_cupti_kernel(32, "k_none", 3, 4, 0);
	CHECK_INT_EQ(nreq, 2);
	cuptiActivityFlushAll(0);
	CHECK_INT_EQ(ncomplete, 0);
	CHECK_INT_EQ(dropped(), 2);
	reset();
}

/* Which kinds are on decides which records appear. */
static void
test_kinds(void)
{
	reset();
	CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
	      CUPTI_SUCCESS);
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL) ==
	      CUPTI_SUCCESS);
	emu_cupti_kernel(40, "k_serial", 1, 2, 0);
	CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_KERNEL) ==
	      CUPTI_SUCCESS);
	/* kernels off, external correlation on: the API call's record */
	cuptiActivityPushExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 60);
	emu_cupti_kernel(41, "k_off", 1, 2, 0);
	CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) ==
	      CUPTI_SUCCESS);
	emu_cupti_kernel(42, "k_off", 1, 2, 0);
	cuptiActivityPopExternalCorrelationId(
		CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
	cuptiActivityFlushAll(0);
	CHECK_INT_EQ(recs.size(), 2);
	if (recs.size() == 2) {
		CHECK(recs[0].kind == CUPTI_ACTIVITY_KIND_KERNEL &&
		      recs[0].corr == 40 && recs[0].name == "k_serial");
		CHECK(is_ext(recs[1], 41, 60));
	}
	CHECK_INT_EQ(dropped(), 0);
}

/* cuptiActivityGetNextRecord on buffers made here. */
static void
test_walk(void)
{
	uint64_t store[64];
	uint8_t *buf = (uint8_t *)store;
	CUpti_Activity *rec = NULL;
	CUpti_ActivityKernel10 k;
	CUpti_ActivityExternalCorrelation e;

	CHECK(cuptiActivityGetNextRecord(NULL, 8, &rec) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiActivityGetNextRecord(buf, 8, NULL) ==
	      CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(cuptiActivityGetNextRecord(buf, 0, &rec) ==
	      CUPTI_ERROR_MAX_LIMIT_REACHED);

	memset(store, 0, sizeof(store));
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.correlationId = 3;
	memset(&e, 0, sizeof(e));
	e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
	e.correlationId = 4;
	memcpy(buf, &k, KREC);
	memcpy(buf + KREC, &e, XREC);

	rec = NULL;
	CHECK(cuptiActivityGetNextRecord(buf, KREC + XREC, &rec) ==
	      CUPTI_SUCCESS);
	CHECK(rec == (CUpti_Activity *)buf);
	CHECK(cuptiActivityGetNextRecord(buf, KREC + XREC, &rec) ==
	      CUPTI_SUCCESS);
	CHECK(rec == (CUpti_Activity *)(buf + KREC));
	CHECK(cuptiActivityGetNextRecord(buf, KREC + XREC, &rec) ==
	      CUPTI_ERROR_MAX_LIMIT_REACHED);
	CHECK_MSG(rec == (CUpti_Activity *)(buf + KREC),
		  "the end leaves the last record in place");
	/* a record cut off by the valid size */
	rec = NULL;
	CHECK(cuptiActivityGetNextRecord(buf, KREC - 8, &rec) ==
	      CUPTI_ERROR_INVALID_KIND);
	rec = NULL;
	CHECK(cuptiActivityGetNextRecord(buf, KREC + 8, &rec) ==
	      CUPTI_SUCCESS);
	CHECK(cuptiActivityGetNextRecord(buf, KREC + 8, &rec) ==
	      CUPTI_ERROR_INVALID_KIND);
	/* a kind never written */
	store[0] = CUPTI_ACTIVITY_KIND_MEMCPY;
	rec = NULL;
	CHECK(cuptiActivityGetNextRecord(buf, KREC + XREC, &rec) ==
	      CUPTI_ERROR_INVALID_KIND);
}

static void
test_no_cupti(void)
{
	const char *s = NULL;

	setenv("PD2BW_EMU_NO_CUPTI", "1", 1);
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
	      CUPTI_ERROR_NOT_INITIALIZED);
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) ==
	      CUPTI_ERROR_NOT_INITIALIZED);
	cuptiGetResultString(CUPTI_ERROR_NOT_INITIALIZED, &s);
	CHECK_STR_EQ(s, "CUPTI_ERROR_NOT_INITIALIZED");
	setenv("PD2BW_EMU_NO_CUPTI", "0", 1);
	CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
	      CUPTI_SUCCESS);
	unsetenv("PD2BW_EMU_NO_CUPTI");
	CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
	      CUPTI_SUCCESS);
}

/* A kernel that ends before it starts is the emulator's bug: fatal. */
static void
run_backwards(void *)
{
	emu_cupti_kernel(1, "k_backwards", 20, 10, 0);
}

static void
test_fatal(void)
{
	CHECK_MSG(dies_with(run_backwards, NULL, "k_backwards"),
		  "end before start is fatal");
}

int
main(void)
{
	test_misc();
	test_unregistered();
	test_stack();
	test_records();
	test_buffers();
	test_kinds();
	test_walk();
	test_no_cupti();
	test_fatal();
	return h_done();
}
