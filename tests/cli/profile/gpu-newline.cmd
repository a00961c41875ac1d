pd2bw-profile --gpu "$(printf 'x\ny')" $TOP/models/gpt-1.3b.yaml; echo "exit $?"; pd2bw-profile "--bad$(printf '\nopt')"
