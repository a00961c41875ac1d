CHECK_MEAN=7.5 CHECK_MAX=32 sh $TOP/bench/validate.sh --check -q "$(dirname "$(command -v pd2bw-plan)")" >v.txt; rc=$?; grep -E '^(check|dense|parallel|section [A-Z]: n=[1-9])' v.txt; exit $rc
