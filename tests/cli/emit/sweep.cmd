PATH="$PLAIN:$PATH" python3 $TOP/tests/emit/check.py sweep
