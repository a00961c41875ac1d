/*
 * catalog.c - the GPU catalog: built-in GPU types with their public peak
 * figures and one documented set of achievable efficiencies per type, user
 * GPU files (pd2bw-gpus/1) read strictly with the yml.h helpers, lookup by
 * forgiving name, and writing the catalog back in the same format.
 *
 * Format pd2bw-gpus/1 (man pd2bw(5)):
 *
 *   format: pd2bw-gpus/1
 *   gpus:
 *     - name: GH200-96GB         text, letters/digits plus "-_ ."
 *       memory_gib: 96           device memory in GiB (2^30 bytes), > 0
 *       tflops16: 989.4          dense 16-bit tensor peak, TFLOP/s, > 0
 *       tflops32: 67             fp32 (non-tensor) peak, TFLOP/s, > 0
 *       memory_gb_s: 4000        memory bandwidth, GB/s (10^9), > 0
 *       nvlink_gb_s: 450         NVLink per GPU per direction, >= 0
 *       pcie_gb_s: 64            host link per direction, GB/s, > 0
 *       gemm_eff: 0.7            fractions in (0, 1]
 *       attn_eff: 0.45
 *       attn_eff_fa2: 0.35       optional: the same for FlashAttention-2-
 *                                class kernels (default attn_eff)
 *       mem_eff: 0.8
 *       kernel_us: 3             fixed cost per kernel, >= 0
 *       tflops8: 1978.9          optional: dense FP8 tensor peak, >= 0
 *       sms: 132                 optional: streaming multiprocessors
 *       gemm_eff8: 0.6           optional: fraction of tflops8 reached
 *       mxfp8: false             optional: MXFP8 (block-scaled) GEMMs
 *       gemm_eff_mxfp8: 0.5      optional: fraction of tflops8 MXFP8
 *                                GEMMs reach (default gemm_eff8)
 *       tflops4: 10000           optional: dense NVFP4 tensor peak, >= 0
 *       gemm_eff_nvfp4: 0.3      optional: fraction of tflops4 NVFP4
 *                                GEMMs reach (needed with tflops4)
 *       flops_per_exp: 256       optional: 16-bit tensor FLOPs per
 *                                exponential, per SM and clock, >= 0
 *       attn_block: 3.9          optional: the native attention kernel's
 *                                fixed cost per block of queries, in key
 *                                tiles (default 1.4, FlashAttention-2's)
 *       attn_bwd: 0.8            optional: its backward's fraction over
 *                                its forward's (attn_eff; default 1)
 *       score_flops_fwd: 330     optional: 16-bit tensor FLOPs' worth of
 *       score_flops_bwd: 800     time a score costs its 16-bit forward,
 *                                backward, at least (default
 *                                flops_per_exp)
 *       attn_bwd_fa2: 0.88       optional: FlashAttention-2-class
 *                                kernels' backward fraction over their
 *                                forward's (attn_eff_fa2; default 1)
 *       source: "..."            optional free text
 *
 * Memory is given in GiB because vendors' "80 GB" HBM parts hold 80 GiB
 * (an A100 80GB reports 81920 MiB); the catalog stores bytes, rounded
 * from the GiB figure, and writes GiB with 9 significant digits, so a
 * written file reads back to the same bytes.
 *
 * Efficiencies.  One set per GPU type, from public measurements, never
 * tuned per model or per case:
 *  - gemm_eff: the fraction of the dense peak that cuBLAS reaches on the
 *    large 16-bit GEMMs of a transformer layer.  A100: 230-250 of 312
 *    TFLOP/s on big bf16 GEMMs in NVIDIA's and the community's cuBLAS
 *    benchmarks, ~75%; Megatron-LM's end-to-end 44-52% of peak (model
 *    FLOPs, with recomputation, so 59-69% of hardware FLOPs, including
 *    communication, bubbles and non-GEMM kernels) is consistent with GEMMs
 *    at ~75%.  V100: ~90-100 of 125 TFLOP/s (the peak assumes the 1530 MHz
 *    boost clock), ~75%.  H100/H200 SXM: isolated cuBLAS runs reach
 *    ~650-750 of 989 TFLOP/s, but training runs hold less: 0.562, fitted
 *    (H100_GEMM_EFF below).  Blackwell (B200, GB200, GB300, B300):
 *    isolated cuBLAS runs reach ~1.5-1.6 of 2.25 PFLOP/s, ~70%, but, as
 *    on Hopper, training runs hold less; their 16-bit figure is the
 *    fitted FP8 one times Hopper's fitted 16-bit / FP8 ratio (GB_EFF16
 *    below).  L40S: a 350 W PCIe card that throttles under dense tensor
 *    load, ~65%.
 *  - attn_eff: the fraction for attention's matmuls (batched GEMMs of
 *    head size 64-128 without fused attention, or a fused flash kernel).
 *    FlashAttention-2 (Dao 2023) reaches 50-73% of peak on A100 forward
 *    and less backward; unfused batched GEMMs of that shape do about the
 *    same: 0.5 on V100 and A100, 0.45 on L40S.  The Hopper and Blackwell
 *    parts run cuDNN's fused attention, whose published timings
 *    (NVIDIA/cudnn-frontend benchmark results, bench/data/cudnn-sdpa.tsv:
 *    heads of 64 and 128, causal, unmasked and windowed, forward and
 *    backward apart) fix their isolated figures, fitted with the
 *    kernel's block cost by bench/attention.sh (4.2% rms over 108
 *    times): the forward's, 0.750 on the Hopper die (H200, cuDNN 9.19),
 *    0.710 on B200 and GB200, 0.843 on GB300 and B300 (cuDNN 9.22 and
 *    9.19; *_ATTN_ISO below), and the backward's over it (attn_bwd):
 *    0.825, 0.798, 0.745.  Where a part's GEMMs hold less in training
 *    runs than in isolation (the Hopper and Blackwell parts: fitted
 *    16-bit figure against the ~0.70 of isolated cuBLAS runs,
 *    ISOLATED_GEMM_EFF), the clocks under sustained tensor load hold back
 *    its attention kernels alike: their figures are scaled by the same
 *    ratio (TRAIN_ATTN).
 *    A100's fitted 0.696 is its isolated figure: nothing to scale.
 *  - score_flops_fwd, score_flops_bwd: what a score costs the native
 *    16-bit kernel besides its matmuls (its exponential, the online
 *    softmax's scaling and conversions; in backward dS = P (dP - D)
 *    too), in 16-bit tensor FLOPs: the same fit.  A score's matmuls
 *    take 4 d FLOPs forward and 10 d backward (d the head size); below
 *    the floor the kernel waits for the rest: at d = 64 on all three
 *    dies, where cuDNN runs a score no faster than at 128 (H200: 0.72
 *    against 0.76 ps forward).  Hopper 330 and 800, B200 and GB200 460
 *    and 840, Blackwell Ultra 490 and 890: the latter's doubled
 *    exponential rate does not show.
 *  - attn_eff_fa2: attention kernels written for the warp-level MMA
 *    instructions of Ampere (FlashAttention-2, PyTorch SDPA's flash
 *    backend, the Triton flash kernel), as --attention fa2 prices them.
 *    On Hopper they leave the asynchronous warpgroup MMA unused and reach
 *    about 35% of H100's peak (Shah et al. 2024, FlashAttention-3,
 *    abstract): 0.35 on the Hopper parts (H100, H200, H800, GH200), the
 *    forward's.  PyTorch's SDPA flash backend, timed beside cuDNN on an
 *    H200 (bench/data/fa2-sdpa.tsv, NVIDIA's benchmark), runs its
 *    forward at 0.357 at FlashAttention-2's block cost and its backward
 *    at 0.882 of that (bench/attention.sh): the backward's fraction
 *    (attn_bwd_fa2).  Elsewhere FA2 is the GPU's own kind of kernel:
 *    attn_eff, one rate; the Triton kernel runs at the forward's rate
 *    over ANALYTIC_TRITON_SLOWDOWN in both passes.
 *  - mem_eff: the fraction of the memory bandwidth that streaming kernels
 *    reach; BabelStream / STREAM-like triad kernels measure 85-92% on
 *    V100, A100 and H100; framework elementwise kernels (layer norm,
 *    dropout, softmax) sit a little lower: 0.8 everywhere.
 *  - kernel_us: fixed cost per kernel (launch, ramp-up and tail); NVIDIA's
 *    CUDA Graphs material quotes a few microseconds per launch: 4 us on
 *    V100/A100/L40S, 3 us on Hopper and Blackwell.
 *  - flops_per_exp: what bounds a fused attention kernel besides its
 *    matmuls where no timing of it says more (FlashAttention-2-class
 *    kernels, FP8 attention, the parts without score_flops_*): one
 *    exponential per score (forward, and again in backward
 *    where P is recomputed) on the special-function units, 16 a clock
 *    per SM from Volta to Blackwell, 32 on Blackwell Ultra (CUDA C++
 *    Programming Guide, arithmetic instruction throughput table; NVIDIA
 *    Blackwell Ultra technical blog, "2x attention-layer acceleration"),
 *    against the tensor cores' dense 16-bit FLOPs a clock per SM (the
 *    peak over SMs x boost clock: 1024 on V100 and L40S, 2048 on A100,
 *    4096 on Hopper, 8192 on Blackwell).  A forward score costs 4 x
 *    head size FLOPs, a backward one 10 x: below flops_per_exp / 4 (a
 *    head size of 128 on B200 and GB200, 64 on Hopper, Blackwell Ultra)
 *    the forward waits for its exponentials (on Blackwell the limit
 *    FlashAttention-4 eases by emulating part of them on the FMA units).
 *  - tflops8: dense FP8 peak of the datasheets (half the "with
 *    sparsity" figure): the Hopper parts 1978.9, B200 4500, L40S 733; none on
 *    V100 and A100.
 *  - gemm_eff8: the fraction of the FP8 peak that FP8 GEMMs reach:
 *    H100 FP8 cuBLASLt GEMMs run about 1100-1300 of 1979 TFLOP/s at
 *    transformer sizes in isolation; training runs hold 0.624, fitted on
 *    the H100 FP8 rows of bench/validate.sh's fit subset (H100_GEMM_EFF8);
 *    the Blackwell parts' below (GB_EFF8_*), fitted the same way.  All of
 *    them by bench/fit.sh, which reproduces these figures.
 *  - mxfp8: Blackwell's block-scaled FP8 (1 x 32 blocks with E8M0
 *    scales) in the tensor cores: B200, GB200, GB300, B300 (NVIDIA Blackwell
 *    architecture brief; Megatron-Core's mxfp8 recipe is "for Blackwell
 *    architecture only", transformer_config.py:597).
 *  - sms: SM count of the part (NVIDIA architecture whitepapers: V100
 *    80, A100 108, H100 SXM5 132, B200 148, B300 160; L40S 142), for the GEMMs'
 *    wave quantisation.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/catalog.h"
#include "pd2bw/error.h"
#include "pd2bw/yml.h"

#define GIB 1073741824.0

/*
 * FP8 GEMM efficiencies of the Blackwell parts, each fitted on the
 * dense and FSDP fit rows of bench/validate.sh for its GPU and precision
 * (bench/data/README.md: one set per GPU type and precision): per-tensor
 * FP8 (delayed and current scaling) and MXFP8 apart, since NVIDIA's own
 * tables time MXFP8 runs slower than current scaling at the same
 * configuration (Megatron-Bridge performance summaries, Llama 3 8B on
 * B200: 25.09 and 25.11, FP8-CS against MXFP8).  bench/fit.sh leaves
 * each group's fit rows within 0.3% in the mean; MXFP8 GEMMs come out at
 * 0.990 of the per-tensor rate on GB200.  Refitted (from B200 0.469,
 * GB200 0.480) once every collective over NVLink ran at what NCCL
 * reaches of the line rate (place.c PLACE_NVLINK_P2P_EFF): the fit rows'
 * tensor-parallel traffic had been priced a fifth too fast.  Refitted
 * (from B200 0.495,
 * GB200 0.497 / 0.492, GB300 MXFP8 0.617) once sequence parallelism ran
 * the norms and the residual adds on the rank's 1/t of the tokens
 * (analytic.c norm_ms(), dropadd_ms()): the fit rows, most of them
 * under it, had paid them on every token.  Refitted (from B200 0.499,
 * GB200 0.503, GB300 MXFP8 0.614) once a per-tensor FP8 copy on
 * Blackwell was priced without its transpose (cost_fp8_copies():
 * Transformer Engine makes none where the FP8 GEMMs take either
 * layout): the fit rows' casts had been priced a byte a value too dear.
 * Refitted before (from B200 0.500,
 * GB200 0.514 / 0.513, GB300 MXFP8 0.656, NVFP4 GB200 0.604, GB300
 * 0.470, H100 FP8 0.624) once cuDNN's attention was priced at the
 * isolated fractions and block cost its published timings give
 * (bench/attention.sh; 0.45 and 0.5 before, the FlashAttention-2 block
 * cost of 1.4 tiles): the earlier figures made up for attention priced
 * too slow with GEMMs too fast.  Refitted before (from B200 0.497,
 * GB200 0.507 / 0.500, GB300 MXFP8 0.639, NVFP4 GB200 0.564, GB300
 * 0.446, H100 0.591 / 0.607, A100 0.752) once PyTorch's non-reentrant
 * checkpoint stopped its recomputation early (analytic.c, the
 * runtime's rc_early_stop): the MPT fit rows, which fix the Hopper and
 * A100 16-bit figures, had been priced with their last MLP GEMM run
 * again.  Refitted before (from B200 0.493,
 * GB200 0.504 / 0.496, GB300 MXFP8 0.634, NVFP4 GB200 0.561, GB300
 * 0.442, H100 0.578 / 0.602, A100 0.746) once a fused attention kernel's
 * rate fell with the key tiles each block of queries has (analytic.c
 * attn_tile_share()): the short sequences' attention had been priced at
 * the long ones' rate.  Refitted before (from B200 0.484,
 * GB200 0.483 / 0.461, GB300 MXFP8 0.615, NVFP4 GB200 0.519, GB300
 * 0.425, H100 0.564 / 0.582) once the attention kernels were held back
 * as the GEMMs are (TRAIN_ATTN): the earlier fit had taken the missing
 * attention time out of the GEMMs.  Refitted before (from B200 0.51,
 * GB200 0.505 / 0.477, GB300 MXFP8 0.627, H100 0.62) once the FP8
 * casts were priced where Transformer Engine runs them (analytic.c
 * quant_ms: fused into the norm before QKV and the MLP, quantised on
 * the sequence-parallel shard, none for the weight gradients).
 * Their 16-bit GEMMs: no Blackwell 16-bit row measures a dense model
 * (the only ones are MoE runs, whose misses are not the GEMMs'), so the
 * 16-bit efficiency is not fitted on its own: it is the part's per-
 * tensor FP8 figure times the 16-bit / FP8 ratio fitted on Hopper, where
 * both precisions have dense rows (GB_EFF16).  Fitted in that order:
 * the 16-bit figure moves the FP8 rows through their 16-bit layers.
 */
