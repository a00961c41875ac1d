# a scale case: run on the optimised build ($PLAIN)
PATH="$PLAIN:$PATH"; python3 -c "
import sys
print(\"format: pd2bw-gpus/1\ngpus:\")
for i in range(30000): print(\"  - {name: G%d, memory_gib: 80, tflops16: 300, tflops32: 20, memory_gb_s: 2000, nvlink_gb_s: 300, pcie_gb_s: 32, gemm_eff: 0.7, attn_eff: 0.4, mem_eff: 0.8, kernel_us: 3}\" % i)
print(\"  - {name: g-29999, memory_gib: 8, tflops16: 3, tflops32: 2, memory_gb_s: 2, nvlink_gb_s: 3, pcie_gb_s: 3, gemm_eff: 0.7, attn_eff: 0.4, mem_eff: 0.8, kernel_us: 3}\")
" > g.yaml && pd2bw-profile --gpus g.yaml --list-gpus -o - | grep -c "name: G"; sed -i "\$d" g.yaml && timeout 20 pd2bw-profile --gpus g.yaml --list-gpus -o - | grep -c "name: G"
