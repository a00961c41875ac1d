sh $TOP/bench/te-gemm.sh "$B"