/*
 * The Hopper die's GEMM efficiencies (H100 and H200 alike), fitted the
 * same way on the validation rows bench/validate.sh declares fit: 16-bit
 * on the 13 H100 16-bit fit rows (MosaicML's MPT runs under PyTorch FSDP,
 * 1B to 70B, 8 to 512 GPUs), which leave them at +0.06% in the mean;
 * then FP8 on the 5 dense H100 FP8 fit rows (NeMo 24.07, Megatron-
 * Bridge), which the 16-bit figure moves through the layers that stay
 * 16-bit: -0.01%.  Refitted (from 0.53 and 0.635) once the MPT rows'
 * Triton attention was priced as its own, slower kernel: the earlier
 * fit had taken that kernel's time out of the GEMMs; from 0.57 once
 * their loss was priced as llm-foundry's fused one; from 0.564 and
 * 0.582 once attention was held back with them (TRAIN_ATTN); from 0.578
 * and 0.602 once short sequences ran attention below its long-sequence
 * rate (analytic.c attn_tile_share()); from 0.591 and 0.607 once the
 * MPT rows' recomputation stopped early, as PyTorch's non-reentrant
 * checkpoint does (their FP8 figure now reaches a higher share of its
 * peak than the 16-bit one: what the MPT runs leave unpriced is in the
 * 16-bit figure); the FP8 one from 0.624 once cuDNN's attention, which
 * the FP8 rows run (the MPT rows run Triton's), was priced at its
 * published rate (bench/attention.sh); from 0.588 once the FP8 rows'
 * sequence-parallel norms ran on 1/t of the tokens; both (0.562 and
 * 0.548) once every collective over NVLink ran at what NCCL reaches of
 * the line rate (place.c PLACE_NVLINK_P2P_EFF).
 * The datasheet's 989 TFLOP/s assume the boost clock; under sustained
 * tensor load within 700 W an H100 SXM runs below it, and end to end the
 * 16-bit runs of every runtime reach 40-47% of that peak (Megatron-LM's
 * README: "up to 47% MFU on H100 clusters"; MPT 41-46%; torchtitan's
 * Llama 3 8B about 38%), against 50-60% on A100, whose 0.75 fits its
 * rows: about 570 TFLOP/s on the GEMMs, not the 650-750 of isolated
 * cuBLAS benchmarks.
 */
