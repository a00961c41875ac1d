CHECK_MEAN=6.7 CHECK_MAX=32 CHECK_MEAN_PAR=71 sh $TOP/bench/validate.sh --check -q "$PLAIN" >v.txt; rc=$?; grep -E '^(check|dense|parallel|section [A-Z]: n=[1-9])' v.txt; exit $rc
