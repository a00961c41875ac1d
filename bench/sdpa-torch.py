# sdpa-torch.py - cuDNN's and FlashAttention-2's fused attention as
# PyTorch's SDPA runs them on the GPU at hand, bf16, q, k and v contiguous
# (batch, heads, tokens, head size), forward and backward (dq, dk, dv)
# timed apart with CUDA events: 10 calls between two events, so that the
# host runs ahead and no launch gap is timed, the median of 7 such groups
# after 2.  One line per shape: the backend, then bench/data/cudnn-sdpa.tsv's
# columns (the GPU: the device name's model, "H100" of "NVIDIA H100 80GB
# HBM3"; bench/data names it as the catalog does, H100-SXM).
# bench/gpu-check.sh runs it where python3 has torch with CUDA:
#
#   python3 bench/sdpa-torch.py
import statistics, sys, torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

dev = "cuda"
GPU = torch.cuda.get_device_name(0).replace("NVIDIA ", "").split()[0]
print("# torch", torch.__version__, "cudnn", torch.backends.cudnn.version(),
      torch.cuda.get_device_name(0), flush=True)
CASES = [  # model, mask, batch, seqs, q heads, kv heads, head dim
    ("llama3.1", "causal", 1, (2048, 4096, 8192, 16384), 64, 8, 128),
    ("llama3.1", "none", 1, (2048, 4096, 8192, 16384), 64, 8, 128),
    ("mha128", "causal", 1, (2048, 8192), 64, 64, 128),
    ("gpt_oss", "causal", 2, (2048, 4096, 8192, 16384), 64, 8, 64),
    ("llama3-8b", "causal", 1, (4096, 8192), 32, 8, 128),
    ("gpt2-xl", "causal", 8, (1024,), 25, 25, 64),
    ("gemma", "causal", 2, (4096, 8192), 16, 8, 256),
]


def timed(fn, n=7, w=2, k=10):
    # k calls between two events, so that the host runs ahead of the GPU
    # and no launch gap is timed; the median of n such groups, per call
    ts = []
    for i in range(n + w):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(k):
            fn()
        b.record()
        torch.cuda.synchronize()
        if i >= w:
            ts.append(a.elapsed_time(b) / k)
    return statistics.median(ts)


for be, name in ((SDPBackend.CUDNN_ATTENTION, "cudnn"),
                 (SDPBackend.FLASH_ATTENTION, "flash")):
    if name == "flash":
        CASES = CASES[:3]
    for model, mask, b, seqs, hq, hk, d in CASES:
        for s in seqs:
            try:
                q = torch.randn(b, hq, s, d, device=dev, dtype=torch.bfloat16,
                                requires_grad=True)
                k = torch.randn(b, hk, s, d, device=dev, dtype=torch.bfloat16,
                                requires_grad=True)
                v = torch.randn(b, hk, s, d, device=dev, dtype=torch.bfloat16,
                                requires_grad=True)
                gqa = hq != hk
                with sdpa_kernel([be]):
                    f = lambda: F.scaled_dot_product_attention(
                        q, k, v, is_causal=mask == "causal", enable_gqa=gqa)
                    o = f()
                    g = torch.randn_like(o)
                    fw = timed(f)
                    o = f()
                    bw = timed(lambda: torch.autograd.grad(
                        o, (q, k, v), g, retain_graph=True))
                print("%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t0\t%.3f\t%.3f"
                      % (name, GPU, torch.backends.cudnn.version(), model,
                         mask, b, s, hq, hk, d, fw, bw), flush=True)
                del q, k, v, o, g
            except Exception as e:
                print("%s\t%s %s b=%d s=%d d=%d: %s" % (
                    name, model, mask, b, s, d, str(e).splitlines()[0][:200]),
                    flush=True)
