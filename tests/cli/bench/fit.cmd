sh $TOP/bench/fit.sh "$PLAIN"
