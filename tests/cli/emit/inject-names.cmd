python3 $TOP/tests/emit/inject.py