#define H100_GEMM_EFF 0.564
#define H100_GEMM_EFF8 0.550
/* to three decimals, which the catalog writes back exactly */
#define EFF_R3(x) ((int)((x) * 1000 + 0.5) / 1000.0)
/*
 * What isolated 16-bit cuBLAS GEMMs of transformer sizes reach on the
 * Hopper and Blackwell parts (above: 650-750 of H100's 989 TFLOP/s,
 * 1.5-1.6 of B200's 2.25 PFLOP/s): ~0.70.  A part's attention kernels
 * run at their isolated fraction a times its training runs' 16-bit GEMM
 * figure e16 over this (bench/fit.sh derives them the same way).
 */
#define ISOLATED_GEMM_EFF 0.70
#define TRAIN_ATTN(a, e16) EFF_R3((a) * (e16) / ISOLATED_GEMM_EFF)
/* the Hopper die's: cuDNN's kernels (bench/attention.sh), and
 * FlashAttention-2's */
#define H100_ATTN_ISO 0.750
#define H100_ATTN TRAIN_ATTN(H100_ATTN_ISO, H100_GEMM_EFF)
#define H100_FA2_ISO 0.35
#define H100_ATTN_FA2 TRAIN_ATTN(H100_FA2_ISO, H100_GEMM_EFF)
/*
 * The same die held to 500 W (below): its own GPU type, whose figures
 * are fitted the same way on its own fit rows (torchtitan's benchmarks,
 * section T of bench/validate.sh: 16-bit on Llama 3 8B over 128 GPUs,
 * FP8 on Llama 3 8B over 64 GPUs at TP 8 and Llama 3.1 405B over 512);
 * the datasheet peak stays the die's, the power limit is in them.
 * Refitted (from 0.494 and 0.559) once an eager RMSNorm was priced as
 * the chain of kernels it is (analytic.c norm_x_ms()): the 16-bit fit
 * row that runs without torch.compile had been priced with its norms
 * fused, and its figure took the difference; the FP8 one follows through
 * the attention, held back with the 16-bit GEMMs (TRAIN_ATTN).  Refitted
 * (from 0.529) once torchtitan's copies of the grouped K/V heads were
 * priced (runtime repeat-kv: the runs before ff0829c10).  The FP8 one
 * refitted from 0.525 once sequence parallelism's norms ran on 1/t of
 * the tokens, as torchtitan's TP plan shards them (SequenceParallel):
 * 0.370, well below what FP8 GEMMs reach alone, because its fit rows,
 * Llama 3 8B at TP 8 on 98k-token microbatches, spend some 15% more
 * than the model prices once the norms are sharded (README: what is
 * still unpriced); the whole-sequence norms had stood in for it.  Both
 * refitted (16-bit 0.534 -> 0.538, FP8 0.370 -> 0.398) once the input
 * gradients of torchtitan's separate Q, K, V and MLP linears were
 * summed (runtime split_proj, analytic.c split_sum_ms()), and the FP8
 * one (0.398 -> 0.475) once DTensor's copies
 * of the sequence dimension were priced and async TP hid only what it
 * fuses (runtime sp_dim_copy, tp_hidden): what the fit rows had spent
 * unpriced; 0.475 -> 0.502 once the tensor-parallel collectives ran at
 * what NCCL reaches of NVLink's line rate (place.c).
 */
#define H100_500W_GEMM_EFF 0.538
#define H100_500W_GEMM_EFF8 0.502
/* the limit holds back every tensor-core kernel, not the GEMMs alone:
 * its attention kernels too, by TRAIN_ATTN from its own GEMM figure */
#define H100_500W_ATTN TRAIN_ATTN(H100_ATTN_ISO, H100_500W_GEMM_EFF)
#define H100_500W_ATTN_FA2 TRAIN_ATTN(H100_FA2_ISO, H100_500W_GEMM_EFF)

#define GB_EFF8_B200 0.471
#define GB_EFF8_GB200 0.482
#define GB_EFF8MX_GB200 0.475
#define GB_EFF8MX_GB300 0.606
/* no fit row measures B200's MXFP8 or GB300's per-tensor GEMMs: each
 * is its part's other FP8 figure times GB200's ratio of the two */
#define GB_EFF8MX_B200 EFF_R3(GB_EFF8_B200 * GB_EFF8MX_GB200 / GB_EFF8_GB200)
#define GB_EFF8_GB300 EFF_R3(GB_EFF8MX_GB300 * GB_EFF8_GB200 / GB_EFF8MX_GB200)
#define GB_EFF16(e8) EFF_R3((e8) * H100_GEMM_EFF / H100_GEMM_EFF8)
/* ... and their attention kernels, held back with that figure: cuDNN's
 * isolated fractions on the B200 die and on Blackwell Ultra's
 * (bench/attention.sh) */
