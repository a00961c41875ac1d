#!/usr/bin/env python3
# check.py - hold pd2bw-plan's emitters to the plan and to upstream.
#
#   check.py one FORMAT PLAN FILE   check one emitted file against its plan
#   check.py sweep [QUICK]          plan the zoo x presets x tensor degrees
#                                   (-s flush --interleave 1,2,3,4 -r
#                                   none,selective,full --zero all), and the
#                                   qwen3 MoE models again under torchtitan
#                                   with --expert-parallel 1,2,4,8, emit
#                                   every format, check each
#   check.py ranks PLAN             print a plan's ranks, one per line (a
#                                   pd2bw-plan/2 rule expanded as pd2bw(5) says)
#
# Each checker re-reads the emitted file the way its runtime does and
# rebuilds the plan from it: blocks per stage, virtual stages, t/p/d,
# microbatch, accumulation and global batch, recomputation per layer,
# ranks; it must equal the plan (recomputation: hold no more memory, and
# equal it where the runtime can express it).  The upstream rules it
# applies are in upstream.py, each with its upstream file and line.
# pd2bw-plan is taken from PATH (tests/run.sh puts the build there; the
# sweep's case puts the optimised build, $PLAIN, first).
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import upstream as U  # noqa: E402

# libyaml's loader where PyYAML was built with it (Debian's is): the
# sweep reads 450 YAML files, and the pure-Python one takes 35 s on them.
# Both resolve the same YAML 1.1 types.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(f):
    return yaml.load(f, Loader=LOADER)

