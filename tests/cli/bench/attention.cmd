sh $TOP/bench/attention.sh "$PLAIN"