#define GB_ATTN_ISO 0.710
#define GBU_ATTN_ISO 0.843
/* cuDNN's block cost (analytic.c attn_tile_share()), its backward's
 * fraction over its forward's and the floors of a score, fitted with the
 * isolated fractions (bench/attention.sh): the Hopper and Blackwell
 * parts' native kernel */
#define CUDNN_ATTN_BLOCK 3.9
#define CUDNN_HOPPER CUDNN_ATTN_BLOCK, 0.825, 330, 800
/* ... and FlashAttention-2's backward over its forward on the Hopper
 * die (bench/attention.sh) */
#define FA2_HOPPER_BWD 0.882
#define CUDNN_BLACKWELL CUDNN_ATTN_BLOCK, 0.798, 460, 840
#define CUDNN_BLACKWELL_ULTRA CUDNN_ATTN_BLOCK, 0.745, 490, 890
#define GB_ATTN(a, e8) TRAIN_ATTN(a, GB_EFF16(e8))
/*
 * NVFP4 GEMMs (Transformer Engine's NVFP4BlockScaling: fprop, dgrad and
 * wgrad all 4-bit), fitted the same way on the NVFP4 fit rows of GB200
 * and GB300 (Megatron-Bridge's Llama 3.1 405B, 26.06, which run without
 * Transformer Engine's TP overlap, as Bridge's NVFP4 configs set it);
 * B200 has none:
 * its per-tensor FP8 figure times GB200's ratio of the two.  The peaks
 * are the datasheets' dense NVFP4 figures (half the "with sparsity"
 * ones): HGX B200 144 PFLOP/s sparse per 8 GPUs, 9 dense per GPU;
 * GB200 NVL72 1,440 sparse per 72, 10 dense; GB300 NVL72 1,080 dense
 * per 72, 15; HGX B300 108 dense per 8, 13.5.  Refitted (from 0.566 and
 * 0.436, then from 0.535 and 0.407 once the norms of sequence
 * parallelism ran on 1/t of the tokens) once the column-parallel
 * layers' input-gradient reductions ran
 * beside their weight-gradient GEMMs (runtime tp_dgrad_overlap): the fit
 * rows, at TP 4 without userbuffers, had paid them whole; from 0.478 and
 * 0.361 once their tensor-parallel collectives ran at what NCCL reaches
 * of NVLink's line rate (place.c PLACE_NVLINK_P2P_EFF).
 */
#define GB_EFF4_GB200 0.488
#define GB_EFF4_GB300 0.370
#define GB_EFF4_B200 EFF_R3(GB_EFF8_B200 * GB_EFF4_GB200 / GB_EFF8_GB200)

struct builtin {
	const char *name;
	double mem_gib, tflops16, tflops32, mem_gb_s, nvlink_gb_s, pcie_gb_s;
	double gemm_eff, attn_eff, mem_eff, kernel_us;
	const char *source;
	double tflops8;
	int sms;
	double gemm_eff8;
	int mxfp8;
	double gemm_eff8mx;
	double attn_eff_fa2;
	double tflops4, gemm_eff4;
	double flops_per_exp;
	double attn_block, attn_bwd, score_fwd, score_bwd;
	double attn_bwd_fa2;
};

/*
 * NVLink per direction is half the "total" (bidirectional) figure of the
 * datasheets: V100 NVLink2 6 links x 25 GB/s = 150 (300 total), A100
 * NVLink3 12 x 25 = 300 (600), H100/H200/GH200 NVLink4 18 x 25 = 450
 * (900), H800 8 x 25 = 200 (400), B200 NVLink5 18 x 50 = 900 (1800).  PCIe per direction: Gen3 x16 ~16,
 * Gen4 x16 32, Gen5 x16 64 GB/s (datasheets give the bidirectional 32 /
 * 64 / 128).
 */