TOP = os.environ.get("TOP", os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
RC = {"none": 0, "selective": 1, "full": 2}


class Plan:
    def __init__(self, path):
        with open(path) as f:
            y = load_yaml(f)
        c = y["config"]
        self.w, self.d, self.b, self.m = (c["width"], c["depth"],
                                          c["microbatch"], c["accumulation"])
        self.B = c["global_batch"]
        self.t, self.sp, self.v = (c["tensor_parallel"],
                                   c["sequence_parallel"], c["interleave"])
        self.zero, self.sched = c["optimizer_sharding"], c["schedule"]
        # ZeRO stage and HSDP group, written only when used (pd2bw(5))
        self.zs = c.get("zero_stage", 1 if self.zero else 0)
        self.optimizer = c.get("optimizer", "adam")
        self.shard = c.get("shard_group", 0)
        self.offload = c.get("activation_offload", False)
        # the blocks whose activations leave: the plan's first N, or
        # every layer but the last (Megatron's --cpu-offloading-num-
        # layers, under its limit of TC:1884)
        self.offload_blocks = c.get("offload_blocks", 0)
        # written only when used (pd2bw(5))
        self.c = c.get("context_parallel", 1)
        self.e = c.get("expert_parallel", 1)
        self.etp = c.get("expert_tensor_parallel", self.t)
        self.rank_cap = c.get("moe_rank_capacity")
        rt = c.get("runtime", "").split(":")
        self.runtime = rt[0]
        self.rt_opts = rt[1].split(",") if len(rt) > 1 else []
        self.prec = c.get("precision")
        self.gpu = y.get("inputs", {}).get("gpu", "")
        self.fp8_recipe = c.get("fp8_recipe")
        self.bf16_first = int(c.get("bf16_first_layers", 0))
        self.bf16_last = int(c.get("bf16_last_layers", 0))
        # --module-precision, "SITE=P,..." (pd2bw(5))
        self.module_prec = dict(kv.split("=") for kv in
                                c.get("module_precision", "").split(",")
                                if kv)
        self.fusions = c.get("fusions")
        # the chains priced fused (all where the plan names none)
        self.fused = set(
            ("act,dropadd,rope,xent,norm" if self.fusions in (None, "all")
             else "" if self.fusions == "none" else self.fusions).split(","))
        # what selective recomputes, written unless core_attn alone
        self.rc_modules = c.get("recompute_modules", "core_attn")
        self.inputs = y.get("inputs", {})
        self.layers = y["layers"]
        self.rc = [RC[r] for r in y["layer_recompute"]]
        self.stages = [(s["first"], s["last"]) for s in y["stages"]]
        self.ranks = y["ranks"]
        if isinstance(self.ranks, dict):
            self.ranks = self.rule_ranks(self.ranks)
        self.world = len(self.ranks)
        self.blocks = [sum(1 for j in range(a, e + 1)
                           if self.layers[j].startswith("block"))
                       for a, e in self.stages]
        self.embed0 = self.layers[self.stages[0][0]] == "embedding"
        self.head = self.layers[-1] == "head"

    def rule_ranks(self, rule):
        """pd2bw-plan/2's ranks, expanded as pd2bw(5) states the rule."""
        t, c, w, d = self.t, self.c, self.w, self.d
        gpn, order = rule["gpus_per_node"], rule["order"]
        out = []
        for g in range(w * d * t * c):
            q = g // (t * c)
            if order == "tp,cp,stage,replica":
                stage, rep = q % d, q // d
            else:
                rep, stage = q % w, q // w
            out.append({"rank": g, "node": g // gpn, "gpu": g % gpn,
                        "stage": stage, "replica": rep, "tp": g % t,
                        "cp": g // t % c})
        return out

    def block_rc(self, s):
        a, e = self.stages[s]
        return [self.rc[j] for j in range(a, e + 1)
                if self.layers[j].startswith("block")]


def expect(bad, cond, msg):
    if not cond:
        bad.append(msg)


def check_rc(bad, p, per_stage, exact):
    """per_stage[s]: the runtime's recomputation of stage s's blocks, in
    order.  Never less saved than planned: a block the plan recomputes is
    recomputed (full, or selective when the plan's is selective) at least
    as often per stage; equal where exact."""
    for s in range(p.d):
        want = p.block_rc(s)
        got = per_stage[s]
        expect(bad, len(got) == len(want), "stage %d: %d blocks recomputed-"
               "or-not, plan %d" % (s, len(got), len(want)))
        if exact:
            expect(bad, sorted(got) == sorted(want),
                   "stage %d recomputation %s, plan %s" % (s, got, want))
        else:
            for lvl in (1, 2):
                expect(bad, sum(1 for r in got if r >= lvl) >=
                       sum(1 for r in want if r >= lvl) or
                       (lvl == 1 and sum(1 for r in got if r == 2) >=
                        sum(1 for r in want if r >= 1)),
                       "stage %d recomputes less than planned (%s < %s)"
                       % (s, got, want))


def check_rc_modules(bad, p, mods):
    """The modules selective recomputation runs (TC:1940-1941: the
    attention core where none are given) against the plan's."""
    expect(bad, sorted(mods or ["core_attn"]) ==
           sorted(p.rc_modules.split(",")),
           "recompute modules %s vs plan %s" % (mods, p.rc_modules))


def uniform_plan(p):
    return len(set(p.rc[j] for j in range(len(p.layers))
                   if p.layers[j].startswith("block"))) <= 1


# ---- Megatron-LM ----

# What sourcing an emitted file writes (its per-module precision config,
# in the current directory) goes to a directory of this run's, removed at
# exit.
SRC_TMP = tempfile.mkdtemp(prefix="check-src-")
atexit.register(shutil.rmtree, SRC_TMP, True)
SRC_ENV = {k: v for k, v in os.environ.items() if k != "PD2BW_TE_PRECISION"}


def megatron_args(path):
    """Source the file the way a user does and read "$@" back."""
    out = subprocess.run(
        ["bash", "-c", 'set --; . "$0"; printf "%s\\0" "$@"',
         os.path.abspath(path)],
        check=True, capture_output=True, cwd=SRC_TMP,
        env=SRC_ENV).stdout.decode()
    words = out.split("\0")[:-1]
    a, i = {}, 0
    while i < len(words):
        f = words[i]
        vals = []
        i += 1
        while i < len(words) and not words[i].startswith("--"):
            vals.append(words[i])
            i += 1
        a[f] = vals
    return a


def megatron_env(path):
    """CUDA_DEVICE_MAX_CONNECTIONS once the file is sourced (None:
    unset), whatever the caller's environment had."""
    env = dict(SRC_ENV, CUDA_DEVICE_MAX_CONNECTIONS="7")
    out = subprocess.run(
        ["bash", "-c", '. "$0"; printf "%s" '
         '"${CUDA_DEVICE_MAX_CONNECTIONS-unset}"', os.path.abspath(path)],
        check=True, capture_output=True, cwd=SRC_TMP, env=env).stdout.decode()
    return None if out == "unset" else out


def megatron_chunks(bad, p, a):
    """Blocks per (pipeline rank, virtual stage) from the partition
    flags."""
    pp = int(U.one(a, "--pipeline-model-parallel-size"))
    L = int(U.one(a, "--num-layers"))
    hp = U.one(a, "--hybrid-layer-pattern")
    if hp is not None:
        hp = hp.split("/")[0]
    if hp is not None and "|" in hp:
        # A:841-858: segment i is the chunk i // pp of rank i % pp
        segs = hp.split("|")
        vpp = len(segs) // pp
        return pp, vpp, {(i % pp, i // pp): len(s)
                         for i, s in enumerate(segs)}
    lay = U.one(a, "--pipeline-model-parallel-layout")
    if lay:
        st = U.layout_parse(lay)
        rows = U.layout_check(st, pp, L,
                              int(U.one(a, "--mtp-num-layers") or 0))
        vpp = len(st) // pp
        chunks = {(r, k): s.count("t") for r, k, s in rows}
        expect(bad, rows[0][2].startswith("E") and rows[0][0] == 0,
               "embedding not on stage 0")
        return pp, vpp, chunks
    first = U.one(a, "--decoder-first-pipeline-num-layers")
    last = U.one(a, "--decoder-last-pipeline-num-layers")
    if first or last:
        b2, per = U.megatron_first_last(L, pp, first and int(first),
                                        last and int(last), 1)
        bad.extend(b2)
        per = per or [0] * pp
    else:
        # A:985-997: without them the layers divide evenly.
        expect(bad, L % pp == 0, "even split needs L %% pp (A:997)")
        per = [L // pp] * pp
    return pp, 1, {(r, 0): per[r] for r in range(pp)}


# The modules of each kind --module-precision names, by the paths
# Megatron-Core gives them (d98e8a6: attention.py:413, 1692; multi_latent_
# attention.py:510-604; mlp.py:219-240; moe/experts.py:217-236;
# moe/moe_layer.py:279-346; ssm/mamba_mixer.py:281, 437; transformer_
# layer.py:392, 456; ssm/mamba_layer.py:89; gpt_model.py:245).
SITE_PATHS = {
    "qkv": ["decoder.layers.3.self_attention." + x for x in
            ("linear_qkv", "linear_q_proj", "linear_q_down_proj",
             "linear_q_up_proj", "linear_kv_down_proj",
             "linear_kv_up_proj")],
    "proj": ["decoder.layers.3.self_attention.linear_proj"],
    "fc1": ["decoder.layers.3.mlp.linear_fc1"],
    "fc2": ["decoder.layers.3.mlp.linear_fc2"],
    "experts": ["decoder.layers.3.mlp.experts.linear_fc1",
                "decoder.layers.3.mlp.experts.linear_fc2"],
    "shared-experts": ["decoder.layers.3.mlp.shared_experts.linear_fc1",
                       "decoder.layers.3.mlp.shared_experts.linear_fc2"],
    "latent": ["decoder.layers.3.mlp.fc1_latent_proj",
               "decoder.layers.3.mlp.fc2_latent_proj"],
    "mamba-in": ["decoder.layers.3.mixer.in_proj"],
    "mamba-out": ["decoder.layers.3.mixer.out_proj"],
    "mtp": ["mtp.layers.0.eh_proj",
            "mtp.layers.0.transformer_layer.self_attention.linear_qkv",
            "mtp.layers.0.transformer_layer.mlp.experts.linear_fc1"],
}


def te_precision_check(bad, p, a):
    """The plan's module precisions against the config file the emitted
    arguments name, read as Megatron-Core matches it."""
    f = U.one(a, "--te-precision-config-file")
    got = {}
    if f is not None:
        with open(f) as fh:
            y = load_yaml(fh)
        b, at = U.te_precision_config(y)
        bad += b
        for site, paths in SITE_PATHS.items():
            ps = {at(x) for x in paths}
            if site == "mtp" and "mtp" not in p.module_prec:
                continue
            expect(bad, len(ps) == 1, "%s modules at %s" % (site, ps))
            v = ps.pop()
            if v is not None:
                got[site] = v
    expect(bad, got == p.module_prec, "module precision %s vs plan %s"
           % (got, p.module_prec))


def check_megatron(p, path):
    bad = []
    a = megatron_args(path)
    bad += U.megatron_rules(a, p.world)
    bad += U.megatron_env_rules(megatron_env(path), a, p.gpu)
    t = int(U.one(a, "--tensor-model-parallel-size"))
    pp, vpp, chunks = megatron_chunks(bad, p, a)
    bad += U.megatron_vpp_rules(pp, vpp,
                                "--no-overlap-p2p-communication" not in a)
    cp = int(U.one(a, "--context-parallel-size") or 1)
    expect(bad, cp == p.c, "context parallel %d vs plan %d" % (cp, p.c))
    dp = p.world // (t * pp * cp)
    expect(bad, (t, pp, dp) == (p.t, p.d, p.w), "t/p/d %s vs plan %s"
           % ((t, pp, dp), (p.t, p.d, p.w)))
    expect(bad, vpp == p.v, "virtual stages %d vs plan %d" % (vpp, p.v))
    expect(bad, ("--sequence-parallel" in a) == bool(p.sp), "sequence "
           "parallel differs")
    expect(bad, ("--use-distributed-optimizer" in a) == bool(p.zero),
           "optimizer sharding differs")
    expect(bad, ("--use-megatron-fsdp" in a) == (p.zs >= 2),
           "Megatron-FSDP differs from ZeRO stage %d" % p.zs)
    if p.zs >= 2:
        expect(bad, U.one(a, "--data-parallel-sharding-strategy") ==
               ("optim_grads" if p.zs == 2 else "optim_grads_params"),
               "sharding strategy vs ZeRO-%d" % p.zs)
        n = p.w * p.c
        g = p.shard if 0 < p.shard < n else n
        expect(bad, int(U.one(a, "--num-distributed-optimizer-instances")
                        or 1) == n // g, "HSDP groups differ")
    expect(bad, ("--cpu-offloading-num-layers" in a) == bool(p.offload),
           "activation offload differs")
    if p.offload:
        expect(bad, int(U.one(a, "--cpu-offloading-num-layers")) ==
               (p.offload_blocks or sum(p.blocks) - 1),
               "offloaded layers differ")
    mb = int(U.one(a, "--micro-batch-size"))
    gb = int(U.one(a, "--global-batch-size"))
    expect(bad, (mb, gb, gb // (mb * dp)) == (p.b, p.B, p.m),
           "batch %s vs plan %s" % ((mb, gb), (p.b, p.B, p.m)))
    per = [sum(chunks[(s, k)] for k in range(vpp)) for s in range(pp)]
    expect(bad, per == p.blocks, "blocks per stage %s vs plan %s"
           % (per, p.blocks))
    # a hybrid model's pattern, layer by layer, the plan's layers' kinds
    hp = U.one(a, "--hybrid-layer-pattern")
    if hp is not None:
        sym = {"block_mamba": "M", "block_attention": "*", "block_mlp": "-",
               "block_experts": "E"}
        # a block kept in bf16 (--bf16-layers) is its kind's "_bf16" run
        kinds = "".join(sym.get(n.split(".")[0].removesuffix("_bf16"), "?")
                        for n in p.layers if n.startswith("block"))
        main = hp.split("/")[0].replace("|", "")
        expect(bad, kinds == main, "hybrid pattern %s vs the plan's "
               "layers %s" % (main, kinds))
    # the precision the plan priced: 16-bit parameters (MP:177, 180), FP8
    # GEMMs of its scaling recipe (TC:594), NVFP4 (TC:673-679)
    if p.prec in ("bf16", "fp8", "nvfp4"):
        expect(bad, "--bf16" in a and "--fp16" not in a,
               "16-bit format vs plan %s" % p.prec)
    elif p.prec == "fp16":
        expect(bad, "--fp16" in a and "--bf16" not in a,
               "16-bit format vs plan fp16")
    # the blocks the plan kept in bf16 (TC:649-658)
    bf = ((int(U.one(a, "--num-layers-at-start-in-bf16") or 1),
           int(U.one(a, "--num-layers-at-end-in-bf16") or 1))
          if "--first-last-layers-bf16" in a else (0, 0))
    expect(bad, bf == (p.bf16_first, p.bf16_last),
           "bf16 layers %s vs plan %s" % (bf, (p.bf16_first, p.bf16_last)))
    te_precision_check(bad, p, a)
    expect(bad, U.one(a, "--fp8-recipe") ==
           ((p.fp8_recipe or "delayed") if p.prec == "fp8" else None),
           "FP8 recipe %s vs plan %s %s" % (U.one(a, "--fp8-recipe"),
                                          p.prec, p.fp8_recipe))
    expect(bad, U.one(a, "--fp4-recipe") ==
           ("nvfp4" if p.prec == "nvfp4" else None),
           "FP4 recipe vs plan %s" % p.prec)
    # the data-parallel overlaps of a Megatron-Core plan's runtime (its
    # defaults otherwise): the gradients' reduce-scatter behind the last
    # backward, the parameters' all-gather (distributed optimizer only)
    if p.runtime == "megatron-core":
        o = set(p.rt_opts)
        grad = "no-overlap-grad-reduce" not in o
        expect(bad, ("--overlap-grad-reduce" in a) == grad,
               "overlap-grad-reduce vs the plan's runtime")
        expect(bad, ("--overlap-param-gather" in a) ==
               (grad and p.zero >= 1 and "no-overlap-param-gather" not in o),
               "overlap-param-gather vs the plan's runtime")
    # the fused kernels the plan priced (A:2892-2904 on by default,
    # MP:320 the cross-entropy off)
    fz = p.fused
    expect(bad, ("--cross-entropy-loss-fusion" in a) == ("xent" in fz),
           "cross-entropy fusion vs the plan's fusions %s" % p.fusions)
    expect(bad, ("--no-bias-dropout-fusion" in a) == ("dropadd" not in fz),
           "bias-dropout-add fusion vs the plan's fusions %s" % p.fusions)
    if "--no-bias-swiglu-fusion" in a or "--no-bias-gelu-fusion" in a:
        expect(bad, "act" not in fz, "activation fusion off, plan's on")
    if "--no-rope-fusion" in a:
        expect(bad, "rope" not in fz, "rope fusion off, plan's on")
    # the selective modules the plan priced (TC:1940-1941: default
    # the attention core)
    if U.one(a, "--recompute-granularity") == "selective":
        check_rc_modules(bad, p, a.get("--recompute-modules"))
    # Recomputation per stage as Megatron runs it (RC:156-180).
    g = U.one(a, "--recompute-granularity")
    meth = U.one(a, "--recompute-method")
    n = int(U.one(a, "--recompute-num-layers") or 0)
    rs = []
    for s in range(pp):
        got = []
        for k in range(vpp):
            c = chunks[(s, k)]
            for i in range(c):
                if g == "selective":
                    got.append(1)
                elif g == "full":
                    got.append(2 if meth == "uniform" or i < n else 0)
                else:
                    got.append(0)
        rs.append(got)
    check_rc(bad, p, rs, uniform_plan(p))
    if "--swiglu" in a and "--ffn-hidden-size" not in a:
        bad.append("swiglu without --ffn-hidden-size takes Megatron's "
                   "default (A:1320-1329)")
    # the clamp the plan priced: eager unless its runtime has op-fuser
    expect(bad, ("--use-transformer-engine-op-fuser" in a) ==
           (p.runtime == "megatron-core" and "op-fuser" in p.rt_opts),
           "op fuser differs from the plan's runtime")
    # the dispatcher the plan priced (its runtime's flex-dispatcher)
    if "--num-experts" in a:
        # the permutations and the router priced fused (TC:941, 944:
        # off by default)
        expect(bad, "--moe-permute-fusion" in a,
               "MoE permutations unfused, priced fused (TC:941)")
        expect(bad, "--moe-router-fusion" in a,
               "MoE router unfused, priced fused (TC:944)")
        flex = p.runtime == "megatron-core" and "flex-dispatcher" in p.rt_opts
        expect(bad, (U.one(a, "--moe-token-dispatcher-type"),
                     U.one(a, "--moe-flex-dispatcher-backend")) ==
               (("flex", "hybridep") if flex else ("alltoall", None)),
               "dispatcher differs from the plan's")
        # HybridEP's budget as priced, its experts through the op fuser
        # or grouped tensors
        rc = U.one(a, "--moe-expert-rank-capacity-factor")
        expect(bad, (float(rc) if rc is not None else None) == p.rank_cap,
               "rank capacity differs from the plan's")
        expect(bad, ("--moe-use-grouped-tensor" in a) ==
               (p.rank_cap is not None and "op-fuser" not in p.rt_opts),
               "grouped tensors differ from what the budget needs")
        expect(bad, ("--moe-paged-stash" in a) ==
               (p.runtime == "megatron-core" and "paged-stash" in p.rt_opts),
               "paged stash differs from the plan's runtime")
    return bad


# ---- DeepSpeed ----

def check_deepspeed_moe(bad, p, moe):
    """The MoE layers as the plan: its experts split over its expert-
    parallel degree, with expert tensor parallelism as planned, and the
    capacity its deepspeed runtime priced."""
    is_moe = any(x.startswith("block_moe") for x in p.layers)
    expect(bad, (moe is not None) == is_moe, "MoE settings for a %s plan"
           % ("MoE" if is_moe else "dense"))
    if moe is None:
        return
    expect(bad, moe["ep_size"] == p.e, "ep_size %d vs plan %d"
           % (moe["ep_size"], p.e))
    expect(bad, moe["enable_expert_tensor_parallelism"] ==
           (p.t > 1 and p.etp == p.t), "expert tensor parallelism")
    if p.runtime == "deepspeed":
        expect(bad, moe["drop_tokens"] == ("dropless" not in p.rt_opts),
               "drop_tokens vs the runtime's")


def check_deepspeed(p, path):
    bad = []
    with open(path) as f:
        c = json.load(f)
    bad += U.deepspeed_rules(c, p.world, p.w)
    check_deepspeed_moe(bad, p, c.get("pipeline", c.get("pd2bw", {})).get(
        "pd2bw_moe" if "pipeline" in c else "moe"))
    if "pipeline" not in c:
        # ZeRO-2/3 without a pipeline: deepspeed.initialize on the module
        z = c["zero_optimization"]
        expect(bad, p.d == 1 and p.zs >= 2, "plain config for a "
               "pipeline or ZeRO-0/1 plan")
        expect(bad, z["stage"] == p.zs, "zero stage %s vs plan %s"
               % (z["stage"], p.zs))
        expect(bad, (c["train_micro_batch_size_per_gpu"],
                     c["gradient_accumulation_steps"], c["train_batch_size"])
               == (p.b, p.m, p.B), "batch")
        expect(bad, ("activation_checkpointing" in c) ==
               any(r != 0 for r in p.rc), "activation checkpointing")
        return bad
    pl = c["pipeline"]
    topo = pl["pd2bw_topology"]
    expect(bad, (topo["num_mp"], topo["num_pp"], topo["num_dp"]) ==
           (p.t, p.d, p.w), "topology %s vs plan" % topo)
    expect(bad, pl["stages"] == p.d, "stages")
    expect(bad, (c["train_micro_batch_size_per_gpu"],
                 c["gradient_accumulation_steps"], c["train_batch_size"]) ==
           (p.b, p.m, p.B), "batch")
    expect(bad, c["zero_optimization"]["stage"] == (1 if p.zero else 0),
           "zero stage")
    parts = pl["pd2bw_parts"]
    expect(bad, [(parts[s], parts[s + 1] - 1) for s in range(p.d)] ==
           p.stages, "parts %s vs plan stages" % parts)
    iv = pl["activation_checkpoint_interval"]
    rs = [[2 if iv else 0] * p.blocks[s] for s in range(p.d)]
    check_rc(bad, p, rs, uniform_plan(p) and set(p.rc) != {1})
    for r in p.ranks:
        expect(bad, U.deepspeed_rank(r["stage"], r["replica"], r["tp"], p.w,
                                     p.t) < p.world, "rank out of range")
    return bad


# ---- torchtitan ----

def check_torchtitan(p, path):
    bad = []
    with open(path, "rb") as f:
        c = tomllib.load(f)
    bad += U.torchtitan_rules(c, p.world)
    q = c["parallelism"]
    pp = q["pipeline_parallel_degree"]
    dp = q["data_parallel_replicate_degree"] * q["data_parallel_shard_degree"]
    cp = q.get("context_parallel_degree", 1)
    expect(bad, (q["tensor_parallel_degree"], pp, dp, cp) ==
           (p.t, p.d, p.w, max(p.c, 1)), "t/p/d/c")
    if cp > 1:
        # J:446: "alltoall" rotates the K/V shards as the ring priced
        expect(bad, q.get("context_parallel_rotate_method") == "alltoall",
               "CP rotate method")
    if p.zs >= 2:
        # the plan's group counts data x context ranks; PD:137 fsdp =
        # dp_shard x cp
        n = p.w * max(p.c, 1)
        g = p.shard if 0 < p.shard < n else n
        expect(bad, q["data_parallel_shard_degree"] * cp == g,
               "shard degree")
    expect(bad, (q.get("fsdp_reshard_after_forward", "default") == "never")
           == (p.zs == 2 and p.w > 1), "ZeRO-2 reshard policy")
    t = c["training"]
    acc = t["global_batch_size"] // (t["local_batch_size"] * dp)
    if pp > 1:
        mb = q["pipeline_parallel_microbatch_size"]
        m = t["local_batch_size"] // mb * acc
        parts = q["module_fqns_per_model_part"]
        vpp = len(parts) // pp
        per = [0] * pp
        order = []
        for i, part in enumerate(parts):
            per[U.torchtitan_stage_rank(i, pp)] += sum(
                1 for x in part if x.startswith("layers."))
            order += part
        nb = sum(p.blocks)
        expect(bad, order == ["tok_embeddings"] +
               ["layers.%d" % i for i in range(nb)] + ["norm", "output"],
               "modules out of model order")
        sched = q["pipeline_parallel_schedule"]
        expect(bad, sched == {"flush": "Interleaved1F1B" if vpp > 1
                              else "1F1B", "gpipe": "GPipe"}[p.sched],
               "schedule %s" % sched)
    else:
        mb, m, vpp, per = t["local_batch_size"], acc, 1, [sum(p.blocks)]
    expect(bad, (mb, m, t["global_batch_size"]) == (p.b, p.m, p.B),
           "batch %s vs plan" % ((mb, m, t["global_batch_size"]),))
    expect(bad, vpp == p.v, "virtual stages %d vs %d" % (vpp, p.v))
    expect(bad, per == p.blocks, "blocks per stage %s vs %s"
           % (per, p.blocks))
    # --runtime torchtitan:compile priced Inductor's fusions: the job
    # compiles the blocks and the loss (J:721-727); without it, eager
    comp = c.get("compile", {})
    expect(bad, comp.get("enable", False) == ("compile" in p.rt_opts),
           "compile %s vs the plan's runtime" % comp.get("enable", False))
    if comp.get("enable", False):
        expect(bad, set(comp.get("components", ["model", "loss"])) ==
               U.TORCHTITAN_COMPILE_COMPONENTS, "compile components")
    # --runtime torchtitan:compile,async-tp priced the TP collectives
    # hidden under their matmuls: the job asks for it, which torchtitan
    # honours only with the model compiled (tensor_parallel.py:16-25)
    atp = c["parallelism"].get("enable_async_tensor_parallel", False)
    expect(bad, atp == ("async-tp" in p.rt_opts and p.t > 1),
           "async TP %s vs the plan's runtime" % atp)
    if atp:
        expect(bad, comp.get("enable", False) and "model" in
               comp.get("components", ["model", "loss"]),
               "async TP without the model compiled")
    # --runtime torchtitan:early-stop priced each recomputation
    # stopping once the saved tensors are back: the job asks for it
    # (J:675, passed to the checkpoint wrappers at AC:150-156)
    es = c["activation_checkpoint"].get("early_stop", False)
    expect(bad, es == ("early-stop" in p.rt_opts),
           "early_stop %s vs the plan's runtime" % es)
    mode = c["activation_checkpoint"]["mode"]
    opt = c["activation_checkpoint"].get("selective_ac_option", "2")
    if mode == "selective" and opt.isdigit():
        # every N-th block of a rank: its parts' blocks in build order
        parts = q.get("module_fqns_per_model_part") or [
            ["layers.%d" % i for i in range(sum(p.blocks))]]
        rs = []
        for s in range(p.d):
            k, got = 0, []
            for i, part in enumerate(parts):
                if U.torchtitan_stage_rank(i, pp) != s:
                    continue
                for x in part:
                    if x.startswith("layers."):
                        k += 1
                        got.append(2 if U.torchtitan_layer_sac(opt, k)
                                   else 0)
            rs.append(got)
        # exact where the plan chose torchtitan's blocks; other blocks
        # (fms-fsdp's fraction, GLPK's choice) are covered by as many
        # or more on each rank
        check_rc(bad, p, rs, False)
    elif mode == "selective":
        # AC:177-183: "op" is the per-op policy in every block, what a
        # plan priced with recompute_modules op recomputes
        expect(bad, opt == "op", "selective_ac_option %r" % opt)
        expect(bad, p.rc_modules == "op",
               "per-op recomputation for a plan priced with %r"
               % p.rc_modules)
        rs = [[1] * p.blocks[s] for s in range(p.d)]
        check_rc(bad, p, rs, True)
    else:
        rs = [[2 if mode == "full" else 0] * p.blocks[s]
              for s in range(p.d)]
        check_rc(bad, p, rs, uniform_plan(p) and set(p.rc) != {1})
    expect(bad, U.TORCHTITAN_FLAVORS[(c["model"].get("name", "llama3"),
                                      c["model"]["flavor"])] ==
           sum(p.blocks), "flavor's layers")
    # F8:85-94: FSDP gathers in FP8 where the plan priced it (a
    # tensorwise FP8 plan for torchtitan:fp8-all-gather, ZeRO-2/3,
    # dp_shard > 1), nowhere else
    f8 = c.get("quantize", {}).get("linear", {}).get("float8", {})
    expect(bad, bool(f8.get("enable_fsdp_float8_all_gather")) ==
           (p.runtime == "torchtitan" and "fp8-all-gather" in p.rt_opts and
            p.prec == "fp8" and p.fp8_recipe == "tensorwise" and
            p.zs >= 2 and q["data_parallel_shard_degree"] > 1),
           "FP8 all-gather vs plan")
    # J:738: the recipe the plan priced; without a recipe_name torchao's
    # default config scales tensorwise (F8:85-100)
    # (pd2bw names rowwise_with_gw_hp rowwise-with-gw-hp)
    if p.prec == "fp8":
        expect(bad, (f8.get("recipe_name") or "tensorwise") ==
               (p.fp8_recipe or "").replace("-", "_"),
               "float8 recipe %s vs plan %s" % (f8.get("recipe_name"),
                                                p.fp8_recipe))
        # the output layer and the blocks the plan kept in bf16 stay
        # 16-bit: the converter skips a module whose name holds a
        # filter_fqns entry (torchtitan components/quantization/
        # utils.py:25 at v0.2.2), "layers.N." block N's alone
        n = sum(p.blocks)
        keep = ["output"] + ["layers.%d." % i for i in range(n)
                             if i < p.bf16_first or i >= n - p.bf16_last]
        expect(bad, f8.get("filter_fqns") == keep,
               "filter_fqns %s vs plan %s" % (f8.get("filter_fqns"), keep))
    ep = q.get("expert_parallel_degree", 1)
    expect(bad, ep == p.e, "expert parallel %d vs plan %d" % (ep, p.e))
    if ep > 1:
        expect(bad, q.get("expert_tensor_parallel_degree", 1) == p.etp,
               "expert tensor parallel vs plan %d" % p.etp)
        # L4:181: FSDP wraps the model whenever EP is on: the plan's
        # data-parallel ranks must be FSDP's.
        expect(bad, p.zs >= 2 or p.w * max(p.c, 1) == 1,
               "EP under ZeRO-%d (L4:181)" % p.zs)
    return bad


# ---- Megatron-Bridge ----

def check_bridge(p, path):
    bad = []
    with open(path) as f:
        c = load_yaml(f)
    recipe = U.bridge_recipe(path)
    bad += U.bridge_rules(c, recipe)
    if recipe and recipe not in U.BRIDGE_RECIPES:
        return bad
    # the precision the plan priced, as Bridge's preset (MX: the FP8
    # recipes delayed, tensorwise (current scaling), blockwise
    # (subchannel), mxfp8; NVFP4; fp32 none)
    want = {"bf16": "bf16_mixed", "fp16": "fp16_mixed",
            "nvfp4": "bf16_with_nvfp4_mixed"}.get(p.prec)
    if p.prec == "fp8":
        want = {"delayed": "bf16_with_fp8_delayed_scaling_mixed",
                "tensorwise": "bf16_with_fp8_current_scaling_mixed",
                "blockwise": "bf16_with_fp8_subchannel_scaling_mixed",
                "mxfp8": "bf16_with_mxfp8_mixed"}[p.fp8_recipe or "delayed"]
    expect(bad, c.get("mixed_precision") == want,
           "mixed_precision %s vs plan %s %s"
           % (c.get("mixed_precision"), p.prec, p.fp8_recipe))
    # MX:296-303: the current-scaling preset keeps the first and the last
    # block in bf16; the others none
    keep = (1, 1) if want == "bf16_with_fp8_current_scaling_mixed" else (0, 0)
    expect(bad, keep == (p.bf16_first, p.bf16_last),
           "preset %s keeps %s blocks in bf16, the plan %s"
           % (want, keep, (p.bf16_first, p.bf16_last)))
    # the fused kernels the plan priced, where the file sets them (TC:
    # 496, 510, 513, MP:320; a recipe's provider keeps its own)
    fz = p.fused
    m0 = c["model"]
    for k, on in (("bias_dropout_fusion", "dropadd" in fz),
                  ("cross_entropy_loss_fusion", "xent" in fz)):
        if k in m0:
            expect(bad, m0[k] == on, "%s vs the plan's fusions %s"
                   % (k, p.fusions))
    for k, f in (("bias_activation_fusion", "act"),
                 ("apply_rope_fusion", "rope")):
        if m0.get(k):
            expect(bad, f in fz, "%s on, the plan's fusions %s"
                   % (k, p.fusions))
    # a recipe's provider (the "# Recipe:" line) sets what the file
    # leaves out
    mdl = U.bridge_model(c["model"], recipe)
    a = {"--pipeline-model-parallel-size":
         [str(mdl["pipeline_model_parallel_size"])],
         "--num-layers": [str(mdl["num_layers"])],
         "--mtp-num-layers": [str(mdl.get("mtp_num_layers") or 0)]}
    if mdl.get("pipeline_model_parallel_layout"):
        a["--pipeline-model-parallel-layout"] = [
            mdl["pipeline_model_parallel_layout"]]
    for k, f in (("num_layers_in_first_pipeline_stage",
                  "--decoder-first-pipeline-num-layers"),
                 ("num_layers_in_last_pipeline_stage",
                  "--decoder-last-pipeline-num-layers")):
        if mdl.get(k) is not None:
            a[f] = [str(mdl[k])]
    pp, vpp, chunks = megatron_chunks(bad, p, a)
    v = mdl.get("virtual_pipeline_model_parallel_size")
    expect(bad, (v or 1) == vpp, "vpp %s vs layout %d (TC:2276-2284)"
           % (v, vpp))
    t = mdl["tensor_model_parallel_size"]
    cp = mdl.get("context_parallel_size", 1)
    expect(bad, (t, pp, cp, p.world // (t * pp * cp)) ==
           (p.t, p.d, max(p.c, 1), p.w), "t/p/c/d")
    if cp > 1:
        # TC:1030-1036: p2p is the ring pd2bw prices
        expect(bad, mdl.get("cp_comm_type") == "p2p", "cp_comm_type")
    expect(bad, vpp == p.v, "virtual stages")
    expect(bad, bool(mdl["sequence_parallel"]) == bool(p.sp), "sp")
    expect(bad, (c["train"]["micro_batch_size"],
                 c["train"]["global_batch_size"]) == (p.b, p.B), "batch")
    # Bridge asserts that the dataset's sequence is the model's
    # (training/config.py:1642-1647 at 067f987; :1348-1359 at v0.2.0,
    # where the key is Megatron-Core's sequence_length)
    ds = c.get("dataset") or {}
    seq = mdl.get("seq_length")
    expect(bad, seq is not None and ds.get("seq_length") == seq and
           ds.get("sequence_length") == seq, "dataset sequence")
    # Muon's sharding is the dist_muon optimizer's own, the distributed
    # optimizer off (recipes/kimi/kimi_k2.py:199 at 63b08b397)
    muon = p.optimizer == "muon"
    expect(bad, c["ddp"]["use_distributed_optimizer"] ==
           (bool(p.zero) and not muon), "zero")
    own = "dist_muon" if recipe in U.BRIDGE_RECIPE_MUON else "adam"
    expect(bad, c["optimizer"].get("optimizer", own) ==
           ("dist_muon" if muon else own), "optimizer")
    if muon:
        expect(bad, c["optimizer"].get("muon_tp_mode") == "duplicated",
               "muon_tp_mode as priced (OC:282)")
    d = c["ddp"]
    expect(bad, bool(d.get("use_megatron_fsdp")) == (p.zs >= 2),
           "Megatron-FSDP for ZeRO-%d" % p.zs)
    if p.zs >= 2:
        expect(bad, d["data_parallel_sharding_strategy"] ==
               ("optim_grads" if p.zs == 2 else "optim_grads_params"),
               "sharding strategy")
        n = p.w * max(p.c, 1)
        g = p.shard if 0 < p.shard < n else n
        expect(bad, d.get("num_distributed_optimizer_instances", 1) ==
               n // g, "HSDP instances")
    expect(bad, bool(mdl.get("cpu_offloading")) == bool(p.offload),
           "activation offload")
    if p.offload:
        expect(bad, mdl.get("cpu_offloading_num_layers") ==
               (p.offload_blocks or sum(p.blocks) - 1),
               "offloaded layers")
    per = [sum(chunks[(s, k)] for k in range(vpp)) for s in range(pp)]
    expect(bad, per == p.blocks, "blocks per stage %s vs %s"
           % (per, p.blocks))
    g = mdl.get("recompute_granularity")
    n = mdl.get("recompute_num_layers") or 0
    if g == "selective":
        check_rc_modules(bad, p, mdl.get("recompute_modules"))
    rs = [[1 if g == "selective" else
           2 if g == "full" and (mdl["recompute_method"] == "uniform"
                                 or i < n) else 0
           for k in range(vpp) for i in range(chunks[(s, k)])]
          for s in range(pp)]
    check_rc(bad, p, rs, uniform_plan(p))
    bad += bridge_experts(p, mdl, recipe)
    return bad


def router_groups(groups, top):
    """Group-limited routing as (groups, best groups), None for none: one
    group, its one best taken, leaves every expert a candidate
    (group_limited_topk, megatron/core/transformer/moe/moe_utils.py:
    711-726 at Megatron-LM 2a75ac1), as without groups."""
    return (groups, top) if (groups or 1) > 1 else None


def bridge_experts(p, mdl, recipe=None):
    """Expert parallelism and the model/2 parts against the plan and the
    model file it was made from (when its input was one); mdl is the
    model section as the recipe runs it."""
    bad = U.bridge_expert_grid(p.world, mdl)
    n = mdl.get("num_moe_experts")
    expect(bad, mdl.get("expert_model_parallel_size", 1) == max(p.e, 1),
           "expert parallel %s vs plan %d"
           % (mdl.get("expert_model_parallel_size"), p.e))
    if n is not None:
        expect(bad, mdl.get("expert_tensor_parallel_size") == p.etp,
               "expert tensor parallel %s vs plan %d"
               % (mdl.get("expert_tensor_parallel_size"), p.etp))
    src = p.inputs.get("profile")
    try:
        with open(src) as f:
            y = load_yaml(f)
    except (OSError, TypeError, yaml.YAMLError):
        return bad
    fmt = y.get("format") if isinstance(y, dict) else None
    if fmt == "pd2bw-model/1":
        expect(bad, "kv_channels" not in mdl and n is None,
               "model/2 keys for a model/1 input")
    if fmt != "pd2bw-model/2":
        # a profile, or a Hugging Face config.json: not compared
        return bad
    e = y.get("moe") or {}
    hd = y.get("head_dim") or y["hidden"] // y["heads"]
    # q, k and v carry biases with add_bias_linear or add_qkv_bias
    expect(bad, bool(mdl.get("add_qkv_bias") or mdl.get("add_bias_linear"))
           == bool(y.get("qkv_bias") or y.get("bias")),
           "qkv biases differ from the model")
    if y.get("attention") == "mla":
        # MLA: heads of qk_head_dim + qk_pos_emb_head_dim, v_head_dim;
        # qk_layernorm normalises the latents (the provider's)
        la = y["mla"]
        expect(bad, (mdl.get("multi_latent_attention"),
                     mdl.get("q_lora_rank"), mdl.get("kv_lora_rank"),
                     mdl.get("qk_head_dim"), mdl.get("qk_pos_emb_head_dim"),
                     mdl.get("v_head_dim")) ==
               (True, la["q_rank"], la["kv_rank"], la["nope_dim"],
                la["rope_dim"], la["v_dim"]), "MLA differs from the model")
    else:
        expect(bad, (mdl.get("kv_channels"), mdl.get("qk_layernorm")) ==
               (hd, bool(y.get("qk_norm"))),
               "head_dim / qk_norm differ from the model")
    # the sliding window: (window - 1, 0) on the layers that are not
    # every global_every-th (TC:247; is_layer_window_attention,
    # megatron/core/transformer/utils.py:531-542 at 2a75ac1)
    w = mdl.get("window_size")
    expect(bad, ((w[0] + 1, mdl.get("window_attn_skip_freq"))
                 if w else (0, None)) ==
           ((y["window"], y.get("global_every") or None)
            if y.get("window") else (0, None)),
           "sliding window %s differs from the model's" % (w,))
    if recipe:
        # what only the recipe's provider sets, against the model
        expect(bad, (mdl["num_layers"], mdl["hidden_size"],
                     mdl["num_attention_heads"], mdl["ffn_hidden_size"],
                     mdl["vocab_size"], mdl["rotary_base"],
                     mdl.get("mtp_num_layers") or 0,
                     mdl["normalization"], mdl["gated_linear_unit"],
                     mdl["share_embeddings_and_output_weights"]) ==
               (y["layers"], y["hidden"], y["heads"], y["ffn_hidden"],
                y["vocab"], y.get("rope_base", 10000),
                y.get("mtp_layers", 0),
                "RMSNorm" if y.get("norm") == "rmsnorm" else "LayerNorm",
                y.get("activation") == "swiglu",
                bool(y.get("tied_embeddings"))),
               "the recipe's provider differs from the model")
    expect(bad, mdl.get("num_query_groups") == y.get("kv_heads",
                                                      y["heads"]),
           "query groups differ from kv_heads")
    expect(bad, mdl.get("softmax_type") == ("learnable" if
                                            y.get("attn_sinks")
                                            else "vanilla"),
           "softmax_type vs attention sinks")
    if not e.get("experts"):
        expect(bad, n is None, "experts for a dense model")
        return bad
    want = [1 if i >= e.get("first_dense", 0) and
            (i - e.get("first_dense", 0)) % e.get("every", 1) == 0 else 0
            for i in range(y["layers"])]
    f = mdl.get("moe_layer_freq", 1)
    got = f if isinstance(f, list) else [1 if i % f == 0 else 0
                                         for i in range(y["layers"])]
    expect(bad, got == want, "MoE layers %s vs the model's %s"
           % (got, want))
    sh = e.get("shared_experts", 0) * e.get("shared_ffn", 0)
    cf = e.get("capacity_factor", 0)
    expect(bad, (n, mdl.get("moe_router_topk"), mdl.get("moe_ffn_hidden_size"),
                 mdl.get("moe_shared_expert_intermediate_size"),
                 mdl.get("moe_shared_expert_gate"),
                 mdl.get("moe_expert_capacity_factor"),
                 router_groups(mdl.get("moe_router_num_groups"),
                               mdl.get("moe_router_group_topk"))) ==
           (e["experts"], e["top_k"], e["expert_ffn"], sh or None,
            bool(e.get("shared_gate")), cf or None,
            router_groups(e.get("groups"), e.get("group_top_k"))),
           "experts differ from the model's")
    # what pd2bw prices (cost model): grouped GEMM, the plan's dispatcher
    # (the flex one with HybridEP when its runtime has flex-dispatcher)
    flex = p.runtime == "megatron-core" and "flex-dispatcher" in p.rt_opts
    expect(bad, bool(mdl.get("use_transformer_engine_op_fuser")) ==
           (p.runtime == "megatron-core" and "op-fuser" in p.rt_opts),
           "op fuser differs from the plan's runtime")
    expect(bad, mdl.get("moe_permute_fusion") is True,
           "MoE permutations unfused, priced fused (TC:941)")
    expect(bad, mdl.get("moe_grouped_gemm") is True and
           mdl.get("moe_token_dispatcher_type") ==
           ("flex" if flex else "alltoall") and
           (not flex or mdl.get("moe_flex_dispatcher_backend") == "hybridep"),
           "grouped GEMM / the plan's dispatcher")
    expect(bad, mdl.get("moe_expert_rank_capacity_factor") == p.rank_cap,
           "rank capacity differs from the plan's")
    expect(bad, bool(mdl.get("moe_paged_stash")) ==
           (p.runtime == "megatron-core" and "paged-stash" in p.rt_opts),
           "paged stash differs from the plan's runtime")
    return bad


# ---- launch ----

def check_launch(p, path):
    """The rank each worker gets must run the stage, replica and tensor
    rank the plan placed on that node and GPU, in the runtimes' order
    (upstream.deepspeed_rank, Megatron's the same)."""
    bad = []
    text = open(path).read()
    subprocess.run(["bash", "-n", path], check=True)
    ranks = text.split("PD2BW_RANKS='")[1].split("'")[0].split("\n")
    gpus = None
    if "PD2BW_GPUS='" in text:
        gpus = text.split("PD2BW_GPUS='")[1].split("'")[0].split("\n")
    where = {(r["node"], r["gpu"]): r for r in p.ranks}
    for n, line in enumerate(ranks):
        for l, rk in enumerate(line.split()):
            g = int(gpus[n].split(",")[l]) if gpus else l
            r = where[(n, g)]
            expect(bad, int(rk) == U.deepspeed_rank(
                r["stage"], r["replica"], r["tp"], p.w, p.t),
                "node %d gpu %d gets rank %s" % (n, g, rk))
    return bad


CHECKERS = {"megatron": check_megatron, "deepspeed": check_deepspeed,
            "torchtitan": check_torchtitan, "megatron-bridge": check_bridge,
            "launch": check_launch}

PRESETS = ["p3.16xlarge:2", "dgx-a100:2", "dgx-h100:4", "dgx-h200:2",
           "l40s-pcie:2", "dgx-1-v100:2"]
BATCH = {"gpt3-175b": 256, "llama3-70b": 256}


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


# Mixtures of experts are planned a second time as torchtitan runs them,
# expert-parallel degrees included (its qwen3 flavors emit those).
MOE_EXTRA = ["--runtime", "torchtitan", "--expert-parallel", "1,2,4,8"]
# ... and as DeepSpeed-MoE runs them (1F1B without interleaving or
# selective recomputation), the models its emitter writes.
DS_MOE_EXTRA = ["--runtime", "deepspeed", "--expert-parallel", "1,2,4,8",
                "--interleave", "1", "-r", "none,full"]
# ... and as Megatron-Bridge's recipes run them with CUDA graphs of the
# whole iteration: HybridEP with a budget per GPU, the op fuser (whole
# experts), the paged stash.
MCORE_MOE_EXTRA = ["--runtime",
                   "megatron-core:flex-dispatcher,op-fuser,cuda-graphs,"
                   "paged-stash",
                   "--expert-parallel", "1,2,4,8",
                   "--expert-tensor-parallel", "1",
                   "--moe-rank-capacity", "1.25"]
# ... and as the eager presets run them, with Transformer Engine's graphs
# of each layer's attention, router and preprocessing (no full
# recomputation under them).
MCORE_TE_GRAPHS_EXTRA = ["--runtime", "megatron-core:te-graphs",
                         "--expert-parallel", "1,2,4,8",
                         "-r", "none,selective"]
# Llama 3 as torchtitan runs it compiled (torch.compile's fusions), with
# async TP, which has the TP plans emit enable_async_tensor_parallel, and
# recomputation that stops early (early_stop).
TT_COMPILE_EXTRA = ["--runtime", "torchtitan:compile,async-tp,early-stop"]
# another sequence than the model's: the plan keeps it (config seq_len),
# --from-plan re-evaluates and emits at it
SEQ_EXTRA = ["--seq-len", "2048"]


def sweep(quick):
    models = sorted(f[:-5] for f in os.listdir(os.path.join(TOP, "models"))
                    if f.endswith(".yaml"))
    runs = [(m, []) for m in models]
    for m in models:
        with open(os.path.join(TOP, "models", m + ".yaml")) as f:
            moe = "\nmoe:" in f.read()
            if m.startswith("qwen3-") and moe:
                runs.append((m, MOE_EXTRA))
            if m.startswith(("qwen3-", "mixtral-")) and moe:
                runs.append((m, DS_MOE_EXTRA))
            if m.startswith(("qwen3-", "gpt-oss-")) and moe:
                runs.append((m, MCORE_MOE_EXTRA))
            if m.startswith(("qwen3-", "mixtral-")) and moe:
                runs.append((m, MCORE_TE_GRAPHS_EXTRA))
            if m.startswith("llama3"):
                runs.append((m, TT_COMPILE_EXTRA))
            if m in ("llama3-8b", "qwen3-30b-a3b", "gpt-oss-120b"):
                runs.append((m, SEQ_EXTRA))
    runs.sort(key=lambda r: (r[0], r[1]))
    presets = PRESETS[:2] if quick else PRESETS
    tps = ["1", "4"] if quick else ["1", "2", "4", "8"]
    counts = {f: 0 for f in CHECKERS}
    refused = plans = 0
    failures = []
    with tempfile.TemporaryDirectory() as d:
        for m, extra in runs:
            for c in presets:
                for t in tps:
                    plan = os.path.join(d, "plan.yaml")
                    r = run(["pd2bw-plan", os.path.join(TOP, "models",
                                                        m + ".yaml"),
                             "-c", c, "-B", str(BATCH.get(m, 512)),
                             "-s", "flush", "--interleave", "1,2,3,4",
                             "-r", "none,selective,full",
                             "--zero", "all", "-t", t,
                             "-q", "-o", plan] + extra)
                    if r.returncode == 3 or "no tensor-parallel" in r.stderr:
                        continue
                    if r.returncode:
                        failures.append("%s %s t%s: %s" % (m, c, t,
                                                          r.stderr.strip()))
                        continue
                    plans += 1
                    p = Plan(plan)
                    # every format in one run (all written or none); the
                    # formats it refuses, each named in a message, are
                    # left out of a second run
                    fmts = list(CHECKERS)
                    for attempt in (0, 1):
                        outs = {f: os.path.join(d, "out." + f) for f in fmts}
                        argv = ["pd2bw-plan", "--from-plan", plan]
                        for f in fmts:
                            argv += ["--emit", f, "--emit-output", outs[f]]
                        r = run(argv)
                        said = [f for f in fmts if "pd2bw-plan: --emit %s:" % f
                                in r.stderr]
                        if r.returncode == 1 and said and attempt == 0:
                            if any(os.path.exists(o) for o in outs.values()):
                                failures.append("%s %s t%s: a refusal left "
                                                "files written" % (m, c, t))
                            refused += len(said)
                            fmts = [f for f in fmts if f not in said]
                            if not fmts:
                                break
                            continue
                        if r.returncode or r.stderr:
                            failures.append("%s %s t%s %s: rc %d %s" % (
                                m, c, t, ",".join(fmts), r.returncode,
                                r.stderr.strip()))
                            break
                        for f in fmts:
                            try:
                                bad = CHECKERS[f](p, outs[f])
                            except Exception as e:  # a parse error fails
                                bad = ["%s: %s" % (type(e).__name__, e)]
                            counts[f] += 1
                            if bad:
                                failures.append("%s %s t%s %s: %s" % (
                                    m, c, t, f, "; ".join(bad)))
                            os.unlink(outs[f])
                        break
    for x in failures:
        print("FAIL", x)
    print("%d plans; checked %d emitted files (%s); %d refused with a "
          "message; %d failures" % (
              plans, sum(counts.values()),
              ", ".join("%s %d" % kv for kv in counts.items()), refused,
              len(failures)))
    return 1 if failures else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "sweep":
        return sweep(len(argv) > 2 and argv[2] == "quick")
    if len(argv) == 3 and argv[1] == "ranks":
        for r in Plan(argv[2]).ranks:
            print(r["rank"], r["node"], r["gpu"], r["stage"], r["replica"],
                  r["tp"], r.get("cp", 0))
        return 0
    if len(argv) == 5 and argv[1] == "one":
        try:
            bad = CHECKERS[argv[2]](Plan(argv[3]), argv[4])
        except Exception as e:  # a parse error fails, as in the sweep
            bad = ["%s: %s" % (type(e).__name__, e)]
        for b in bad:
            print("FAIL", b)
        print("%s: %s" % (argv[2], "ok" if not bad else
                          "%d failures" % len(bad)))
        return 1 if bad else 0
    print(__doc__ or "usage: check.py one FORMAT PLAN FILE | sweep [quick] | "
          "ranks PLAN")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
