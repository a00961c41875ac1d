# upstream.py - what the runtimes accept, as facts read from their code.
# Each fact cites the upstream file and line at the commit named; the
# checkers (check.py) hold every emitted file to them.  Facts, not code:
# nothing here is copied from upstream.
import re

# ---------------------------------------------------------------------
# NVIDIA/Megatron-LM d98e8a64dd (core_v0.15.0rc7-2333), files:
#   A  = megatron/training/arguments.py
#   TC = megatron/core/transformer/transformer_config.py
#   MP = megatron/core/model_parallel_config.py
#   LY = megatron/core/transformer/pipeline_parallel_layer_layout.py
#   TR = megatron/training/config/training_config.py
#   NM = megatron/core/num_microbatches_calculator.py
#   RC = megatron/core/recompute.py
#   HL = megatron/core/models/hybrid/hybrid_layer_allocation.py
# Flags are add_argument names in A, or TransformerConfig (and its base
# ModelParallelConfig) fields turned into --field-name by
# ArgumentGroupFactory (A:2373; megatron/training/argument_utils.py:93-104,
# bool fields defaulting to True become --no-/--disable- flags,
# argument_utils.py:176-181) and TrainingConfig fields (A:2863).
MEGATRON_FLAGS = {
    "--tensor-model-parallel-size": "MP:55",
    "--context-parallel-size": "MP:100",
    "--expert-model-parallel-size": "MP:127",
    "--expert-tensor-parallel-size": "MP:130",
    "--pipeline-model-parallel-size": "MP:83",
    "--sequence-parallel": "MP:94",
    "--fp16": "MP:177",
    "--bf16": "MP:180",
    "--fp8-format": "TC:587-588 (arg_names; e4m3 | hybrid)",
    "--fp8-param-gather": "A:2016 (store_true)",
    "--fp8-recipe": "TC:594 (tensorwise | delayed | mxfp8 | blockwise)",
    "--fp4-format": "TC:673-674 (arg_names; e2m1)",
    "--fp4-recipe": "TC:679 (nvfp4 | custom)",
    "--fp4-param-gather": "A:2012 (store_true)",
    "--first-last-layers-bf16": "TC:649 (bool)",
    "--num-layers-at-start-in-bf16": "TC:652",
    "--num-layers-at-end-in-bf16": "TC:656",
    "--grad-reduce-in-bf16": "A:3053 (store_true; bf16 only, A:1204-1217)",
    # a YAML file of per-module precision overrides (te_precision_config())
    "--te-precision-config-file": "A:2020",
    "--num-layers": "TC:65",
    "--hidden-size": "TC:145",
    "--num-attention-heads": "TC:148",
    "--num-query-groups": "TC:175",
    "--ffn-hidden-size": "TC:180",
    "--hidden-dropout": "TC:188",
    "--attention-dropout": "TC:191",
    "--disable-bias-linear": "TC:212 (arg_names)",
    "--normalization": "TC:256 (LayerNorm | RMSNorm)",
    "--recompute-granularity": "TC:532 (full | selective)",
    "--recompute-method": "TC:543 (uniform | block)",
    "--recompute-num-layers": "TC:551",
    "--recompute-modules": "TC:560-562 (nargs *)",
    "--group-query-attention": "A:2382",
    "--max-position-embeddings": "A:2394",
    "--position-embedding-type": "A:2397",
    "--rotary-base": "A:2418",
    "--swiglu": "A:2450",
    "--untie-embeddings-and-output-weights": "A:2460",
    "--decoder-first-pipeline-num-layers": "A:3095",
    "--decoder-last-pipeline-num-layers": "A:3099",
    "--pipeline-model-parallel-layout": "A:3103",
    "--num-layers-per-virtual-pipeline-stage": "A:3114",
    "--num-virtual-stages-per-pipeline-rank": "A:3116",
    "--no-overlap-p2p-communication": "A:3118 (store_false: overlap on)",
    "--use-distributed-optimizer": "A:3156",
    # overlaps, all off by default: A:3121 and A:3148 are store_true,
    # MP:265 and MP:343 bool fields defaulting to False
    "--overlap-grad-reduce": "A:3121 (store_true)",
    "--overlap-param-gather": "A:3148 (store_true; A:1024-1029)",
    "--tp-comm-overlap": "MP:265 (A:1441-1442)",
    "--overlap-moe-expert-parallel-comm": "MP:343 (TC:3002-3041)",
    "--cuda-graph-impl": "TC:1075 (none | local | transformer_engine | "
                         "full_iteration)",
    # the MXFP8 output layer: a TransformerConfig field turned flag by
    # ArgumentGroupFactory (A:2373), refused outside FP8 and mxfp8
    # (TC:1569-1575)
    "--fp8-output-proj": "TC:635 (A:2373)",
    # A:2050-2051 (nargs +): attn | mlp | moe | moe_router |
    # moe_preprocess | mamba (TC:1090-1104)
    "--cuda-graph-modules": "A:2050 (TC:1090-1104)",
    "--no-check-for-nan-in-loss-and-grad": "A:2872 (store_false)",
    "--optimizer": "A:2913-2914 (adam | sgd | muon | dist_muon | lion | "
                   "soap | adaptive_muon)",
    # Megatron-FSDP: DistributedInitConfig field (megatron/training/
    # config/common_config.py:92) through ArgumentGroupFactory (A:3092);
    # v1 turns the distributed optimizer on itself (A:1128-1135)
    "--use-megatron-fsdp": "common_config.py:92 (A:3092)",
    "--data-parallel-sharding-strategy":
        "A:3190-3192 (no_shard | optim | optim_grads | optim_grads_params)",
    # HSDP when > 1 (core/distributed/fsdp/mcore_fsdp_adapter.py:346)
    "--num-distributed-optimizer-instances": "A:3216",
    # activations of N layers offloaded (sets cpu_offloading, A:1950-1951);
    # N < num_layers, no pipeline, no recomputation (TC:1884-1899)
    "--cpu-offloading-num-layers": "MP:461",
    "--seq-length": "A:3305",
    # packed documents: cu_seqlens at the end-of-document tokens,
    # attention within each (store_true; pretrain_gpt.py:119)
    "--dataloader-inter-document-masking": "A:3326 (store_true)",
    "--micro-batch-size": "TR:11",
    # pd2bw-model/2 parts (planner/emit/megatron.c v2_args)
    "--kv-channels": "TC:184",
    "--squared-relu": "A:2448",
    "--add-qkv-bias": "TC:218",
    "--qk-layernorm": "TC:259",
    "--softmax-type": "TC:170 (vanilla | off-by-one | learnable)",
    "--activation-func-clamp-value": "TC:235",
    # Transformer Engine's op fuser; its grouped MLP of the experts needs
    # an expert tensor-parallel group of one (moe/experts.py:286-290
    # asserts _is_fused_impl_supported, which refuses one at :397-398)
    "--use-transformer-engine-op-fuser": "TC:525",
    "--window-size": "A:2384 (tuple)",
    "--window-attn-skip-freq": "A:2387",
    "--multi-latent-attention": "TC:288",
    "--q-lora-rank": "A:3548",
    "--kv-lora-rank": "A:3550",
    "--qk-head-dim": "A:3552",
    "--qk-pos-emb-head-dim": "A:3554",
    "--v-head-dim": "A:3556",
    "--num-experts": "A:3518",
    "--moe-layer-freq": "A:3520 (int or a Python list expression)",
    "--moe-router-topk": "TC:760",
    "--moe-ffn-hidden-size": "TC:740",
    "--moe-shared-expert-intermediate-size": "TC:701",
    "--moe-shared-expert-gate": "TC:713",
    "--moe-router-score-function": "TC:808 (softmax | sigmoid | ...)",
    "--moe-router-enable-expert-bias": "TC:816",
    "--moe-router-topk-scaling-factor": "TC:804 (Optional float)",
    "--moe-expert-capacity-factor": "TC:917",
    "--moe-pad-expert-input-to-capacity": "TC:921",
    "--moe-grouped-gemm": "TC:850",
    "--moe-permute-fusion": "TC:941",
    "--moe-router-fusion": "TC:944",
    # the fused kernels: on unless switched off (A:2892-2904,
    # store_false), the cross-entropy off unless switched on (MP:320)
    "--no-bias-gelu-fusion": "A:2892",
    "--no-bias-swiglu-fusion": "A:2895",
    "--no-bias-dropout-fusion": "A:2899",
    "--no-rope-fusion": "A:2902",
    "--cross-entropy-loss-fusion": "MP:320",
    "--moe-token-dispatcher-type": "TC:891 (allgather | alltoall | flex)",
    "--moe-flex-dispatcher-backend": "TC:898 (deepep | hybridep | ncclep)",
    "--moe-expert-rank-capacity-factor": "TC:1019 (Optional[float])",
    "--moe-use-grouped-tensor": "TC:857",
    "--moe-paged-stash": "TC:1364",
    "--moe-router-num-groups": "TC:780",
    "--moe-router-group-topk": "TC:796",
    "--fp8-dot-product-attention": "TC:640",
    "--mtp-num-layers": "TC:68",
    "--mtp-use-repeated-layer": "TC:82",
    "--moe-latent-size": "TC:952",
    "--global-batch-size": "TR:15",
    # hybrid models (pretrain_hybrid.py): the pattern (A:3652), the
    # layer spec the builder imports (A:3645, nargs *; hybrid_builders.py
    # :22-25), the Mamba sizes (TC:1259-1268)
    "--hybrid-layer-pattern": "A:3652",
    "--spec": "A:3645",
    "--mamba-state-dim": "TC:1259",
    "--mamba-head-dim": "TC:1262",
    "--mamba-num-groups": "TC:1265",
    "--mamba-num-heads": "TC:1268",
}
# TC:1943-1962: the modules selective recomputation accepts.
RECOMPUTE_MODULES = {"core_attn", "moe_act", "layernorm", "mla_up_proj",
                     "mlp", "moe", "shared_experts", "gdn_norm_out",
                     "gdp_in_proj", "gdp_qkv", "mhc"}
# A:3652: the symbols of --hybrid-layer-pattern (M Mamba, G GDN,
# * attention, D DSA, - MLP, E MoE), | between pipeline segments.
HYBRID_SYMBOLS = set("MG*D-E")
# hybrid_builders.py:22-25 imports the spec; hybrid_layer_specs.py:107
# defines the training stack.
HYBRID_SPEC = ["megatron.core.models.hybrid.hybrid_layer_specs",
               "hybrid_stack_spec"]
# A:1314-1317: these must be given.
MEGATRON_REQUIRED = ["--num-layers", "--hidden-size", "--num-attention-heads",
                     "--max-position-embeddings"]
# A:1320-1329: without --ffn-hidden-size Megatron takes 4h, or with
# --swiglu int(8h/3 / 64) * 64 (21824 for h 8192, not Llama-3-70B's 28672).
MEGATRON_POSITIONS = ["learned_absolute", "rope", "yarn", "mrope", "relative",
                      "none"]  # A:2397-2399


def megatron_default_ffn(h, swiglu):
    return int((4 * h * 2 / 3) / 64) * 64 if swiglu else 4 * h


