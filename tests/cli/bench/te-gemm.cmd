sh $TOP/bench/te-gemm.sh "$PLAIN"
