CHECK_MEAN=7.5 CHECK_MAX=31 CHECK_MEAN_PAR=24 sh $TOP/bench/validate.sh --check -q "$PLAIN" >v.txt; rc=$?; grep -E '^(check|dense|parallel|section [A-Z]: n=[1-9])' v.txt; exit $rc
