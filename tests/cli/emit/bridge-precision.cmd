for p in bf16 fp16 fp32; do pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 64 -e --width 8 --depth 1 --microbatch 1 -s flush -r full --zero 1 --runtime megatron-core --precision $p --seq-len 2048 -q -o p-$p.yaml --emit megatron-bridge --emit-output b-$p.yaml; echo "$p rc $?"; grep -E '^  (bf16|fp16):|^mixed_precision' b-$p.yaml; python3 $TOP/tests/emit/check.py one megatron-bridge p-$p.yaml b-$p.yaml; done; python3 -c "
import sys, yaml
sys.path.insert(0, '$TOP/tests/emit'); import upstream
for f, mp in (('b-fp16.yaml', 'bf16_mixed'), ('b-fp32.yaml', 'bf16_mixed'), ('b-bf16.yaml', None)):
    c = yaml.safe_load(open(f)); c['mixed_precision'] = mp
    print(f, [b for b in upstream.bridge_rules(c) if 'mixed_precision' in b])
c = yaml.safe_load(open('b-fp16.yaml')); del c['mixed_precision']
print('fp16 without a preset:', [b for b in upstream.bridge_rules(c) if 'mixed_precision' in b])
"
for p in bf16 fp16; do pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 64 -e --width 8 --depth 1 --microbatch 1 -s flush -r full --zero 1 --runtime megatron-core:no-grad-reduce-fp32 --precision $p --seq-len 2048 -q -o g-$p.yaml --emit megatron --emit-output g-$p.sh --emit megatron-bridge --emit-output g-$p.b.yaml; echo "$p no-grad-reduce-fp32 rc $?"; grep -E 'grad-reduce|Gradients' g-$p.sh; grep -E 'bf16 \(no-grad' g-$p.b.yaml; python3 $TOP/tests/emit/check.py one megatron g-$p.yaml g-$p.sh; done; python3 -c "
import sys
sys.path.insert(0, '$TOP/tests/emit'); import upstream
print([b for b in upstream.megatron_rules({'--fp16': [None], '--grad-reduce-in-bf16': [None]}, 1) if 'bf16' in b])
"
