/*
 * fuzz_model.c - libFuzzer target for the model reader
 * (model_load_string: pd2bw-model/1 YAML and Hugging Face config.json):
 * reject with a message or accept; an accepted model must validate, write,
 * read back and write again to the same bytes.
 */
#include "fuzz.h"
#include "pd2bw/model.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m, n;
	char *buf;
	size_t len;

	model_init(&m);
	model_init(&n);
	if (model_load_string(&m, "fuzz/config.json", (const char *)data,
			      size) == 0) {
		if (model_write(&m, fz_p1))
			fz_fail("model: cannot write what was read");
		buf = fz_read(fz_p1, &len);
		if (model_load_string(&n, "a.yaml", buf, len))
			fz_fail("model: written model does not read");
		free(buf);
		if (model_write(&n, fz_p2))
			fz_fail("model: cannot write the model again");
		fz_same_files();
	}
	model_release(&m);
	model_release(&n);
	return 0;
}
