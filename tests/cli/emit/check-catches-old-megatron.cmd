python3 $TOP/tests/emit/check.py one megatron $TOP/tests/data/emit/llama3-8b-v4-plan.yaml $TOP/tests/data/emit/old-megatron-llama3-8b-v4.sh