def layout_parse(s):
    """LY:291-318: commas removed, "(x)*n" then "x*n" unrolled, stages
    split by '|', characters E embedding, L loss, t decoder, m mtp."""
    s = s.replace(",", "")
    s = re.sub(r"\(([^)]+)\)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), s)
    s = re.sub(r"(.)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), s)
    out = []
    for st in s.split("|"):
        for c in st:
            if c not in "ELtm":
                raise ValueError("invalid layer character %r (LY:310-315)" % c)
        out.append(st)
    return out


def layout_check(stages, pp, num_layers, mtp=0):
    """Megatron's rules for a parsed layout (mtp: --mtp-num-layers);
    returns [(pp_rank, vpp, stage)] in model order or raises."""
    # A:941-948 and LY:41-45: the number of stages divides by pp.
    if len(stages) % pp:
        raise ValueError("layout has %d stages, not a multiple of pp %d"
                         % (len(stages), pp))
    flat = "".join(stages)
    # LY:96-102: the first layer is E, the last L; LY:105-111: once each,
    # and the t count equals num_layers.
    if not flat.startswith("E") or not flat.endswith("L"):
        raise ValueError("layout must start with E and end with L")
    if flat.count("E") != 1 or flat.count("L") != 1:
        raise ValueError("E and L must appear once")
    if flat.count("t") != num_layers:
        raise ValueError("layout has %d t, --num-layers %d"
                         % (flat.count("t"), num_layers))
    # LY:112-114: the m count equals mtp_num_layers; LY:115-118: no
    # decoder layer after the first m; LY:121-126: m only in the last
    # virtual stage of a rank; LY:128-131: all of them in one stage.
    if flat.count("m") != mtp:
        raise ValueError("layout has %d m, mtp_num_layers %d (LY:112)"
                         % (flat.count("m"), mtp))
    if mtp and "t" in flat[flat.index("m"):]:
        raise ValueError("decoder layer after an MTP layer (LY:117)")
    vpp = len(stages) // pp
    for i, st in enumerate(stages):
        if "m" in st and (i // pp != vpp - 1 or st.count("m") != mtp):
            raise ValueError("MTP layers not all in one last virtual "
                             "stage (LY:121-131)")
    # LY:48-55: entry i is virtual stage i // pp of pipeline rank i % pp.
    return [(i % pp, i // pp, st) for i, st in enumerate(stages)]


def megatron_env_rules(conn, a, gpu):
    """conn: CUDA_DEVICE_MAX_CONNECTIONS after sourcing the file (the
    caller's was 7), or None when unset; gpu: the plan's catalog name."""
    bad = []
    fsdp = "--use-megatron-fsdp" in a or "--use-torch-fsdp2" in a
    # A:1166-1167 (and A:1048-1049 for torch FSDP2): FSDP refuses 1
    if fsdp and conn == "1":
        bad.append("FSDP with CUDA_DEVICE_MAX_CONNECTIONS=1 (A:1166-1167)")
    # A:1451-1479: before Blackwell (device arch < 10: every catalog GPU
    # but B200, B300, GB200, GB300) tensor or context parallelism asserts
    # 1, unless FSDP or the EP overlap (warnings)
    blackwell = gpu.startswith(("B", "GB"))
    tp = int(one(a, "--tensor-model-parallel-size") or 1)
    cp = int(one(a, "--context-parallel-size") or 1)
    if (tp > 1 or cp > 1) and not blackwell and not fsdp and \
            "--overlap-moe-expert-parallel-comm" not in a and conn != "1":
        bad.append("tensor/context parallelism on %s without "
                   "CUDA_DEVICE_MAX_CONNECTIONS=1 (A:1476-1479)" % gpu)
    return bad


# Megatron-Core's per-module precision config (--te-precision-config-file),
# at d98e8a6:
#   QC = megatron/core/quantization/quant_config.py
#   TE = megatron/core/extensions/transformer_engine.py
#   EN = megatron/core/enums.py
# Matchers in the order written, the enabled ones only (QC:_build_
# matchers), each of type "glob" with a pattern and a config (asserted
# there); the first whose fnmatch pattern matches a module's path picks
# its config (QC GlobMatcher.match, match_to_config_key).  A config is
# {transformer_engine_config_type: TEQuantizationParams (TE:129, 236),
# training_recipe, evaluation_recipe optional: nothing else (TE:244-
# 249)}; a recipe's keys are TEQuantizationRecipe's fields (TE:133-172,
# others refused TE:186-188), not delayed scaling (TE:190-191), not FP8
# and FP4 at once (TE:193-196), from EN:15-19 and EN:25-26; no recipe
# is 16 bits (TE:258-260).
TE_RECIPE_KEYS = {"fp8_quantization_recipe", "fp4_quantization_recipe",
                  "custom_recipe_factory", "fp8_format",
                  "override_quantized_autocast",
                  "override_nonquantized_autocast", "tp_only_amax_red",
                  "fp8_param", "fp4_param"}
FP8_RECIPES = {"delayed", "tensorwise", "mxfp8", "blockwise", "custom"}
FP4_RECIPES = {"nvfp4", "custom"}


def te_precision_config(y):
    """The problems of a loaded config, and a function from a module
    path to the precision it runs at ("bf16", an FP8 recipe, "nvfp4";
    None where no matcher takes it)."""
    import fnmatch
    bad, prec = [], {}
    for k, c in (y.get("configs") or {}).items():
        if c.get("transformer_engine_config_type") != "TEQuantizationParams":
            bad.append("config %s: type %s (TE:236)" %
                       (k, c.get("transformer_engine_config_type")))
        if set(c) - {"transformer_engine_config_type", "training_recipe",
                     "evaluation_recipe"} or "training_recipe" not in c:
            bad.append("config %s: keys %s (TE:237-249)" % (k, sorted(c)))
        r = c.get("training_recipe") or {}
        if set(r) - TE_RECIPE_KEYS:
            bad.append("config %s: recipe keys %s (TE:186-188)" %
                       (k, sorted(set(r) - TE_RECIPE_KEYS)))
        f8, f4 = r.get("fp8_quantization_recipe"), r.get(
            "fp4_quantization_recipe")
        if f8 is not None and f4 is not None:
            bad.append("config %s: FP8 and FP4 (TE:193-196)" % k)
        if f8 == "delayed":
            bad.append("config %s: delayed scaling (TE:190-191)" % k)
        if f8 is not None and f8 not in FP8_RECIPES:
            bad.append("config %s: FP8 recipe %s (EN:15-19)" % (k, f8))
        if f4 is not None and f4 not in FP4_RECIPES:
            bad.append("config %s: FP4 recipe %s (EN:25-26)" % (k, f4))
        prec[k] = f8 or f4 or "bf16"
    matchers = []
    for k, m in (y.get("matchers") or {}).items():
        if not m.get("enabled", False):
            continue
        if m.get("type") != "glob" or "pattern" not in m or \
                "config" not in m:
            bad.append("matcher %s: type, pattern, config (QC:"
                       "_build_matchers)" % k)
            continue
        if m["config"] not in prec:
            bad.append("matcher %s: no config %s" % (k, m["config"]))
        matchers.append((m["pattern"], m["config"]))

    def at(path):
        for pat, c in matchers:
            if fnmatch.fnmatch(path, pat):
                return prec.get(c)
        return None
    return bad, at


def megatron_rules(a, world):
    """a: flag -> list of values (None for switches).  Returns a list of
    violations."""
    bad = []
    for f in a:
        if f not in MEGATRON_FLAGS:
            bad.append("unknown flag %s" % f)
    for f in MEGATRON_REQUIRED:
        if f not in a:
            bad.append("missing required %s (A:1314-1317)" % f)
    # A:928-939: at most one of VPP layers / virtual stages / layout.
    n = sum(f in a for f in ("--num-layers-per-virtual-pipeline-stage",
                             "--num-virtual-stages-per-pipeline-rank",
                             "--pipeline-model-parallel-layout"))
    if n > 1:
        bad.append("more than one of VPP/virtual stages/layout (A:928-939)")
    # TC:2242-2258: no first/last-stage layers with a layout.
    if "--pipeline-model-parallel-layout" in a and (
            "--decoder-first-pipeline-num-layers" in a
            or "--decoder-last-pipeline-num-layers" in a):
        bad.append("layout with first/last stage layers (TC:2242-2258)")
    # A:787-844: with --hybrid-layer-pattern, no VPP, virtual-stage or
    # layout flag, and with '|' in it no first/last-stage layers; its
    # segments a multiple of the pipeline size; the spec required.
    hp = one(a, "--hybrid-layer-pattern")
    if hp is not None:
        for f in ("--num-layers-per-virtual-pipeline-stage",
                  "--num-virtual-stages-per-pipeline-rank",
                  "--pipeline-model-parallel-layout"):
            if f in a:
                bad.append("%s with --hybrid-layer-pattern (A:813-828)" % f)
        if "|" in hp and ("--decoder-first-pipeline-num-layers" in a or
                          "--decoder-last-pipeline-num-layers" in a):
            bad.append("first/last stage layers with a piped hybrid "
                       "pattern (A:801-812)")
        # hybrid_layer_allocation.py:225-276 (HL): after the main
        # pattern, one module pattern a multi-token-prediction depth,
        # each after a '/', all alike and without '|' (HL:254-276);
        # their count is --mtp-num-layers (A:864-874)
        parts = hp.split("/")
        hp, mtp = parts[0], parts[1:]
        if mtp and (len(set(mtp)) != 1 or "|" in mtp[0] or not mtp[0]):
            bad.append("MTP patterns %s not one non-empty pattern "
                       "(HL:254-276)" % "/".join(mtp))
        if mtp and set(mtp[0]) - HYBRID_SYMBOLS:
            bad.append("MTP pattern symbols %s (HL:288-292)" %
                       "".join(sorted(set(mtp[0]) - HYBRID_SYMBOLS)))
        nm = one(a, "--mtp-num-layers")
        if mtp and nm is not None and int(nm) != len(mtp):
            bad.append("--mtp-num-layers %s vs %d MTP depths in the "
                       "pattern (A:871-874)" % (nm, len(mtp)))
        if set(hp) - HYBRID_SYMBOLS - {"|"}:
            bad.append("hybrid pattern symbols %s (A:3652)" %
                       "".join(sorted(set(hp) - HYBRID_SYMBOLS - {"|"})))
        segs = hp.split("|")
        pp = int(one(a, "--pipeline-model-parallel-size") or 1)
        if len(segs) > 1 and len(segs) % pp:
            bad.append("%d hybrid segments for pipeline size %d (A:846-851)"
                       % (len(segs), pp))
        if a.get("--spec") != HYBRID_SPEC:
            bad.append("hybrid model without the hybrid stack spec "
                       "(hybrid_builders.py:22-25)")
        nl = one(a, "--num-layers")
        if nl is not None and int(nl) != sum(len(s) for s in segs):
            bad.append("--num-layers %s vs the pattern's %d layers "
                       "(A:790-797)" % (nl, sum(len(s) for s in segs)))
    # A:953-956: VPP layers exclude first/last stage layers.
    if "--num-layers-per-virtual-pipeline-stage" in a and (
            "--decoder-first-pipeline-num-layers" in a
            or "--decoder-last-pipeline-num-layers" in a):
        bad.append("VPP layers with first/last (A:953-956)")
    g = one(a, "--recompute-granularity")
    meth = one(a, "--recompute-method")
    nl = one(a, "--recompute-num-layers")
    if g is not None:
        if g not in ("full", "selective"):
            bad.append("granularity %s (TC:1902-1906)" % g)
        if g == "full" and (meth not in ("uniform", "block") or nl is None):
            bad.append("full needs method and layers (TC:1913-1925)")
        if g == "selective" and (meth is not None or nl is not None):
            bad.append("selective takes no method/layers (A:1425-1428, "
                       "TC:1926-1931)")
    elif meth is not None or nl is not None:
        bad.append("recompute method without granularity")
    mods = a.get("--recompute-modules")
    if mods is not None:
        if g != "selective":
            bad.append("recompute modules without selective granularity "
                       "(TC:1942)")
        if set(mods) - RECOMPUTE_MODULES:
            bad.append("recompute modules %s (TC:1943-1962)" %
                       sorted(set(mods) - RECOMPUTE_MODULES))
    f8 = one(a, "--fp8-format")
    if f8 is not None and f8 not in ("e4m3", "hybrid"):
        bad.append("fp8 format %s (TC:587)" % f8)
    r8 = one(a, "--fp8-recipe")
    if r8 is not None and r8 not in ("tensorwise", "delayed", "mxfp8",
                                     "blockwise", "custom"):
        bad.append("fp8 recipe %s (TC:594)" % r8)
    if r8 is not None and f8 is None:
        bad.append("--fp8-recipe without --fp8-format (TC:587-594: the "
                   "format switches FP8 on)")
    # TC:1528-1560: blocks in bf16 not under delayed scaling, and at
    # most num_layers // pp at either end (defaults 1, TC:652, 656)
    if "--first-last-layers-bf16" in a and f8 is not None:
        if (r8 or "delayed") == "delayed":
            bad.append("first/last layers in bf16 under delayed scaling "
                       "(TC:1529)")
        most = int(one(a, "--num-layers") or 0) // int(
            one(a, "--pipeline-model-parallel-size") or 1)
        for k in ("--num-layers-at-start-in-bf16",
                  "--num-layers-at-end-in-bf16"):
            if not 0 <= int(one(a, k) or 1) <= most:
                bad.append("%s over a stage's %d layers (TC:1538-1560)"
                           % (k, most))
    f4 = one(a, "--fp4-format")
    if f4 is not None and f4 != "e2m1":
        bad.append("fp4 format %s (TC:673)" % f4)
    r4 = one(a, "--fp4-recipe")
    if r4 is not None and r4 not in ("nvfp4", "custom"):
        bad.append("fp4 recipe %s (TC:679)" % r4)
    # A:1100-1101: FP4 and FP8 exclude each other; A:1104-1105: FP4
    # parameters need FP4
    if f4 is not None and f8 is not None:
        bad.append("--fp4-format with --fp8-format (A:1100-1101)")
    # A:2913-2914: the optimizer's choices; A:1739-1740: an emerging
    # optimizer (Muon) runs without FSDP
    op = one(a, "--optimizer")
    if op is not None and op not in ("adam", "sgd", "muon", "dist_muon",
                                     "lion", "soap", "adaptive_muon"):
        bad.append("optimizer %s (A:2913)" % op)
    if op not in (None, "adam", "sgd") and (
            "--use-megatron-fsdp" in a or "--use-torch-fsdp2" in a):
        bad.append("--optimizer %s with FSDP (A:1739-1740)" % op)
    # A:1204-1217: --grad-reduce-in-bf16 acts under --bf16 alone
    if "--grad-reduce-in-bf16" in a and "--bf16" not in a:
        bad.append("--grad-reduce-in-bf16 without --bf16 (A:1204-1217)")
    if "--fp4-param-gather" in a and f4 is None:
        bad.append("--fp4-param-gather without --fp4-format (A:1104-1105)")
    # A:1095-1097: FP8 parameters need the distributed optimizer (or FSDP)
    if "--fp8-param-gather" in a and not (
            "--use-distributed-optimizer" in a or "--use-megatron-fsdp" in a
            or "--use-torch-fsdp2" in a):
        bad.append("--fp8-param-gather without the distributed optimizer "
                   "or FSDP (A:1095-1097)")
    # A:1024-1029: the parameter all-gather overlaps under the distributed
    # optimizer, Megatron-FSDP or dist_muon, and with the reduction
    # overlapped
    if "--overlap-param-gather" in a:
        if not ("--use-distributed-optimizer" in a
                or "--use-megatron-fsdp" in a or op == "dist_muon"):
            bad.append("--overlap-param-gather without the distributed "
                       "optimizer (A:1024-1027)")
        if "--overlap-grad-reduce" not in a:
            bad.append("--overlap-param-gather without "
                       "--overlap-grad-reduce (A:1028-1029)")
    # A:1441-1442: TE's TP overlap needs sequence parallelism
    if "--tp-comm-overlap" in a and "--sequence-parallel" not in a:
        bad.append("--tp-comm-overlap without --sequence-parallel "
                   "(A:1441-1442)")
    # Transformer Engine d0067d0da transformer_engine/pytorch/module/
    # base.py:754: userbuffers carry FP8 and MXFP8 tensors, and raise
    # "Unsupported quantizer for Userbuffers" for any other (NVFP4)
    if "--tp-comm-overlap" in a and "--fp4-format" in a:
        bad.append("--tp-comm-overlap with NVFP4, which Transformer "
                   "Engine's userbuffers do not carry (TE base.py:754)")
    # TC:3002-3041: the EP all-to-all overlap
    if "--overlap-moe-expert-parallel-comm" in a:
        if int(one(a, "--expert-model-parallel-size") or 1) < 2:
            bad.append("EP overlap without expert parallelism "
                       "(TC:3012-3015)")
        if int(one(a, "--pipeline-model-parallel-size") or 1) > 1 and not (
                "--num-layers-per-virtual-pipeline-stage" in a
                or "--num-virtual-stages-per-pipeline-rank" in a
                or "--pipeline-model-parallel-layout" in a):
            bad.append("EP overlap with a pipeline without virtual "
                       "stages (TC:3007-3011)")
        if one(a, "--moe-token-dispatcher-type") not in ("alltoall", "flex"):
            bad.append("EP overlap without the alltoall or flex "
                       "dispatcher (TC:3016-3019)")
        if g == "full" or meth is not None or nl is not None:
            bad.append("EP overlap with full recomputation "
                       "(TC:3020-3029)")
        if "--bf16" not in a and "--fp16" not in a:
            bad.append("EP overlap without bf16 or fp16 (TC:3034-3037)")
    # moe/experts.py:286-290, 397-398: the op fuser's grouped MLP runs
    # whole experts
    if "--use-transformer-engine-op-fuser" in a and "--num-experts" in a \
            and int(one(a, "--expert-tensor-parallel-size") or
                    one(a, "--tensor-model-parallel-size") or 1) > 1:
        bad.append("op fuser with tensor-parallel experts "
                   "(moe/experts.py:397-398)")
    if "--fp8-output-proj" in a and (one(a, "--fp8-format") is None or
                                     one(a, "--fp8-recipe") != "mxfp8"):
        bad.append("fp8 output projection outside FP8 / mxfp8 "
                   "(TC:1569-1575)")
    gi = one(a, "--cuda-graph-impl")
    bad += graph_module_rules(gi, a.get("--cuda-graph-modules") or [],
                              "--num-experts" in a,
                              one(a, "--recompute-granularity"),
                              "--cpu-offloading" in a or
                              int(one(a, "--cpu-offloading-num-layers")
                                  or 0) > 0,
                              one(a, "--moe-token-dispatcher-type")
                              or "allgather",
                              one(a, "--moe-expert-capacity-factor"))
    if gi is not None:
        if gi not in ("none", "local", "transformer_engine",
                      "full_iteration"):
            bad.append("cuda graph impl %s (TC:1075)" % gi)
        # A:1235-1237: a full-iteration graph with the NaN check off
        if gi == "full_iteration" and \
                "--no-check-for-nan-in-loss-and-grad" not in a:
            bad.append("full-iteration CUDA graph with the NaN check "
                       "(A:1235-1237)")
    # A:1973-1974: multi-latent attention excludes group-query attention
    if "--multi-latent-attention" in a and "--group-query-attention" in a:
        bad.append("MLA with GQA (A:1973-1974)")
    d = one(a, "--moe-token-dispatcher-type")
    if d is not None and d not in ("allgather", "alltoall", "flex"):
        bad.append("dispatcher %s (TC:891)" % d)
    fb = one(a, "--moe-flex-dispatcher-backend")
    # TC:1862-1865: padding to the capacity needs a capacity factor;
    # TC:1754-1761: DeepEP's flex dispatcher cannot pad
    if "--moe-pad-expert-input-to-capacity" in a:
        if one(a, "--moe-expert-capacity-factor") is None:
            bad.append("padding to capacity without a capacity factor "
                       "(TC:1862-1865)")
        if d == "flex" and fb == "deepep":
            bad.append("padding to capacity with DeepEP (TC:1754-1761)")
    if fb is not None and fb not in ("deepep", "hybridep", "ncclep"):
        bad.append("flex backend %s (TC:898)" % fb)
    # TC:1868-1883: a rank capacity needs HybridEP or NCCL EP, and
    # HybridEP the op fuser or grouped tensors
    if one(a, "--moe-expert-rank-capacity-factor") is not None:
        if d != "flex" or fb not in ("hybridep", "ncclep"):
            bad.append("rank capacity without hybridep or ncclep "
                       "(TC:1868-1873)")
        elif fb == "hybridep" and \
                "--use-transformer-engine-op-fuser" not in a and \
                "--moe-use-grouped-tensor" not in a:
            bad.append("rank capacity on hybridep without the op fuser "
                       "or grouped tensors (TC:1874-1883)")
    # TC:2210-2217: a paged stash needs the rank capacity, no CPU offload
    if "--moe-paged-stash" in a:
        if one(a, "--moe-expert-rank-capacity-factor") is None:
            bad.append("paged stash without a rank capacity (TC:2213-2217)")
        # A:1950-1951: --cpu-offloading-num-layers sets cpu_offloading
        if one(a, "--cpu-offloading-num-layers") is not None:
            bad.append("paged stash with CPU offloading (TC:2211-2212)")
    # TC:1771-1776: the ncclep backend needs the flex dispatcher; a
    # backend beside another dispatcher is unused
    if fb is not None and d != "flex":
        bad.append("--moe-flex-dispatcher-backend without the flex "
                   "dispatcher")
    # TC:2671-2689: group-limited routing names its groups, which divide
    # the experts and hold the group top-k
    ng, gk = one(a, "--moe-router-num-groups"), one(a, "--moe-router-group-topk")
    if gk is not None and ng is None:
        bad.append("--moe-router-group-topk without --moe-router-num-groups "
                   "(TC:2677-2680)")
    if ng is not None and "--num-experts" in a and \
            int(one(a, "--num-experts")) % int(ng):
        bad.append("groups do not divide the experts (TC:2682-2685)")
    if ng is not None and gk is not None and int(gk) > int(ng):
        bad.append("group top-k above the groups (TC:2686-2689)")
    sf = one(a, "--moe-router-score-function")
    if sf is not None and sf not in ("softmax", "sigmoid", "sqrtsoftplus"):
        bad.append("router score %s (TC:808)" % sf)
    # TC:2617-2623: an expert bias needs sigmoid or sqrtsoftplus scores
    # (the default is softmax, TC:808)
    if "--moe-router-enable-expert-bias" in a and \
            sf not in ("sigmoid", "sqrtsoftplus"):
        bad.append("expert bias with %s scores (TC:2617-2623)"
                   % (sf or "softmax"))
    st = one(a, "--softmax-type")
    if st is not None and st not in ("vanilla", "off-by-one", "learnable"):
        bad.append("softmax type %s (TC:170)" % st)
    lf = one(a, "--moe-layer-freq")
    if lf is not None:
        # A:3520 moe_freq_type: an int, or a list expression of 0/1 with
        # one entry per layer
        if not re.fullmatch(r"\d+", lf):
            if not re.fullmatch(r"\[[01]\]\*\d+(\+\[[01]\]\*\d+)*", lf):
                bad.append("moe layer pattern %s (A:3520)" % lf)
            else:
                n = sum(int(x) for x in re.findall(r"\*(\d+)", lf))
                nl = one(a, "--num-layers")
                if nl is not None and n != int(nl):
                    bad.append("moe layer pattern of %d layers, not %s"
                               % (n, nl))
        if "--num-experts" not in a:
            bad.append("--moe-layer-freq without --num-experts")
    for f in ("--moe-router-topk", "--moe-ffn-hidden-size",
              "--moe-grouped-gemm", "--moe-permute-fusion",
              "--moe-router-fusion",
              "--moe-token-dispatcher-type"):
        if f in a and "--num-experts" not in a:
            bad.append("%s without --num-experts" % f)
    if "--num-experts" in a and "--moe-router-topk" in a and \
            int(one(a, "--moe-router-topk")) > int(one(a, "--num-experts")):
        bad.append("top-k above the experts")
    norm = one(a, "--normalization")
    if norm is not None and norm not in ("LayerNorm", "RMSNorm"):
        bad.append("normalization %s (TC:256)" % norm)
    pos = one(a, "--position-embedding-type")
    if pos is not None and pos not in MEGATRON_POSITIONS:
        bad.append("position embedding %s (A:2397-2399)" % pos)
    ss = one(a, "--data-parallel-sharding-strategy")
    if ss is not None:
        if ss not in ("no_shard", "optim", "optim_grads",
                      "optim_grads_params"):
            bad.append("sharding strategy %s (A:3190-3192)" % ss)
        if "--use-megatron-fsdp" not in a:
            bad.append("--data-parallel-sharding-strategy without "
                       "--use-megatron-fsdp")
    if "--num-distributed-optimizer-instances" in a and \
            "--use-distributed-optimizer" not in a:
        bad.append("optimizer instances without the distributed optimizer")
    off = one(a, "--cpu-offloading-num-layers")
    if off is not None:
        nl = one(a, "--num-layers")
        # TC:1884-1889: fewer than num_layers; TC:1891-1899: no pipeline,
        # no recomputation
        if nl is not None and int(off) >= int(nl):
            bad.append("cpu offloading of %s of %s layers (TC:1884)"
                       % (off, nl))
        if int(one(a, "--pipeline-model-parallel-size") or 1) > 1:
            bad.append("cpu offloading with a pipeline (TC:1891)")
        if "--recompute-granularity" in a:
            bad.append("cpu offloading with recomputation (TC:1896)")
    t = int(one(a, "--tensor-model-parallel-size") or 1)
    pp = int(one(a, "--pipeline-model-parallel-size") or 1)
    cp = int(one(a, "--context-parallel-size") or 1)
    if world % (t * pp * cp):
        bad.append("WORLD_SIZE %d not a multiple of t x pp x cp" % world)
    dp = world // (t * pp * cp) if t * pp * cp else 0
    # parallel_state.py:880-895: the expert grid splits the t cp dp ranks
    # of a stage into expert tensor x expert x expert data parallel
    ep = int(one(a, "--expert-model-parallel-size") or 1)
    etp = int(one(a, "--expert-tensor-parallel-size") or t)
    if (t * cp * dp) % (etp * ep):
        bad.append("t x cp x dp = %d not a multiple of etp x ep = %d "
                   "(parallel_state.py:880-895)" % (t * cp * dp, etp * ep))
    if ep > 1 and "--num-experts" not in a:
        bad.append("expert parallelism without experts")
    mb = int(one(a, "--micro-batch-size") or 1)
    gb = int(one(a, "--global-batch-size") or mb * dp)
    # NM:381: global batch divides by micro batch x data parallel.
    if gb % (mb * dp):
        bad.append("global batch %d %% (micro %d x dp %d) (NM:381)"
                   % (gb, mb, dp))
    return bad


def megatron_vpp_rules(pp, vpp, overlap_p2p):
    # A:1000-1009: the interleaved schedule needs pp > 2 unless p2p
    # overlap is on (its default, A:3118-3120), and pp > 1 anyway.
    if vpp > 1 and (pp < 2 or (not overlap_p2p and pp < 3)):
        return ["interleaving with pp %d (A:1000-1009)" % pp]
    return []


def megatron_first_last(num_layers, pp, first, last, vpp):
    """TC:2296-2360: stage layer counts under first/last."""
    bad = []
    mid_pp, rest = pp, num_layers
    if first is not None:
        if first <= 0:
            bad.append("first <= 0 (TC:2303-2304)")
        if vpp > 1 and first % vpp:
            bad.append("first %% vpp (TC:2306-2316)")
        rest -= first
        mid_pp -= 1
    if last is not None:
        if last <= 0:
            bad.append("last <= 0 (TC:2322-2323)")
        if vpp > 1 and last % vpp:
            bad.append("last %% vpp (TC:2325-2335)")
        rest -= last
        mid_pp -= 1
    if bool(rest) != bool(mid_pp):
        bad.append("middle layers/stages mismatch (TC:2340-2345)")
    if mid_pp and rest % mid_pp:
        bad.append("middle layers %% middle stages (TC:2349-2353)")
    if bad:
        return bad, None
    mid = rest // mid_pp if mid_pp else 0
    per = [mid] * pp
    if first is not None:
        per[0] = first
    if last is not None:
        per[-1] = last
    return [], per


CUDA_GRAPH_MODULES = {"attn", "mlp", "moe", "moe_router", "moe_preprocess",
                      "mamba"}


def graph_module_rules(impl, mods, moe, rc, offload, dispatcher, cf):
    """Megatron-Core's checks of per-layer CUDA graphs (TC:2794-2856)."""
    bad = []
    if impl in (None, "none"):
        return bad
    for x in mods:
        if x not in CUDA_GRAPH_MODULES:
            bad.append("cuda graph module %s (TC:1093)" % x)
    if impl == "full_iteration" and mods:
        bad.append("modules with a full-iteration graph (TC:2794-2796)")
    if offload and impl != "full_iteration":
        bad.append("CUDA graphs with CPU offloading (TC:2800-2801)")
    if impl in ("local", "transformer_engine"):
        if "moe" in mods and "moe_router" in mods:
            bad.append("moe and moe_router graphs together (TC:2817-2820)")
        if "moe_preprocess" in mods and "moe_router" not in mods and \
                impl == "transformer_engine":
            bad.append("moe_preprocess without moe_router (TC:2821-2824)")
        if not moe and ("moe" in mods or "moe_router" in mods):
            bad.append("MoE graphs without experts (TC:2825-2829)")
        if dispatcher == "alltoall" and cf is not None and \
                "moe_preprocess" in mods:
            bad.append("moe_preprocess graph with the alltoall "
                       "dispatcher under a capacity (TC:2843-2851)")
    if rc not in (None, "selective") and impl != "full_iteration":
        bad.append("full recomputation with per-layer graphs "
                   "(TC:2853-2856)")
    return bad


def one(a, f):
    v = a.get(f)
    if v is None:
        return None
    return v[0] if v else True


# RC:156-180 (recompute.py): method uniform checkpoints runs of N layers
# (all layers); block checkpoints the first N layers of every model chunk
# (TransformerBlock, so each virtual stage) and none of the rest.

# ---------------------------------------------------------------------
# microsoft/DeepSpeed 38327e07f6 (v0.16.4-6), files:
#   C  = deepspeed/runtime/config.py
#   K  = deepspeed/runtime/constants.py
#   AC = deepspeed/runtime/activation_checkpointing/config.py
#   Z  = deepspeed/runtime/zero/config.py
#   CU = deepspeed/runtime/config_utils.py
#   E  = deepspeed/runtime/pipe/engine.py
#   M  = deepspeed/runtime/pipe/module.py
#   T  = deepspeed/runtime/pipe/topology.py
#   I  = deepspeed/__init__.py
DEEPSPEED_KEYS = {
    "train_batch_size": "K:17",
    "train_micro_batch_size_per_gpu": "K:93",
    "gradient_accumulation_steps": "K:105",
    "bf16": "K:123 (enabled K:126)",
    "fp16": "K:151 (enabled K:153)",
    "zero_optimization": "Z:86-91 (pydantic, extra=forbid CU:110)",
    "activation_checkpointing": "AC:45",
    "pipeline": "C:460-473 (every key copied)",
    # C:802-818: _initialize_params reads the keys it knows by name; any
    # other top-level key is left alone (the notes of a config without a
    # pipeline section live here)
    "pd2bw": "C:802-818 (unread)",
}
# Z:91 stage, Z:109 reduce_bucket_size, Z:134 overlap_comm (None: on for
# stage 3 only, Z:351-353); CU:110 extra="forbid": no other key.
DEEPSPEED_ZERO_KEYS = {"stage", "reduce_bucket_size", "overlap_comm"}
# AC:27-42.
DEEPSPEED_ACT_KEYS = {"partition_activations", "number_checkpoints",
                      "contiguous_memory_optimization",
                      "synchronize_checkpoint_boundary", "profile",
                      "cpu_checkpointing"}
# C:460-469: the pipeline section's own keys; C:471-472 copies any other.
DEEPSPEED_PIPELINE_KEYS = {"stages", "partition", "seed_layers",
                           "activation_checkpoint_interval",
                           "pipe_partitioned", "grad_partitioned"}


def deepspeed_rules(cfg, world, dp=None):
    """dp: the data-parallel width of a config without a pipeline
    section (deepspeed.initialize on a plain module)."""
    bad = []
    for k in cfg:
        if k not in DEEPSPEED_KEYS:
            bad.append("unknown key %s" % k)
    z = cfg.get("zero_optimization", {})
    for k in z:
        if k not in DEEPSPEED_ZERO_KEYS:
            bad.append("zero key %s (CU:110 extra=forbid)" % k)
    for k in cfg.get("activation_checkpointing", {}):
        if k not in DEEPSPEED_ACT_KEYS:
            bad.append("activation_checkpointing key %s (AC:27-42)" % k)
    if "pipeline" not in cfg:
        # Z:91: stages 0-3; C:931: train_batch_size = micro x
        # accumulation x the data-parallel world (world / model ranks)
        if z.get("stage", 0) not in (0, 1, 2, 3):
            bad.append("zero stage %s (Z:91)" % z.get("stage"))
        if cfg["train_batch_size"] != (cfg["train_micro_batch_size_per_gpu"]
                                       * cfg["gradient_accumulation_steps"]
                                       * dp):
            bad.append("train_batch_size != micro x gas x dp (C:931)")
        if "moe" in cfg.get("pd2bw", {}):
            bad += deepspeed_moe_rules(cfg["pd2bw"]["moe"], z.get("stage", 0),
                                       dp, world // dp)
        return bad
    # E:77-78: ZeRO-2 and -3 are incompatible with pipeline parallelism.
    if z.get("stage", 0) not in (0, 1):
        bad.append("zero stage %s with the pipeline engine (E:77-78)"
                   % z.get("stage"))
    topo = cfg["pipeline"]["pd2bw_topology"]
    # T:244-248: PipeModelDataParallelTopology(num_pp, num_mp, num_dp),
    # axes pipe, data, model.
    if topo["num_pp"] * topo["num_mp"] * topo["num_dp"] != world:
        bad.append("topology %s does not cover %d ranks" % (topo, world))
    # C:931 with C:726 and I:207: train_batch_size = micro x accumulation x
    # the data-parallel world size of the PipelineModule's grid.
    tb = cfg["train_batch_size"]
    if tb != (cfg["train_micro_batch_size_per_gpu"]
              * cfg["gradient_accumulation_steps"] * topo["num_dp"]):
        bad.append("train_batch_size != micro x gas x dp (C:931)")
    if "pd2bw_moe" in cfg["pipeline"]:
        bad += deepspeed_moe_rules(cfg["pipeline"]["pd2bw_moe"],
                                   z.get("stage", 0), topo["num_dp"],
                                   topo["num_mp"])
    # M:444, M:531: a partition of one's own must call _set_bounds.
    if not any("_set_bounds(start=self.parts[stage_id], "
               "stop=self.parts[stage_id + 1])" in x
               for x in cfg["pipeline"]["pd2bw_recipe"]):
        bad.append("recipe without _set_bounds (M:444)")
    # M:648-667: without checkpointable_layers a PipelineModule
    # checkpoints every layer with parameters, the embedding and the head
    # too; the plan recomputes the blocks alone.
    if cfg["pipeline"].get("activation_checkpoint_interval", 0) and \
            not any("checkpointable_layers=" in x
                    for x in cfg["pipeline"]["pd2bw_recipe"]):
        bad.append("recipe checkpoints without checkpointable_layers "
                   "(M:661-667)")
    return bad


# DeepSpeed-MoE, the same commit, files:
#   L  = deepspeed/moe/layer.py
#   S  = deepspeed/moe/sharded_moe.py
#   G  = deepspeed/utils/groups.py
#   EN = deepspeed/runtime/engine.py
#   MU = deepspeed/moe/utils.py
def deepspeed_moe_rules(moe, zero, dp, t):
    """moe: the config's pd2bw_moe (pipeline) or pd2bw.moe object; zero
    its ZeRO stage; dp x t the ranks of one pipeline stage."""
    bad = []
    ep = moe["ep_size"]
    # L:59: the experts split evenly over the expert-parallel ranks.
    if moe["num_experts"] % ep:
        bad.append("ep_size %d does not divide %d experts (L:59)"
                   % (ep, moe["num_experts"]))
    # EN:1675: "MoE not supported with Stage 3".
    if zero == 3:
        bad.append("MoE under ZeRO stage 3 (EN:1675)")
    # G:258 (consecutive ranks of a stage) without expert tensor
    # parallelism; G:334, 403 (the data-parallel world) with it.
    etp = moe["enable_expert_tensor_parallelism"]
    ranks = dp if etp else dp * t
    if ranks % ep:
        bad.append("ep_size %d does not divide %d ranks (G:%s)"
                   % (ep, ranks, "403" if etp else "258"))
    # S:161-170, S:406: with drop_tokens the capacity needs a factor.
    if moe["drop_tokens"] and not moe.get("capacity_factor", 0) > 0:
        bad.append("drop_tokens without capacity_factor (S:161-170)")
    # L:38-53: the recipe builds the MoE layer with the same arguments.
    mk = [x for x in moe["recipe"] if x.startswith("moe = MoE(")]
    want = ["num_experts=%d" % moe["num_experts"], "ep_size=%d" % ep,
            "k=%d" % moe["k"],
            "drop_tokens=%s" % ("True" if moe["drop_tokens"] else "False"),
            "enable_expert_tensor_parallelism=%s" % ("True" if etp
                                                     else "False")]
    if moe["drop_tokens"]:
        want += ["capacity_factor=%g" % moe["capacity_factor"],
                 "min_capacity=%d" % moe["min_capacity"]]
    if len(mk) != 1:
        bad.append("recipe without one MoE(...) (L:38-53)")
    else:
        for w in want:
            if w + "," not in mk[0] and w + ")" not in mk[0]:
                bad.append("recipe's MoE(...) without %s" % w)
    # MU:72: the optimizer needs the experts' parameters in MoE groups
    # (zero/stage_1_and_2.py:626-628 asserts one).
    if not any("split_params_into_different_moe_groups_for_optimizer(" in x
               for x in moe["recipe"]):
        bad.append("recipe without the optimizer's MoE groups (MU:72)")
    return bad


def deepspeed_rank(s, r, j, w, t):
    # T:244-248 with ProcessTopology's row-major axes (T:26-40): pipe,
    # data, model with model fastest.
    return (s * w + r) * t + j


# ---------------------------------------------------------------------
# pytorch/torchtitan v0.2.2, files:
#   J  = torchtitan/config/job_config.py
#   PP = torchtitan/distributed/pipeline_parallel.py
#   TN = torchtitan/train.py
#   PD = torchtitan/distributed/parallel_dims.py
#   PL = torchtitan/models/llama3/infra/parallelize.py
#   L3 = torchtitan/models/llama3/__init__.py
#   Q3 = torchtitan/models/qwen3/__init__.py
#   F8 = torchtitan/components/quantization/float8.py
#   L4 = torchtitan/models/llama4/infra/parallelize.py (qwen3's too)
#   AC = torchtitan/distributed/activation_checkpoint.py
TORCHTITAN_KEYS = {
    "job": {"description": "J:25"},
    "model": {"name": "J:101", "flavor": "J:104", "converters": "J:118"},
    # J:731-745 Float8Linear, reached as quantize.linear.float8 (J:813, 831);
    # its keys: recipe_name J:738, filter_fqns J:741,
    # enable_fsdp_float8_all_gather J:732,
    # precompute_float8_dynamic_scale_for_fsdp J:735
    "quantize": {"linear": "J:831"},
    "training": {"local_batch_size": "J:253", "global_batch_size": "J:256",
                 "seq_len": "J:261", "mixed_precision_param": "J:282"},
    "parallelism": {"data_parallel_replicate_degree": "J:313",
                    "data_parallel_shard_degree": "J:324",
                    # "default" | "always" | "never" (ZeRO-2)
                    "fsdp_reshard_after_forward": "J:336",
                    "tensor_parallel_degree": "J:351",
                    # Inductor's micro-pipelined TP; needs compile with
                    # "model" (distributed/tensor_parallel.py:16-25)
                    "enable_async_tensor_parallel": "J:357",
                    "context_parallel_degree": "J:428",
                    # "allgather" (the default) | "alltoall"
                    "context_parallel_rotate_method": "J:446",
                    "pipeline_parallel_degree": "J:360",
                    "module_fqns_per_model_part": "J:367",
                    "pipeline_parallel_schedule": "J:396",
                    "pipeline_parallel_microbatch_size": "J:412",
                    "expert_parallel_degree": "J:454",
                    # 1 (the default) | tp, PD:59
                    "expert_tensor_parallel_degree": "J:464"},
    "activation_checkpoint": {"mode": "J:652",
                              "selective_ac_option": "J:655",
                              # a bool, False by default; AC:150-156
                              # pass it to every checkpoint wrapper
                              "early_stop": "J:675"},
    # J:721-727 Compile, reached as compile (J:1017): PL:256-267 compiles
    # each block, components/loss.py:33-35 the loss
    "compile": {"enable": "J:722", "components": "J:725"},
}
TORCHTITAN_COMPILE_COMPONENTS = {"model", "loss"}  # J:725
TORCHTITAN_AC_MODES = {"selective", "full", "memory_budget", "none"}  # J:652
TORCHTITAN_PRECISIONS = {"bfloat16", "float32"}  # J:282
# (model, flavor): layers.  L3:51-95; Q3:145-190 (every block MoE).
TORCHTITAN_FLAVORS = {("llama3", "8B"): 32, ("llama3", "70B"): 80,
                      ("llama3", "405B"): 126, ("qwen3", "30B-A3B"): 48,
                      ("qwen3", "235B-A22B"): 94}
# Q3:199: qwen3's TrainSpec has no pipelining_fn; TN:218-223 refuses PP.
TORCHTITAN_NO_PP = {"qwen3"}


def torchtitan_rules(c, world):
    bad = []
    for sec, keys in c.items():
        if sec not in TORCHTITAN_KEYS:
            bad.append("unknown section %s" % sec)
            continue
        for k in keys:
            if k not in TORCHTITAN_KEYS[sec]:
                bad.append("unknown key %s.%s" % (sec, k))
    p = c["parallelism"]
    rep = p.get("data_parallel_replicate_degree", 1)
    shard = p.get("data_parallel_shard_degree", -1)
    tp = p.get("tensor_parallel_degree", 1)
    pp = p.get("pipeline_parallel_degree", 1)
    cp = p.get("context_parallel_degree", 1)
    if shard < 0:
        # PD:49-50: -1 takes the ranks left over.
        shard = world // (rep * cp * tp * pp)
    # PD:53: the degrees multiply to the world size.
    if rep * shard * cp * tp * pp != world:
        bad.append("degrees do not multiply to %d (PD:53)" % world)
    if p.get("context_parallel_rotate_method", "allgather") not in (
            "allgather", "alltoall"):
        bad.append("context_parallel_rotate_method (J:446)")
    # J:336: the reshard policy's values
    if p.get("fsdp_reshard_after_forward", "default") not in (
            "default", "always", "never"):
        bad.append("fsdp_reshard_after_forward (J:336)")
    # PL:148-151: DDP (replicate without shard) only as the sole
    # parallelism.
    if rep > 1 and shard == 1 and rep != world:
        bad.append("DDP with other parallelism (PL:150-151)")
    t = c["training"]
    dp = rep * shard
    # TN:196-213: global = local x dp x accumulation.
    if t["global_batch_size"] % (t["local_batch_size"] * dp):
        bad.append("global %% (local x dp) (TN:203)")
    if pp > 1:
        mb = p.get("pipeline_parallel_microbatch_size", 1)
        # PP:189: local batch divides by the microbatch size.
        if t["local_batch_size"] % mb:
            bad.append("local %% microbatch (PP:189)")
        parts = p.get("module_fqns_per_model_part")
        # PP:456-458: the parts divide by the pipeline degree.
        if parts is None or len(parts) % pp:
            bad.append("parts %% pp (PP:456-458)")
    if c["activation_checkpoint"]["mode"] not in TORCHTITAN_AC_MODES:
        bad.append("mode (J:652)")
    if not isinstance(c["activation_checkpoint"].get("early_stop", False),
                      bool):
        bad.append("early_stop is a bool (J:675)")
    # AC:177-183: selective takes "op" or a layer frequency, digits (J:655:
    # "2" by default)
    opt = c["activation_checkpoint"].get("selective_ac_option", "2")
    if (c["activation_checkpoint"]["mode"] == "selective" and
            opt != "op" and not opt.isdigit()):
        bad.append("selective_ac_option %r (AC:177-183)" % opt)
    if t.get("mixed_precision_param", "bfloat16") not in TORCHTITAN_PRECISIONS:
        bad.append("precision (J:282)")
    name = c["model"].get("name", "llama3")
    if (name, c["model"]["flavor"]) not in TORCHTITAN_FLAVORS:
        bad.append("flavor (L3, Q3)")
    if name in TORCHTITAN_NO_PP and pp > 1:
        bad.append("%s has no pipelining_fn (Q3:199, TN:218-223)" % name)
    ep = p.get("expert_parallel_degree", 1)
    etp = p.get("expert_tensor_parallel_degree", 1)
    if ep > 1:
        # PD:59: etp is 1 or tp.
        if etp not in (1, tp):
            bad.append("expert_tensor_parallel_degree %d (PD:59)" % etp)
        # PD:138, 201: efsdp = dp_shard cp tp / (etp ep), a whole mesh
        # dimension: the EP group never takes replicas.
        if (shard * cp * tp) % (etp * ep):
            bad.append("efsdp not whole: dp_shard %d x cp %d x tp %d "
                       "%% (etp %d x ep %d) (PD:138)"
                       % (shard, cp, tp, etp, ep))
    # components/quantization/float8.py:238: the converter's name; J:738
    # the recipes, J:740 the modules left out.
    for conv in c["model"].get("converters", []):
        if conv != "quantize.linear.float8":
            bad.append("unknown converter %s (float8.py:238)" % conv)
        f8 = c.get("quantize", {}).get("linear", {}).get("float8", {})
        for k in f8:
            if k not in ("recipe_name", "filter_fqns",
                         "enable_fsdp_float8_all_gather",
                         "precompute_float8_dynamic_scale_for_fsdp"):
                bad.append("unknown key quantize.linear.float8.%s (J:731)" % k)
        # J:738: None (torchao's default, tensorwise: F8:85-100) or a
        # recipe; F8:65-69: no FP8 all-gather (J:732) with a recipe.
        if f8.get("recipe_name") not in (None, "tensorwise", "rowwise",
                                         "rowwise_with_gw_hp"):
            bad.append("float8 recipe (J:738)")
        if f8.get("recipe_name") and f8.get("enable_fsdp_float8_all_gather"):
            bad.append("FP8 all-gather with a recipe_name (F8:65-69)")
    return bad


def torchtitan_layer_sac(option, k):
    # AC:24, 37-40: one counter per process, k = 1, 2, ... over the blocks
    # it wraps in turn, those of every model part of the pipeline rank in
    # the order they are built (PP:136-138, stage ids from PP:460-461):
    # block k is checkpointed when the frequency is 0 or divides k.
    n = int(option)
    return not n or k % n == 0


def torchtitan_stage_rank(i, pp):
    # PP:460-461: looped schedules put stage i on pipeline rank i % pp.
    return i % pp


# ---------------------------------------------------------------------
# NVIDIA-NeMo/Megatron-Bridge 067f987 (v0.2.0rc6-2335), files:
#   B  = src/megatron/bridge/training/config.py
#   G  = src/megatron/bridge/models/gpt_provider.py
#   MX = src/megatron/bridge/training/mixed_precision.py
# B:974-1001: ConfigContainer sections; overrides match its structure.
# B:973: rerun_state_machine (Megatron's RerunStateMachineConfig).
# B:990: dataset (GPTDatasetConfig, B:231 seq_length; v0.2.0 Megatron-
# Core's sequence_length).
BRIDGE_SECTIONS = {"model", "train", "ddp", "optimizer", "checkpoint",
                   "rerun_state_machine", "dataset"}
# model: TransformerConfig (TC, MP above) and GPTModelProvider (G) fields.
BRIDGE_MODEL_KEYS = {
    "tensor_model_parallel_size": "MP:55", "pipeline_model_parallel_size":
    "MP:83", "virtual_pipeline_model_parallel_size": "MP:86",
    "sequence_parallel": "MP:94", "pipeline_model_parallel_layout":
    "TC:111", "num_layers_in_first_pipeline_stage": "TC:103",
    "num_layers_in_last_pipeline_stage": "TC:107", "num_layers": "TC:65",
    "hidden_size": "TC:145", "num_attention_heads": "TC:148",
    "num_query_groups": "TC:175", "ffn_hidden_size": "TC:180",
    "hidden_dropout": "TC:188", "attention_dropout": "TC:191",
    "add_bias_linear": "TC:212", "gated_linear_unit": "TC:221",
    "normalization": "G:191", "recompute_granularity": "TC:532",
    "recompute_method": "TC:543", "recompute_num_layers": "TC:551",
    "recompute_modules": "TC:560",
    "fp16": "MP:177", "bf16": "MP:180",
    "share_embeddings_and_output_weights": "G:140",
    "position_embedding_type": "G:142", "rotary_base": "G:143",
    "seq_length": "G:160", "vocab_size": "G:181",
    "cpu_offloading": "MP:458", "cpu_offloading_num_layers": "MP:461",
    "context_parallel_size": "MP:100", "cp_comm_type": "TC:1030",
    "cuda_graph_impl": "TC:1075 (none | local | transformer_engine | "
                       "full_iteration)",
    # TC:1129-1135: the recipes' name, migrated to cuda_graph_modules
    "cuda_graph_scope": "TC:1129-1135",
    "use_te_rng_tracker": "G:198",
    "fp8_output_proj": "TC:635 (TC:1569-1575: FP8, mxfp8)",
    "use_transformer_engine_op_fuser": "TC:525",
}
# pd2bw-model/2 parts and expert parallelism (planner/emit/bridge.c): each
# key's field and the YAML types it takes.  An override is set as parsed,
# unconverted (training/utils/omegaconf_utils.py:515), so its YAML type
# must be the field's; None where the field is Optional.  Bridge 067f987
# pins Megatron-LM 2a75ac1 (3rdparty/Megatron-LM), whose TransformerConfig
# has these fields too, up to 22 lines earlier.
_INT, _OPT_INT, _BOOL, _STR = (int,), (int, type(None)), (bool,), (str,)
BRIDGE_V2_KEYS = {
    "expert_model_parallel_size": ("MP:127", _INT),
    "expert_tensor_parallel_size": ("MP:130 Optional", _OPT_INT),
    "kv_channels": ("TC:184 Optional", _OPT_INT),
    "add_qkv_bias": ("TC:218", _BOOL), "qk_layernorm": ("G:189", _BOOL),
    "softmax_type": ("TC:170 Literal", _STR),
    "mtp_num_layers": ("TC:68 Optional", _OPT_INT),
    "num_moe_experts": ("G:187 Optional", _OPT_INT),
    "moe_router_topk": ("TC:760", _INT),
    "moe_ffn_hidden_size": ("TC:740 Optional", _OPT_INT),
    "moe_shared_expert_intermediate_size": ("TC:701 Optional", _OPT_INT),
    "moe_shared_expert_gate": ("TC:713", _BOOL),
    "moe_layer_freq": ("TC:735 int or List[int]", (int, list)),
    "moe_expert_capacity_factor": ("TC:917 Optional[float]",
                                   (float, type(None))),
    "moe_pad_expert_input_to_capacity": ("TC:921", _BOOL),
    "moe_grouped_gemm": ("G:188", _BOOL),
    "moe_permute_fusion": ("TC:941", _BOOL),
    "moe_router_fusion": ("TC:944", _BOOL),
    # the fused kernels, all off by default (TC:496, 510, 513; MP:320);
    # a fused GeLU needs the linear biases (TC:2426-2434)
    "bias_activation_fusion": ("TC:496", _BOOL),
    "bias_dropout_fusion": ("TC:510", _BOOL),
    "apply_rope_fusion": ("TC:513", _BOOL),
    "cross_entropy_loss_fusion": ("MP:320", _BOOL),
    "moe_token_dispatcher_type": ("TC:891 Literal", _STR),
    "moe_flex_dispatcher_backend": ("TC:898 Literal", _STR),
    "moe_expert_rank_capacity_factor": ("TC:1019 Optional[float]",
                                        (float, type(None))),
    "moe_paged_stash": ("TC:1364", _BOOL),
    "moe_router_num_groups": ("TC:780 Optional", _OPT_INT),
    "moe_router_group_topk": ("TC:796 Optional", _OPT_INT),
    # the score-correction router (TC:808 Literal, 816; an expert bias
    # needs sigmoid or sqrtsoftplus scores, TC:2617-2623) and the
    # routing weights' scale (TC:804 Optional[float])
    "moe_router_score_function": ("TC:808 Literal", _STR),
    "moe_router_enable_expert_bias": ("TC:816", _BOOL),
    "moe_router_topk_scaling_factor": ("TC:804 Optional[float]",
                                       (float, type(None))),
}
BRIDGE_MODEL_KEYS.update({k: c for k, (c, _) in BRIDGE_V2_KEYS.items()})
# B:1008: mixed_precision is a MixedPrecisionConfig or the name of a
# registered preset (MX:167-182 register both spellings; MX:440-447 look
# the name up); the presets pd2bw names, with the 16-bit type each sets
# (MX:185-198 bf16, MX:201-214 fp16; the FP8 and NVFP4 ones bf16):
BRIDGE_MP_PRESETS = {
    "bf16_mixed": "MX:185",
    "fp16_mixed": "MX:201",
    "bf16_with_fp8_delayed_scaling_mixed": "MX:217",
    "bf16_with_fp8_current_scaling_mixed": "MX:285",
    "bf16_with_fp8_subchannel_scaling_mixed": "MX:373",
    "bf16_with_mxfp8_mixed": "MX:255",
    "bf16_with_nvfp4_mixed": "MX:405",
}
# ddp: Megatron Core's DistributedDataParallelConfig (DP below);
# checkpoint: B:497, ckpt_format "fsdp_dtensor" (B:1105-1109).
BRIDGE_OTHER_KEYS = {"train": {"micro_batch_size", "global_batch_size"},
                     "ddp": {"use_distributed_optimizer",
                             "use_megatron_fsdp",
                             "data_parallel_sharding_strategy",
                             "num_distributed_optimizer_instances"},
                     "optimizer": {"use_distributed_optimizer",
                                   "optimizer", "muon_tp_mode"},
                     "checkpoint": {"ckpt_format"},
                     "rerun_state_machine": {"check_for_nan_in_loss"}}
# megatron/core/distributed/distributed_data_parallel_config.py (DP):
# DP:29 use_distributed_optimizer, DP:34 num_distributed_optimizer_
# instances, DP:90 use_megatron_fsdp, DP:103 data_parallel_sharding_
# strategy (no_shard | optim | optim_grads | optim_grads_params).
BRIDGE_SHARDING = {"no_shard", "optim", "optim_grads", "optim_grads_params"}


# Recipes whose providers set an architecture an override of another
# recipe cannot (an MLA provider's fields, a sliding window's tuple): the
# emitted file names one on a "# Recipe:" line and leaves these fields to
# it.  The values are the provider's, as the recipe builds it:
#   DeepSeek-V3: main 067f987 models/deepseek/deepseek_v3_bridge.py:53-99
#     (AutoBridge from deepseek-ai/DeepSeek-V3's config.json); v0.2.0
#     deepseek_v3_bridge.py:39-56 builds models/deepseek/
#     deepseek_provider.py:43-103 (MLA :82-86), 166-191;
#     recipes/deepseek/h100/deepseek_v3.py:137 (mtp 1), 142 (rope base),
#     159-160 (flex dispatcher, HybridEP), 187 (grouped GEMM); the
#     router's groups from the config's n_group and topk_group (main
#     models/conversion/model_bridge.py:487-488).
#   GPT-OSS 120B: main models/gpt_oss/gpt_oss_bridge.py:56-102 (window
#     (sliding_window - 1, 0) :87, skip frequency 2 :88, learnable
#     softmax :86, qkv bias :63); v0.2.0 gpt_oss_bridge.py:70-79 builds
#     models/gpt_oss/gpt_oss_provider.py:44-84 (window (128, 0) :77).
#     The recipe keeps the all-to-all dispatcher: recipes/gpt_oss/h100/
#     gpt_oss.py:204-205 names DeepEP but never applies it (DeepSeek-V3's
#     applies HybridEP, h100/deepseek_v3.py:256, flex on its GPUs).
#   Kimi K2: main models/kimi/kimi_bridge.py:44-88 (AutoBridge from
#     moonshotai/Kimi-K2-Instruct's config.json, recipes/kimi/h100/
#     kimi_k2.py:99-101: MLA :55, latent norms :54, RMSNorm, SwiGLU, no
#     bias, untied :49-53, expert bias :62, one dense layer :82-84,
#     shared expert :85); v0.3.0 models/kimi/kimi_provider.py:41-129
#     holds the config's values (shape :51-56, 64, 119, rope base
#     50000 :68, no MTP :70, one expert group :80-81, MLA :95-100), main
#     reads them through models/conversion/model_bridge.py:456-498.
#     The recipe keeps the all-to-all dispatcher (h100/kimi_k2.py:138-139,
#     its DeepEP backend never applied).
_DS = "megatron.bridge.recipes.deepseek.deepseek_v3.deepseek_v3_pretrain_config"
_GO = "megatron.bridge.recipes.gpt_oss.gpt_oss.gpt_oss_120b_pretrain_config"
# recipes/kimi/kimi_k2.py:23-25 at 067f987 (h100/kimi_k2.py:91), :88 at
# v0.3.0
_KK = "megatron.bridge.recipes.kimi.kimi_k2.kimi_k2_pretrain_config"
# Each of the three recipes fuses the MoE permutations (moe_permute_fusion
# True: recipes/deepseek/h100/deepseek_v3.py:186, gpt_oss/h100/gpt_oss.py:
# 106, kimi/h100/kimi_k2.py:162 at 067f987; v0.2/v0.3 unchecked).
BRIDGE_RECIPES = {
    _DS: {"num_layers": 61, "hidden_size": 7168, "num_attention_heads": 128,
          "num_query_groups": 128, "ffn_hidden_size": 18432,
          "vocab_size": 129280, "multi_latent_attention": True,
          "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_head_dim": 128,
          "qk_pos_emb_head_dim": 64, "v_head_dim": 128,
          "kv_channels": 128, "qk_layernorm": True, "add_qkv_bias": False,
          "add_bias_linear": False, "normalization": "RMSNorm",
          "gated_linear_unit": True,
          "share_embeddings_and_output_weights": False,
          "rotary_base": 10000, "softmax_type": "vanilla",
          "window_size": None, "mtp_num_layers": 1,
          "num_moe_experts": 256, "moe_router_topk": 8,
          "moe_ffn_hidden_size": 2048,
          "moe_shared_expert_intermediate_size": 2048,
          "moe_shared_expert_gate": False,
          "moe_layer_freq": [0] * 3 + [1] * 58,
          "moe_expert_capacity_factor": None, "moe_grouped_gemm": True,
          "moe_permute_fusion": True,
          "moe_router_num_groups": 8, "moe_router_group_topk": 4,
          "moe_token_dispatcher_type": "flex"},
    _GO: {"num_layers": 36, "hidden_size": 2880, "num_attention_heads": 64,
          "num_query_groups": 8, "ffn_hidden_size": 2880,
          "vocab_size": 201088, "multi_latent_attention": False,
          "kv_channels": 64, "qk_layernorm": False, "add_qkv_bias": True,
          "add_bias_linear": True, "normalization": "RMSNorm",
          "gated_linear_unit": True,
          "share_embeddings_and_output_weights": False,
          "rotary_base": 150000, "softmax_type": "learnable",
          "window_size": [127, 0], "window_attn_skip_freq": 2,
          "mtp_num_layers": None, "num_moe_experts": 128,
          "moe_router_topk": 4, "moe_ffn_hidden_size": 2880,
          "moe_shared_expert_intermediate_size": None,
          "moe_shared_expert_gate": False, "moe_layer_freq": 1,
          "moe_expert_capacity_factor": None, "moe_grouped_gemm": True,
          "moe_permute_fusion": True,
          "moe_token_dispatcher_type": "alltoall"},
}
# Kimi K2's provider: DeepSeek-V3's architecture with its own heads,
# vocabulary, experts, dense layers, router groups, rope base and no MTP;
# kv_channels 64 at v0.3.0 (kimi_provider.py:65), unset on main (no
# head_dim in the config): MLA sizes its heads by the MLA dims
# (multi_latent_attention.py:163 at Megatron-LM 2a75ac1)
BRIDGE_RECIPES[_KK] = {
    k: v for k, v in BRIDGE_RECIPES[_DS].items() if k != "kv_channels"
} | {"num_attention_heads": 64, "num_query_groups": 64,
     "vocab_size": 163840, "rotary_base": 50000, "mtp_num_layers": None,
     "num_moe_experts": 384, "moe_layer_freq": [0] * 1 + [1] * 60,
     "moe_router_num_groups": 1, "moe_router_group_topk": 1,
     "moe_token_dispatcher_type": "alltoall"}
# Recipes that train with Muon, without the distributed optimizer: Kimi
# K2's trains with Muon (optimizer "dist_muon", recipes/utils/
# optimizer_utils.py:79, chosen at h100/kimi_k2.py:200) and sets
# ddp.use_distributed_optimizer False (h100/kimi_k2.py:74; "Muon needs
# this to be False", recipes/kimi/kimi_k2.py:193-200 at 63b08b397,
# :350-352 at v0.3.0), as Megatron Core's layer-wise optimizer asks
# ("keep all megatron distributed-optimizer related options OFF",
# megatron/core/optimizer/layer_wise_optimizer.py:172 at Megatron-LM
# 2a75ac1, the commit Bridge 067f987 pins).
# Megatron Core runs no emerging optimizer (Muon) in fp16: megatron/core/
# optimizer/__init__.py:772-773 at 2a75ac1.
BRIDGE_RECIPE_MUON = {_KK: "recipes/kimi/h100/kimi_k2.py:74"}
# The presets that keep FP8 or NVFP4 parameters and gather them
# (fp8_param_gather, fp4_param_gather), which needs the distributed
# optimizer (Megatron-LM d98e8a6 A:1095-1097): all but the subchannel one.
BRIDGE_MP_GATHER = {
    "bf16_with_fp8_delayed_scaling_mixed": "MX:231",
    "bf16_with_mxfp8_mixed": "MX:264",
    "bf16_with_fp8_current_scaling_mixed": "MX:302",
    "bf16_with_nvfp4_mixed": "MX:416",
}
# What a file for such a recipe may set in model: the parallel, batch,
# recomputation, offload and precision keys, the sequence length, the MTP
# layers (a recipe setting, recipes/deepseek/h100/deepseek_v3.py:137), the
# dispatcher pd2bw priced and the CUDA graphs with the RNG tracker they take
# (the performance scripts set them over the recipes, scripts/performance/
# utils/overrides.py:102-124 at cfeddcd94); the rest is the provider's.
BRIDGE_RECIPE_MODEL_KEYS = {
    "tensor_model_parallel_size", "pipeline_model_parallel_size",
    "virtual_pipeline_model_parallel_size", "sequence_parallel",
    "pipeline_model_parallel_layout", "num_layers_in_first_pipeline_stage",
    "num_layers_in_last_pipeline_stage", "context_parallel_size",
    "cp_comm_type", "expert_model_parallel_size",
    "expert_tensor_parallel_size", "seq_length", "moe_token_dispatcher_type",
    "moe_flex_dispatcher_backend", "mtp_num_layers",
    "recompute_granularity", "recompute_method", "recompute_num_layers",
    "recompute_modules", "cpu_offloading", "cpu_offloading_num_layers",
    "bf16", "fp16",
    "cuda_graph_impl", "cuda_graph_scope", "use_te_rng_tracker",
    "fp8_output_proj",
    "use_transformer_engine_op_fuser",
    "moe_expert_rank_capacity_factor", "moe_paged_stash"}


def bridge_recipe(path):
    """The recipe a file's "# Recipe:" line names, or None."""
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            if line.startswith("# Recipe: "):
                return line.split()[2]
    return None


def bridge_recipe_rules(recipe, m):
    """A file for a recipe of BRIDGE_RECIPES: only the keys its provider
    leaves to the user."""
    if recipe not in BRIDGE_RECIPES:
        return ["recipe %s is none of BRIDGE_RECIPES" % recipe]
    return ["model.%s is the provider's (%s)" % (k, recipe.split(".")[-1])
            for k in m if k not in BRIDGE_RECIPE_MODEL_KEYS]


def bridge_model(m, recipe):
    """The model section as the recipe runs it: its provider's fields
    (BRIDGE_RECIPES), the file's keys over them."""
    out = dict(BRIDGE_RECIPES.get(recipe, {}))
    out.update(m)
    return out


def bridge_rules(c, recipe=None):
    bad = []
    for sec in c:
        if sec == "mixed_precision":
            if c[sec] is not None and c[sec] not in BRIDGE_MP_PRESETS:
                bad.append("mixed_precision %s is no preset (MX)" % c[sec])
        elif sec not in BRIDGE_SECTIONS:
            bad.append("unknown section %s" % sec)
    # B:2016 applies the preset over the model's dtype flags, and the
    # recipes default to bf16_mixed (recipes/common.py:130): a file must
    # name the preset of its model's type, or none for fp32
    mp = c.get("mixed_precision", "bf16_mixed")
    want = ("fp16" if c["model"].get("fp16") else
            "bf16" if c["model"].get("bf16") else None)
    got = None if mp is None else "fp16" if mp.startswith("fp16") else "bf16"
    if want != got:
        bad.append("mixed_precision %s over a %s model (B:2016)"
                   % (mp, want or "fp32"))
    for k in c["model"]:
        if k not in BRIDGE_MODEL_KEYS:
            bad.append("unknown model key %s" % k)
    if recipe:
        bad += bridge_recipe_rules(recipe, c["model"])
    if recipe in BRIDGE_RECIPE_MUON:
        if c["ddp"]["use_distributed_optimizer"] or \
                c["ddp"].get("use_megatron_fsdp"):
            bad.append("the recipe's Muon runs without the distributed "
                       "optimizer (%s)" % BRIDGE_RECIPE_MUON[recipe])
        if c["model"].get("fp16"):
            bad.append("Muon in fp16 (optimizer/__init__.py:772)")
        if c.get("mixed_precision") in BRIDGE_MP_GATHER:
            bad.append("%s gathers low-precision parameters (%s), which "
                       "needs the distributed optimizer (A:1095)"
                       % (c["mixed_precision"],
                          BRIDGE_MP_GATHER[c["mixed_precision"]]))
    # Megatron Core's OptimizerConfig (OC, megatron/core/optimizer/
    # optimizer_config.py at d98e8a6): optimizer (A:2913-2914 choices),
    # muon_tp_mode OC:282 (blockwise | duplicated | distributed); a
    # recipe that trains with Adam is not switched to Muon by an override
    # (its DDP settings follow its optimizer_type, recipes/kimi/
    # kimi_k2.py:193-200 at 63b08b397)
    o = c.get("optimizer", {})
    if o.get("optimizer", "dist_muon" if recipe in BRIDGE_RECIPE_MUON
             else "adam") != ("dist_muon" if recipe in BRIDGE_RECIPE_MUON
                              else "adam"):
        bad.append("optimizer %s in a recipe that trains with %s"
                   % (o["optimizer"], "dist_muon" if recipe in
                      BRIDGE_RECIPE_MUON else "adam"))
    if o.get("muon_tp_mode", "duplicated") not in ("blockwise", "duplicated",
                                                   "distributed"):
        bad.append("muon_tp_mode %s (OC:282)" % o["muon_tp_mode"])
    for sec, keys in BRIDGE_OTHER_KEYS.items():
        for k in c.get(sec, {}):
            if k not in keys:
                bad.append("unknown key %s.%s" % (sec, k))
    # B:1508-1513: a full-iteration CUDA graph with the loss's NaN check
    # off (its default on, Megatron's RerunStateMachineConfig)
    mdl = c["model"]
    if mdl.get("use_transformer_engine_op_fuser") and \
            (mdl.get("expert_tensor_parallel_size") or
             mdl.get("tensor_model_parallel_size") or 1) > 1 and \
            ("expert_model_parallel_size" in mdl or
             mdl.get("num_moe_experts")):
        bad.append("op fuser with tensor-parallel experts "
                   "(moe/experts.py:397-398)")
    # TC:1569-1575: the FP8 output layer under the mxfp8 recipe only
    if mdl.get("fp8_output_proj") and \
            c.get("mixed_precision") != "bf16_with_mxfp8_mixed":
        bad.append("fp8_output_proj without the mxfp8 recipe "
                   "(TC:1569-1575)")
    gi = c["model"].get("cuda_graph_impl", "none")
    if gi not in ("none", "local", "transformer_engine", "full_iteration"):
        bad.append("cuda_graph_impl %s (TC:1075)" % gi)
    bad += graph_module_rules(gi, mdl.get("cuda_graph_scope") or [],
                              bool(mdl.get("num_moe_experts")) or
                              "expert_model_parallel_size" in mdl,
                              mdl.get("recompute_granularity"),
                              bool(mdl.get("cpu_offloading")),
                              mdl.get("moe_token_dispatcher_type",
                                      "alltoall"),
                              mdl.get("moe_expert_capacity_factor"))
    if gi == "full_iteration" and \
            c.get("rerun_state_machine", {}).get("check_for_nan_in_loss",
                                                 True):
        bad.append("full_iteration CUDA graph with the NaN check "
                   "(B:1508-1513)")
    # B:2111-2123: the two distributed-optimizer settings agree (else both
    # are switched on).
    if c["ddp"]["use_distributed_optimizer"] != \
            c["optimizer"]["use_distributed_optimizer"]:
        bad.append("ddp/optimizer distributed optimizer differ (B:2111)")
    d = c["ddp"]
    if d.get("data_parallel_sharding_strategy", "no_shard") \
            not in BRIDGE_SHARDING:
        bad.append("sharding strategy (DP:103)")
    # B:1078-1085: Megatron-FSDP v1 runs with the distributed optimizer
    # (switched on otherwise); B:1105-1109 checkpoints in fsdp_dtensor.
    if d.get("use_megatron_fsdp") and not d["use_distributed_optimizer"]:
        bad.append("Megatron-FSDP without the distributed optimizer "
                   "(B:1080)")
    if d.get("use_megatron_fsdp") and \
            c.get("checkpoint", {}).get("ckpt_format") != "fsdp_dtensor":
        bad.append("Megatron-FSDP checkpoints need fsdp_dtensor (B:1107)")
    m = bridge_model(c["model"], recipe)
    # TC:1942-1962: a module list only with selective recomputation, of
    # the modules it knows
    if m.get("recompute_modules") is not None:
        if m.get("recompute_granularity") != "selective":
            bad.append("recompute_modules without selective (TC:1942)")
        if set(m["recompute_modules"]) - RECOMPUTE_MODULES:
            bad.append("recompute_modules %s (TC:1943-1962)"
                       % sorted(set(m["recompute_modules"]) -
                                RECOMPUTE_MODULES))
    # TC:1891-1899: no activation offload under a pipeline or with
    # recomputation; TC:1884-1889: fewer offloaded layers than layers.
    if m.get("cpu_offloading") and (
            m.get("pipeline_model_parallel_size", 1) > 1
            or m.get("recompute_granularity")
            or not 0 <= m.get("cpu_offloading_num_layers", 0)
            < m["num_layers"]):
        bad.append("cpu_offloading (TC:1884-1899)")
    # TC:2242-2258 again, and TC:2276-2284: a VPP size given with a layout
    # equals the layout's.
    if m.get("pipeline_model_parallel_layout") and (
            m.get("num_layers_in_first_pipeline_stage") is not None
            or m.get("num_layers_in_last_pipeline_stage") is not None):
        bad.append("layout with first/last (TC:2242-2258)")
    # TransformerEngine d0067d0 transformer_engine/pytorch/attention/
    # dot_product_attention/utils.py:1147-1154: a softmax other than
    # vanilla under context parallelism runs only with cp_comm_type a2a
    if m.get("softmax_type", "vanilla") != "vanilla" and \
            m.get("context_parallel_size", 1) > 1 and \
            m.get("cp_comm_type") != "a2a":
        bad.append("softmax_type %s under context parallelism needs "
                   "cp_comm_type a2a (TE utils.py:1147)" % m["softmax_type"])
    bad += bridge_moe_rules(m)
    return bad


def bridge_moe_rules(m):
    """The model/2 and expert keys of a Bridge model section."""
    bad = []
    for k, (_, types) in BRIDGE_V2_KEYS.items():
        # bool is an int in Python: an int field must not get a bool
        if k in m and (not isinstance(m[k], types) or (
                isinstance(m[k], bool) and bool not in types)):
            bad.append("%s: %r is not of the field's type (%s)"
                       % (k, m[k], BRIDGE_MODEL_KEYS[k]))
    if bad:
        return bad
    n = m.get("num_moe_experts")
    ep = m.get("expert_model_parallel_size", 1)
    t = m.get("tensor_model_parallel_size", 1)
    # TC:1595-1596: expert parallelism needs experts
    if ep > 1 and n is None:
        bad.append("expert parallelism without experts (TC:1595)")
    if m.get("softmax_type", "vanilla") not in ("vanilla", "off-by-one",
                                                 "learnable"):
        bad.append("softmax_type (TC:170)")
    if m.get("moe_router_enable_expert_bias") and \
            m.get("moe_router_score_function", "softmax") not in (
                "sigmoid", "sqrtsoftplus"):
        bad.append("expert bias with %s scores (TC:2617-2623)"
                   % m.get("moe_router_score_function", "softmax"))
    if n is None:
        # TC:1689-1705: an expert size without experts is an error unless
        # moe_layer_freq leaves dense layers
        f = m.get("moe_layer_freq", 1)
        if m.get("moe_ffn_hidden_size") is not None and not (
                (isinstance(f, list) and 0 in f) or
                (isinstance(f, int) and f > 1)):
            bad.append("moe_ffn_hidden_size without num_moe_experts "
                       "(TC:1702)")
        return bad
    if n <= 0:
        bad.append("num_moe_experts %d (TC:1682-1683)" % n)
        return bad
    # moe/moe_layer.py:186: each expert-parallel rank holds n / ep experts
    if n % ep:
        bad.append("expert parallel %d does not divide %d experts "
                   "(moe_layer.py:186)" % (ep, n))
    if not 1 <= m.get("moe_router_topk", 2) <= n:
        bad.append("moe_router_topk %s of %d experts"
                   % (m.get("moe_router_topk"), n))
    # Bridge sets an unset expert tensor size to 1 under expert
    # parallelism (src/megatron/bridge/models/transformer_config.py:80-88),
    # Megatron Core to the tensor size (MP:506-507): pd2bw writes it
    if m.get("expert_tensor_parallel_size") is None:
        bad.append("expert_tensor_parallel_size left to Bridge's default "
                   "(bridge models/transformer_config.py:87-88)")
    f = m.get("moe_layer_freq", 1)
    # gpt_layer_specs.py:647-657 (d98e8a6): an int N makes every N-th
    # layer from 0 MoE; a list has one 0/1 per layer
    if isinstance(f, list):
        if len(f) != m["num_layers"] or any(x not in (0, 1) or
                                            isinstance(x, bool) for x in f):
            bad.append("moe_layer_freq has %d entries for %d layers, or "
                       "not 0/1 (gpt_layer_specs.py:653)"
                       % (len(f), m["num_layers"]))
    elif f < 1:
        bad.append("moe_layer_freq %d (gpt_layer_specs.py:649)" % f)
    if m.get("moe_token_dispatcher_type", "allgather") not in (
            "allgather", "alltoall", "flex"):
        bad.append("moe_token_dispatcher_type (TC:891)")
    cf = m.get("moe_expert_capacity_factor")
    if cf is not None and cf < 0:
        bad.append("negative capacity factor is dropless (TC:1837-1838)")
    if m.get("moe_pad_expert_input_to_capacity") and cf is None:
        bad.append("padding to capacity without a capacity factor "
                   "(TC:1862-1865)")
    if m.get("moe_pad_expert_input_to_capacity") and \
            m.get("moe_token_dispatcher_type") == "flex" and \
            m.get("moe_flex_dispatcher_backend") == "deepep":
        bad.append("padding to capacity with DeepEP (TC:1754-1761)")
    # TC:1868-1883, as megatron_rules() holds the flags
    if m.get("moe_expert_rank_capacity_factor") is not None:
        if m.get("moe_token_dispatcher_type") != "flex" or \
                m.get("moe_flex_dispatcher_backend") not in ("hybridep",
                                                             "ncclep"):
            bad.append("rank capacity without hybridep or ncclep "
                       "(TC:1868-1873)")
        elif m.get("moe_flex_dispatcher_backend") == "hybridep" and \
                not m.get("use_transformer_engine_op_fuser") and \
                not m.get("moe_use_grouped_tensor"):
            bad.append("rank capacity on hybridep without the op fuser "
                       "or grouped tensors (TC:1874-1883)")
    if m.get("moe_paged_stash"):
        if m.get("moe_expert_rank_capacity_factor") is None:
            bad.append("paged stash without a rank capacity (TC:2213-2217)")
        if m.get("cpu_offloading"):
            bad.append("paged stash with CPU offloading (TC:2211-2212)")
    return bad


def bridge_expert_grid(world, m):
    """parallel_state.py:870-884 (d98e8a6): the expert grid is expert
    tensor x expert x pipeline (x expert data), and divides the world
    (Bridge passes both sizes, training/initialize.py:812-814)."""
    ep = m.get("expert_model_parallel_size", 1)
    t = m.get("tensor_model_parallel_size", 1)
    etp = m.get("expert_tensor_parallel_size") or t
    pp = m.get("pipeline_model_parallel_size", 1)
    if world % (etp * ep * pp):
        return ["world %d not divisible by etp x ep x pp = %d "
                "(parallel_state.py:880-884)" % (world, etp * ep * pp)]
    return []
