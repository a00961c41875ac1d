for r in delayed tensorwise blockwise mxfp8; do pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-b200:1 -B 64 --precision fp8 --fp8-recipe $r --runtime megatron-core -s flush --tp 2 -q -o p-$r.yaml --emit megatron --emit-output m-$r.sh; echo "rc $?"; grep -E "^# Precision|fp8|--bf16" m-$r.sh; bash -n m-$r.sh && echo "bash -n ok"; pd2bw-plan --emit megatron-bridge --from-plan p-$r.yaml --emit-output b-$r.yaml 2>/dev/null; grep -E "mixed_precision|bf16" b-$r.yaml; done; python3 -c "
import sys, shlex, yaml
sys.path.insert(0, '$TOP/tests/emit'); import upstream, check
for r in ('delayed', 'tensorwise', 'blockwise', 'mxfp8'):
    print(r, 'bridge rules:', upstream.bridge_rules(yaml.safe_load(open('b-%s.yaml' % r))) or 'ok')
"; pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 64 --precision fp8 --fp8-recipe mxfp8; echo "rc $?"