static const struct builtin builtins[] = {
	/*
	 * NVIDIA Tesla V100 datasheet (SXM2): tensor 125 TFLOP/s, FP32 15.7,
	 * HBM2 900 GB/s, NVLink 300 GB/s, PCIe Gen3; 16 or 32 GB.
	 */
	{"V100-16GB", 16, 125, 15.7, 900, 150, 16, 0.75, 0.5, 0.8, 4,
	 "NVIDIA Tesla V100 datasheet (SXM2 16GB): 125 TFLOPS tensor, "
	 "15.7 FP32, 900 GB/s HBM2, NVLink 300 GB/s, PCIe Gen3",
	 0, 80, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0},
	{"V100-32GB", 32, 125, 15.7, 900, 150, 16, 0.75, 0.5, 0.8, 4,
	 "NVIDIA Tesla V100 datasheet (SXM2 32GB): 125 TFLOPS tensor, "
	 "15.7 FP32, 900 GB/s HBM2, NVLink 300 GB/s, PCIe Gen3",
	 0, 80, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0},
	/*
	 * NVIDIA A100 Tensor Core GPU datasheet (SXM): BF16 312 dense (624
	 * with sparsity), FP32 19.5, 40GB HBM2 1555 GB/s, 80GB HBM2e 2039
	 * GB/s, NVLink 600 GB/s, PCIe Gen4 64 GB/s.
	 */
	{"A100-40GB", 40, 312, 19.5, 1555, 300, 32, 0.75, 0.5, 0.8, 4,
	 "NVIDIA A100 datasheet (SXM4 40GB): 312 TFLOPS BF16 dense, 19.5 "
	 "FP32, 1555 GB/s HBM2, NVLink 600 GB/s, PCIe Gen4 64 GB/s",
	 0, 108, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0, 0, 0},
	/*
	 * gemm_eff fitted by bench/fit.sh on the A100 16-bit fit rows (the
	 * Megatron papers' and the FSDP rows).  Refitted from 0.723 once the
	 * weak-scaling rows of Narayanan et al. 2021 ran as their run script
	 * sets them (microbatch 16 to 1, interleaving, PyTorch DDP without a
	 * pipeline, fp16 gradients: NVIDIA/Megatron-LM examples/sc21/
	 * run_table_1.sh); assumed before at microbatch 1 with fp32
	 * gradients reduced after the flush, they had been priced slower.
	 * Their software (NGC PyTorch 20.12) runs behind the 2022 rows: the
	 * 1T model on the same 64-stage layout took 102.6 s per 512
	 * microbatches then, 94.4 s in Korthikanti et al. 2022, and one
	 * figure holds both within about 6% either way.  0.699 -> 0.696 once
	 * Megatron's column-parallel input-gradient reductions ran beside
	 * the weight-gradient GEMMs (runtime tp_dgrad_overlap; the 2021
	 * runs predate it).  0.696 -> 0.701 once NVLink collectives ran at
	 * what NCCL reaches of the line rate (place.c).
	 */
	{"A100-80GB", 80, 312, 19.5, 2039, 300, 32, 0.701, 0.5, 0.8, 4,
	 "NVIDIA A100 datasheet (SXM4 80GB): 312 TFLOPS BF16 dense, 19.5 "
	 "FP32, 2039 GB/s HBM2e, NVLink 600 GB/s, PCIe Gen4 64 GB/s",
	 0, 108, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0, 0, 0},
	/*
	 * NVIDIA H100 datasheet (SXM): BF16 1979 with sparsity = 989.4
	 * dense, FP32 67, 80GB HBM3 3.35 TB/s, NVLink 900 GB/s, PCIe Gen5
	 * 128 GB/s.  H200 datasheet (SXM): same compute, 141GB HBM3e at
	 * 4.8 TB/s.
	 */
	{"H100-SXM", 80, 989.4, 67, 3350, 450, 64, H100_GEMM_EFF, H100_ATTN,
	 0.8, 3,
	 "NVIDIA H100 datasheet (SXM5 80GB): 989.4 TFLOPS BF16 dense, 67 "
	 "FP32, 3.35 TB/s HBM3, NVLink 900 GB/s, PCIe Gen5 128 GB/s",
	 1978.9, 132, H100_GEMM_EFF8, 0, 0, H100_ATTN_FA2, 0, 0, 256, CUDNN_HOPPER, FA2_HOPPER_BWD},
	{"H200", 141, 989.4, 67, 4800, 450, 64, H100_GEMM_EFF, H100_ATTN,
	 0.8, 3,
	 "NVIDIA H200 datasheet (SXM 141GB): 989.4 TFLOPS BF16 dense, 67 "
	 "FP32, 4.8 TB/s HBM3e, NVLink 900 GB/s, PCIe Gen5 128 GB/s",
	 1978.9, 132, H100_GEMM_EFF8, 0, 0, H100_ATTN_FA2, 0, 0, 256, CUDNN_HOPPER, FA2_HOPPER_BWD},
	/*
	 * The H100 of Meta's Grand Teton hosts, on which torchtitan's team
	 * ran its published benchmarks (pytorch/torchtitan benchmarks/
	 * llama3_h100_202412_torchtitan.md and asyncTP_llama3_h100_2025-06_
	 * torchtitan.md): the H100 SXM die with 96 GB HBM2e at 2.4 TB/s, at
	 * its default 500 W power limit rather than 700 W, which the source
	 * says puts its real peak between the SXM's and the NVL's.  The
	 * datasheet figures of the die (989.4 TFLOP/s BF16 dense, 1978.9
	 * FP8, 132 SMs), with GEMM efficiencies of its own (the limit lowers
	 * the clocks under tensor load).
	 */
	{"H100-96GB-500W", 96, 989.4, 67, 2400, 450, 64, H100_500W_GEMM_EFF,
	 H100_500W_ATTN, 0.8, 3,
	 "NVIDIA H100 datasheet (SXM5) die: 989.4 TFLOPS BF16 dense, 67 FP32, "
	 "NVLink 900 GB/s; 96 GB HBM2e 2.4 TB/s at a 500 W power limit "
	 "(torchtitan benchmarks, Grand Teton hosts)",
	 1978.9, 132, H100_500W_GEMM_EFF8, 0, 0, H100_500W_ATTN_FA2, 0, 0,
	 256, CUDNN_HOPPER, FA2_HOPPER_BWD},
	/*
	 * NVIDIA H800 SXM5, the export part of the H100 SXM: the same
	 * compute and 80 GB HBM3 at 3.35 TB/s, with NVLink cut from 18
	 * links to 8, 400 GB/s (200 per direction) (NVIDIA H800 datasheet;
	 * DeepSeek-V3 technical report, section 3.2.2, reaches 160 GB/s
	 * over it).  The Hopper die: H100's efficiencies.
	 */
	{"H800", 80, 989.4, 67, 3350, 200, 64, H100_GEMM_EFF, H100_ATTN, 0.8, 3,
	 "NVIDIA H800 datasheet (SXM5 80GB): 989.4 TFLOPS BF16 dense, 67 "
	 "FP32, 3.35 TB/s HBM3, NVLink 400 GB/s, PCIe Gen5 128 GB/s",
	 1978.9, 132, H100_GEMM_EFF8, 0, 0, H100_ATTN_FA2, 0, 0, 256, CUDNN_HOPPER, FA2_HOPPER_BWD},
	/*
	 * The Hopper GPU of a GH200 Grace Hopper superchip: the H100 SXM's
	 * compute (989.4 TFLOP/s BF16 dense, 1978.9 FP8, 67 FP32, 132 SMs)
	 * with 96 GB HBM3 at 4 TB/s (GH200 480GB) or 144 GB HBM3e at 4.9
	 * TB/s (GH200 624GB), NVLink4 900 GB/s, and NVLink-C2C to its Grace
	 * CPU at 900 GB/s, 450 per direction: the host link (NVIDIA GH200
	 * Grace Hopper Superchip datasheet).  The Hopper die: H100's
	 * efficiencies, as no validation row measures a GH200.
	 */
	{"GH200", 96, 989.4, 67, 4000, 450, 450, H100_GEMM_EFF, H100_ATTN,
	 0.8, 3,
	 "NVIDIA GH200 Grace Hopper Superchip datasheet (GH200 480GB): "
	 "989.4 TFLOPS BF16 dense, 67 FP32, 96 GB HBM3 4 TB/s, NVLink 900 "
	 "GB/s, NVLink-C2C 900 GB/s",
	 1978.9, 132, H100_GEMM_EFF8, 0, 0, H100_ATTN_FA2, 0, 0, 256, CUDNN_HOPPER, FA2_HOPPER_BWD},
	{"GH200-144GB", 144, 989.4, 67, 4900, 450, 450, H100_GEMM_EFF,
	 H100_ATTN, 0.8, 3,
	 "NVIDIA GH200 Grace Hopper Superchip datasheet (GH200 624GB): "
	 "989.4 TFLOPS BF16 dense, 67 FP32, 144 GB HBM3e 4.9 TB/s, NVLink "
	 "900 GB/s, NVLink-C2C 900 GB/s",
	 1978.9, 132, H100_GEMM_EFF8, 0, 0, H100_ATTN_FA2, 0, 0, 256, CUDNN_HOPPER, FA2_HOPPER_BWD},
	/*
	 * NVIDIA HGX B200 datasheet, per GPU: FP16/BF16 4.5 PFLOP/s with
	 * sparsity = 2.25 dense, FP32 75 TFLOP/s, 180 GB HBM3e at 7.7 TB/s,
	 * NVLink5 1.8 TB/s, PCIe Gen5 128 GB/s.
	 */
	{"B200", 180, 2250, 75, 7700, 900, 64,
	 GB_EFF16(GB_EFF8_B200), GB_ATTN(GB_ATTN_ISO, GB_EFF8_B200), 0.8, 3,
	 "NVIDIA HGX B200 datasheet, per GPU: 2.25 PFLOPS BF16 dense, 9 NVFP4, 75 "
	 "TFLOPS FP32, 180 GB HBM3e 7.7 TB/s, NVLink 1.8 TB/s, PCIe Gen5",
	 4500, 148, GB_EFF8_B200, 1,
	 GB_EFF8MX_B200, 0, 9000, GB_EFF4_B200, 512, CUDNN_BLACKWELL, 0},
	/*
	 * The Blackwell GPU of a GB200 superchip (GB200 NVL72), at 1200 W:
	 * BF16 2.5 PFLOP/s dense, FP8 5, FP32 90 (NVIDIA Blackwell
	 * architecture technical brief, tabulated at
	 * glennklockwood.com/garden/processors/B200); 13.4 TB HBM3e per 72
	 * GPUs = 186 GB, 8 TB/s; NVLink5 1.8 TB/s; NVLink-C2C to Grace
	 * 900 GB/s (GB200 NVL72 datasheet).  The B200 die: 148 SMs.
	 */
	{"GB200", 186, 2500, 90, 8000, 900, 450,
	 GB_EFF16(GB_EFF8_GB200), GB_ATTN(GB_ATTN_ISO, GB_EFF8_GB200), 0.8, 3,
	 "NVIDIA GB200 NVL72 datasheet and Blackwell technical brief, per "
	 "GPU: 2.5 PFLOPS BF16 dense, 5 FP8, 10 NVFP4, 186 GB HBM3e 8 TB/s, NVLink "
	 "1.8 TB/s, NVLink-C2C 900 GB/s",
	 5000, 148, GB_EFF8_GB200, 1,
	 GB_EFF8MX_GB200, 0, 10000, GB_EFF4_GB200, 512, CUDNN_BLACKWELL, 0},
	/*
	 * The Blackwell Ultra GPU of a GB300 superchip (GB300 NVL72): BF16
	 * 2.5 PFLOP/s dense, FP8 5 (the rack's 360 PFLOP/s FP8 for
	 * training / 72), FP32 80, 279 GB HBM3e (20 TB per 72 GPUs) at
	 * 8 TB/s, NVLink5 1.8 TB/s, 160 SMs (NVIDIA's Blackwell Ultra
	 * technical blog; per-GPU table at verda.com/blog/gb300-nvl72-
	 * architecture; glennklockwood.com/garden/processors/B300).  Its
	 * doubled exponent rate speeds FlashAttention-2-class kernels'
	 * softmax (flops_per_exp 256); cuDNN's, its native kernel, is
	 * priced by its own timings (CUDNN_BLACKWELL_ULTRA).
	 */
	{"GB300", 279, 2500, 80, 8000, 900, 450,
	 GB_EFF16(GB_EFF8_GB300), GB_ATTN(GBU_ATTN_ISO, GB_EFF8_GB300), 0.8, 3,
	 "NVIDIA GB300 NVL72 datasheet and Blackwell Ultra blog, per GPU: 2.5 PFLOPS BF16 "
	 "dense, 5 FP8, 15 NVFP4, 279 GB HBM3e 8 TB/s, NVLink 1.8 TB/s, NVLink-C2C "
	 "900 GB/s, 160 SMs",
	 5000, 160, GB_EFF8_GB300, 1,
	 GB_EFF8MX_GB300, 0, 15000, GB_EFF4_GB300, 256, CUDNN_BLACKWELL_ULTRA, 0},
	/*
	 * The Blackwell Ultra GPU of an HGX/DGX B300 (eight per node, x86
	 * hosts): BF16 2.25 PFLOP/s dense, FP8 4.5, FP32 75 (HGX B300: 36,
	 * 72 and 600 for eight, the first two "with sparsity"), 288 GB
	 * HBM3e (2.3 TB per 8) at 8 TB/s, NVLink5 1.8 TB/s, PCIe Gen6 x16
	 * 128 GB/s per direction (NVIDIA HGX B300 datasheet, tabulated at
	 * glennklockwood.com/garden/processors/B300).  The GB300's die, 160
	 * SMs: its GEMM efficiencies, fitted on the GB300 rows, are this
	 * part's too (the lower clock is in the peaks).
	 */
	{"B300", 288, 2250, 75, 8000, 900, 128,
	 GB_EFF16(GB_EFF8_GB300), GB_ATTN(GBU_ATTN_ISO, GB_EFF8_GB300), 0.8, 3,
	 "NVIDIA HGX B300 datasheet, per GPU: 2.25 PFLOPS BF16 dense, 4.5 "
	 "FP8, 13.5 NVFP4, 75 TFLOPS FP32, 288 GB HBM3e 8 TB/s, NVLink 1.8 TB/s, PCIe "
	 "Gen6, 160 SMs",
	 4500, 160, GB_EFF8_GB300, 1,
	 GB_EFF8MX_GB300, 0, 13500, GB_EFF4_GB300, 256, CUDNN_BLACKWELL_ULTRA, 0},
	/*
	 * NVIDIA L40S datasheet: BF16 tensor 362.05 dense (733 sparse), FP32
	 * 91.6, 48GB GDDR6 864 GB/s, no NVLink, PCIe Gen4 x16 64 GB/s.
	 */
	{"L40S", 48, 362.05, 91.6, 864, 0, 32, 0.65, 0.45, 0.8, 4,
	 "NVIDIA L40S datasheet: 362.05 TFLOPS BF16 dense, 91.6 FP32, 48 GB "
	 "GDDR6 864 GB/s, no NVLink, PCIe Gen4 x16 64 GB/s",
	 733, 142, 0.6, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0},
};

