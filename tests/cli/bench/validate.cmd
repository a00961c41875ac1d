CHECK_MEAN=7.5 CHECK_MAX=32 sh $TOP/bench/validate.sh --check -q "$PLAIN" >v.txt; rc=$?; grep -E '^(check|dense|section [A-Z]: n=[1-9])' v.txt; exit $rc
