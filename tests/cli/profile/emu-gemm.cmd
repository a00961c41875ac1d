pd2bw-profile-emu --gemm 64,100x64x96 -g H200 -w 1 -r 3 | sed -E 's/[0-9]+\.[0-9]+/N/g'; pd2bw-profile-emu --gemm 32 -p fp32 -w 0 -r 1 | sed -E 's/[0-9]+\.[0-9]+/N/g'