#define NBUILTIN (sizeof(builtins) / sizeof(builtins[0]))

/*
 * Other spellings users and tools produce, mapped to catalog names.  Bare
 * "a100" means the 80 GB part (DGX A100 640GB, Selene, the published
 * Megatron measurements), bare "v100" the 16 GB part of the paper's
 * p3.16xlarge testbed.  Keys are normalised (lower case, no '-', '_', ' ').
 */
static const struct {
	const char *alias, *name;
} aliases[] = {
	{"v100", "V100-16GB"},
	{"v100sxm2", "V100-16GB"},
	{"v100sxm216gb", "V100-16GB"},
	{"v100sxm232gb", "V100-32GB"},
	{"a100", "A100-80GB"},
	{"a100sxm", "A100-80GB"},
	{"a100sxm4", "A100-80GB"},
	{"a100sxm480gb", "A100-80GB"},
	{"a100sxm440gb", "A100-40GB"},
	{"h100", "H100-SXM"},
	{"h100sxm5", "H100-SXM"},
	{"h10080gb", "H100-SXM"},
	{"h10080gbhbm3", "H100-SXM"},
	{"h100sxm580gb", "H100-SXM"},
	{"h200sxm", "H200"},
	{"h200141gb", "H200"},
	{"h200sxm141gb", "H200"},
	{"h800sxm", "H800"},
	{"h800sxm5", "H800"},
	{"h80080gb", "H800"},
	{"h80080gbhbm3", "H800"},
	{"gh20096gb", "GH200"},
	{"gh200120gb", "GH200"},
	{"gh200480gb", "GH200"},
	{"gh200144ghbm3e", "GH200-144GB"},
	{"gh200624gb", "GH200-144GB"},
};

static void
spec_release(struct gpu_spec *g)
{
	free(g->name);
	free(g->source);
	g->name = g->source = NULL;
}

static void
spec_copy(struct gpu_spec *dst, const struct gpu_spec *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->source = xstrdup(src->source ? src->source : "");
}

/* Lower case, '-', '_' and ' ' removed; out holds at least 64 bytes. */
static void
normalise(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++) {
		if (*s == '-' || *s == '_' || *s == ' ')
			continue;
		out[n++] = (char)tolower((unsigned char)*s);
	}
	out[n] = '\0';
}

static int
find_index(const struct gpu_catalog *c, const char *key)
{
	char buf[128];
	size_t i;

	for (i = 0; i < c->n; i++) {
		normalise(c->gpus[i].name, buf, sizeof(buf));
		if (!strcmp(buf, key))
			return (int)i;
	}
	return -1;
}

/* Add g (copied) or replace the entry with the same normalised name. */
static void
catalog_put(struct gpu_catalog *c, const struct gpu_spec *g)
{
	char key[128];
	int i;

	normalise(g->name, key, sizeof(key));
	i = find_index(c, key);
	if (i >= 0) {
		spec_release(&c->gpus[i]);
		spec_copy(&c->gpus[i], g);
		return;
	}
	xgrow((void **)&c->gpus, &c->alloc, c->n + 1, sizeof(*c->gpus));
	spec_copy(&c->gpus[c->n++], g);
}

