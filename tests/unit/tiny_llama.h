/*
 * tiny_llama.h - a Llama-family model small enough to check by hand:
 * hidden 64, 4 heads of 16 with 2 KV heads, a SwiGLU MLP of 128, two
 * blocks, sequence 32, vocabulary 100 (test_muon.c, test_lora.c).
 */
#ifndef PD2BW_TESTS_TINY_LLAMA_H
#define PD2BW_TESTS_TINY_LLAMA_H

#include "pd2bw/model.h"

static inline void
tiny_llama(struct model *m)
{
	model_init_family(m, MODEL_LLAMA);
	m->name = "tiny";
	m->layers = 2;
	m->hidden = 64;
	m->heads = 4;
	m->kv_heads = 2;
	m->ffn_hidden = 128;
	m->seq_len = 32;
	m->vocab = 100;
}

#endif