void
catalog_init(struct gpu_catalog *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < NBUILTIN; i++) {
		const struct builtin *b = &builtins[i];
		struct gpu_spec g;

		g.name = (char *)(uintptr_t)b->name;
		g.mem_bytes = (int64_t)llround(b->mem_gib * GIB);
		g.tflops16 = b->tflops16;
		g.tflops32 = b->tflops32;
		g.mem_gb_s = b->mem_gb_s;
		g.nvlink_gb_s = b->nvlink_gb_s;
		g.pcie_gb_s = b->pcie_gb_s;
		g.gemm_eff = b->gemm_eff;
		g.attn_eff = b->attn_eff;
		g.mem_eff = b->mem_eff;
		g.kernel_us = b->kernel_us;
		g.tflops8 = b->tflops8;
		g.sms = b->sms;
		g.gemm_eff8 = b->gemm_eff8;
		g.mxfp8 = b->mxfp8;
		g.gemm_eff8mx = b->gemm_eff8mx;
		g.attn_eff_fa2 = b->attn_eff_fa2;
		g.tflops4 = b->tflops4;
		g.gemm_eff4 = b->gemm_eff4;
		g.flops_per_exp = b->flops_per_exp;
		g.attn_block = b->attn_block;
		g.attn_bwd = b->attn_bwd;
		g.score_fwd = b->score_fwd;
		g.score_bwd = b->score_bwd;
		g.attn_bwd_fa2 = b->attn_bwd_fa2;
		g.source = (char *)(uintptr_t)b->source;
		catalog_put(c, &g);
	}
}

void
catalog_release(struct gpu_catalog *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		spec_release(&c->gpus[i]);
	free(c->gpus);
	memset(c, 0, sizeof(*c));
}

const struct gpu_spec *
catalog_find(const struct gpu_catalog *c, const char *name)
{
	char key[128];
	const char *k;
	size_t i;
	int j;

	normalise(name, key, sizeof(key));
	if (!*key)
		return NULL;
	/* Exact names first, so a user entry named "A100" wins. */
	j = find_index(c, key);
	if (j >= 0)
		return &c->gpus[j];
	/* nvidia-smi names: "NVIDIA A100-SXM4-80GB", "Tesla V100-SXM2-16GB". */
	k = key;
	if (!strncmp(k, "nvidia", 6))
		k += 6;
	if (!strncmp(k, "tesla", 5))
		k += 5;
	if (k != key) {
		j = find_index(c, k);
		if (j >= 0)
			return &c->gpus[j];
	}
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(k, aliases[i].alias)) {
			char want[128];

			normalise(aliases[i].name, want, sizeof(want));
			j = find_index(c, want);
			return j >= 0 ? &c->gpus[j] : NULL;
		}
	return NULL;
}

/* ---- reading pd2bw-gpus/1 ---- */

static int
check_name(struct yml_doc *d, yaml_node_t *n, const char *s)
{
	const char *p;
	int alnum = 0;

	for (p = s; *p; p++) {
		if (isalnum((unsigned char)*p))
			alnum = 1;
		else if (!strchr("-_ .", *p))
			return yml_err(d, n, "invalid character '%c' in GPU "
				       "name '%s'", *p, s);
	}
	if (!alnum)
		return yml_err(d, n, "GPU name '%s' has no letter or digit",
			       s);
	if (p - s > 63)
		return yml_err(d, n, "GPU name '%s' is too long (over 63 "
			       "characters)", s);
	return 0;
}

/*
 * yml_map has checked the ranges [0, max]; zero is refused here with a
 * clearer message where it makes no sense.
 */
static int
check_pos(struct yml_doc *d, yaml_node_t *item, const char *key, double v,
	  int allow_zero)
{
	if (v > 0 || (allow_zero && v == 0))
		return 0;
	return yml_err(d, yml_get(d, item, key), "'%s' must be %s", key,
		       allow_zero ? "zero or positive" : "positive");
}

static int
check_eff(struct yml_doc *d, yaml_node_t *item, const char *key, double v)
{
	if (v > 0 && v <= 1)
		return 0;
	return yml_err(d, yml_get(d, item, key), "'%s' must be in (0, 1]",
		       key);
}

static int
read_gpu(struct yml_doc *d, yaml_node_t *item, struct gpu_spec *g)
{
	double gib = 0;
	const struct yml_key keys[] = {
		YK_STR("name", 1, &g->name),
		YK_DBL("memory_gib", 1, &gib, 0, 1048576),
		YK_DBL("tflops16", 1, &g->tflops16, 0, 1e6),
		YK_DBL("tflops32", 1, &g->tflops32, 0, 1e6),
		YK_DBL("memory_gb_s", 1, &g->mem_gb_s, 0, 1e6),
		YK_DBL("nvlink_gb_s", 1, &g->nvlink_gb_s, 0, 1e6),
		YK_DBL("pcie_gb_s", 1, &g->pcie_gb_s, 0, 1e6),
		YK_DBL("gemm_eff", 1, &g->gemm_eff, 0, 1),
		YK_DBL("attn_eff", 1, &g->attn_eff, 0, 1),
		YK_DBL("attn_eff_fa2", 0, &g->attn_eff_fa2, 0, 1),
		YK_DBL("mem_eff", 1, &g->mem_eff, 0, 1),
		YK_DBL("kernel_us", 1, &g->kernel_us, 0, 1e6),
		YK_DBL("tflops8", 0, &g->tflops8, 0, 1e6),
		YK_INT("sms", 0, &g->sms, 0, 100000),
		YK_DBL("gemm_eff8", 0, &g->gemm_eff8, 0, 1),
		YK_BOOL("mxfp8", 0, &g->mxfp8),
		YK_DBL("gemm_eff_mxfp8", 0, &g->gemm_eff8mx, 0, 1),
		YK_DBL("tflops4", 0, &g->tflops4, 0, 1e6),
		YK_DBL("gemm_eff_nvfp4", 0, &g->gemm_eff4, 0, 1),
		YK_DBL("flops_per_exp", 0, &g->flops_per_exp, 0, 1e6),
		YK_DBL("attn_block", 0, &g->attn_block, 0, 1e3),
		YK_DBL("attn_bwd", 0, &g->attn_bwd, 0, 10),
		YK_DBL("score_flops_fwd", 0, &g->score_fwd, 0, 1e6),
		YK_DBL("score_flops_bwd", 0, &g->score_bwd, 0, 1e6),
		YK_DBL("attn_bwd_fa2", 0, &g->attn_bwd_fa2, 0, 10),
		YK_STR("source", 0, &g->source),
	};

	if (yml_map(d, item, keys, sizeof(keys) / sizeof(keys[0])) ||
	    check_name(d, yml_get(d, item, "name"), g->name) ||
	    check_pos(d, item, "memory_gib", gib, 0) ||
	    check_pos(d, item, "tflops16", g->tflops16, 0) ||
	    check_pos(d, item, "tflops32", g->tflops32, 0) ||
	    check_pos(d, item, "memory_gb_s", g->mem_gb_s, 0) ||
	    check_pos(d, item, "nvlink_gb_s", g->nvlink_gb_s, 1) ||
	    check_pos(d, item, "pcie_gb_s", g->pcie_gb_s, 0) ||
	    check_eff(d, item, "gemm_eff", g->gemm_eff) ||
	    check_eff(d, item, "attn_eff", g->attn_eff) ||
	    check_eff(d, item, "mem_eff", g->mem_eff) ||
	    check_pos(d, item, "kernel_us", g->kernel_us, 1))
		return -1;
	g->mem_bytes = (int64_t)llround(gib * GIB);
	if (g->mem_bytes < 1)
		return yml_err(d, yml_get(d, item, "memory_gib"),
			       "'memory_gib' must be positive");
	if (!g->source)
		g->source = xstrdup("");
	return 0;
}

/* A normalised name and where it came from, for sorting. */
struct name_key {
	char key[128];
	size_t i;
};

static int
cmp_name_key(const void *a, const void *b)
{
	const struct name_key *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r ? r : x->i < y->i ? -1 : x->i > y->i;
}

static struct name_key *
sorted_keys(const struct gpu_spec *g, size_t n)
{
	struct name_key *k = xcalloc(n ? n : 1, sizeof(*k));
	size_t i;

	for (i = 0; i < n; i++) {
		normalise(g[i].name, k[i].key, sizeof(k[i].key));
		k[i].i = i;
	}
	qsort(k, n, sizeof(*k), cmp_name_key);
	return k;
}

/*
 * Entry of add[0..n) that repeats an earlier one (the first such in file
 * order), or n.  Sorting keeps a file of 10^5 GPUs near-linear; comparing
 * each with all before it took 22 s for 30,000.
 */
static size_t
first_repeat(const struct gpu_spec *add, size_t n)
{
	struct name_key *k = sorted_keys(add, n);
	size_t i, first = n;

	for (i = 1; i < n; i++)
		if (!strcmp(k[i].key, k[i - 1].key) &&
		    (i < 2 || strcmp(k[i - 1].key, k[i - 2].key)) &&
		    k[i].i < first)
			first = k[i].i; /* the second of its group */
	free(k);
	return first;
}

/* Add add[0..n) (names all distinct) to c, each replacing the entry of
 * the same normalised name; a search in the sorted old names each. */
static void
put_all(struct gpu_catalog *c, const struct gpu_spec *add, size_t n)
{
	size_t old = c->n, i;
	struct name_key *k = sorted_keys(c->gpus, old), want, *hit;

	for (i = 0; i < n; i++) {
		normalise(add[i].name, want.key, sizeof(want.key));
		want.i = 0;
		hit = NULL;
		if (old) {
			/* lower bound: the first old entry with the key */
			size_t lo = 0, hi = old;

			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (strcmp(k[mid].key, want.key) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < old && !strcmp(k[lo].key, want.key))
				hit = &k[lo];
		}
		if (hit) {
			spec_release(&c->gpus[hit->i]);
			spec_copy(&c->gpus[hit->i], &add[i]);
			continue;
		}
		xgrow((void **)&c->gpus, &c->alloc, c->n + 1,
		      sizeof(*c->gpus));
		spec_copy(&c->gpus[c->n++], &add[i]);
	}
	free(k);
}

static int
load_doc(struct gpu_catalog *c, struct yml_doc *d)
{
	yaml_node_t *root, *list = NULL;
	struct gpu_spec *tmp = NULL;
	char *fmt = NULL;
	size_t i, n = 0;
	int ret = -1;

	root = yml_root(d);
	if (!root || yml_check_format(d, root, "gpus", 1) < 0)
		return -1;
	{
		const struct yml_key keys[] = {
			YK_STR("format", 1, &fmt),
			YK_SEQ("gpus", 1, &list),
		};

		if (yml_map(d, root, keys, 2))
			goto out;
	}
	n = yml_seq_len(list);
	if (!n) {
		yml_err(d, list, "no GPUs in 'gpus'");
		goto out;
	}
	tmp = xcalloc(n, sizeof(*tmp));
	for (i = 0; i < n; i++)
		if (read_gpu(d, yml_seq_item(d, list, i), &tmp[i]))
			goto out;
	i = first_repeat(tmp, n);
	if (i < n) {
		yml_err(d, yml_get(d, yml_seq_item(d, list, i), "name"),
			"GPU '%s' is listed twice", tmp[i].name);
		goto out;
	}
	/* All entries are good: only now touch the catalog. */
	put_all(c, tmp, n);
	ret = 0;
out:
	for (i = 0; tmp && i < n; i++)
		spec_release(&tmp[i]);
	free(tmp);
	free(fmt);
	return ret;
}

int
catalog_load(struct gpu_catalog *c, const char *path)
{
	struct yml_doc d;
	int ret = -1;

	if (!yml_load_file(&d, path))
		ret = load_doc(c, &d);
	yml_release(&d);
	return ret;
}

int
catalog_load_string(struct gpu_catalog *c, const char *name, const char *buf,
		    size_t len)
{
	struct yml_doc d;
	int ret = -1;

	if (!yml_load_string(&d, name, buf, len))
		ret = load_doc(c, &d);
	yml_release(&d);
	return ret;
}

/* ---- writing ---- */

/* An optional figure: written where it is set (above 0). */
static void
out_opt(struct yml_out *o, const char *k, double v)
{
	if (v > 0)
		yml_out_kdbl(o, k, v);
}

int
catalog_write(const struct gpu_catalog *c, const char *path)
{
	struct yml_out o;
	size_t i;

	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", "pd2bw-gpus/1");
	yml_out_str(&o, "gpus");
	yml_out_seq(&o, 0);
	for (i = 0; i < c->n; i++) {
		const struct gpu_spec *g = &c->gpus[i];

		yml_out_map(&o, 0);
		yml_out_kstr(&o, "name", g->name);
		yml_out_kdbl(&o, "memory_gib", (double)g->mem_bytes / GIB);
		yml_out_kdbl(&o, "tflops16", g->tflops16);
		yml_out_kdbl(&o, "tflops32", g->tflops32);
		yml_out_kdbl(&o, "memory_gb_s", g->mem_gb_s);
		yml_out_kdbl(&o, "nvlink_gb_s", g->nvlink_gb_s);
		yml_out_kdbl(&o, "pcie_gb_s", g->pcie_gb_s);
		yml_out_kdbl(&o, "gemm_eff", g->gemm_eff);
		yml_out_kdbl(&o, "attn_eff", g->attn_eff);
		out_opt(&o, "attn_eff_fa2", g->attn_eff_fa2);
		yml_out_kdbl(&o, "mem_eff", g->mem_eff);
		yml_out_kdbl(&o, "kernel_us", g->kernel_us);
		out_opt(&o, "tflops8", g->tflops8);
		if (g->sms > 0)
			yml_out_kint(&o, "sms", g->sms);
		out_opt(&o, "gemm_eff8", g->gemm_eff8);
		if (g->mxfp8)
			yml_out_kbool(&o, "mxfp8", 1);
		out_opt(&o, "gemm_eff_mxfp8", g->gemm_eff8mx);
		out_opt(&o, "tflops4", g->tflops4);
		out_opt(&o, "gemm_eff_nvfp4", g->gemm_eff4);
		out_opt(&o, "flops_per_exp", g->flops_per_exp);
		out_opt(&o, "attn_block", g->attn_block);
		out_opt(&o, "attn_bwd", g->attn_bwd);
		out_opt(&o, "score_flops_fwd", g->score_fwd);
		out_opt(&o, "score_flops_bwd", g->score_bwd);
		out_opt(&o, "attn_bwd_fa2", g->attn_bwd_fa2);
		yml_out_kstr(&o, "source", g->source ? g->source : "");
		yml_out_end_map(&o);
	}
	yml_out_end_seq(&o);
	yml_out_end_map(&o);
	return yml_out_close(&o);
}
