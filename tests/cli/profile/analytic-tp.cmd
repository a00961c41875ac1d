pd2bw-profile -g h200 -t 1,2,4 -m 1 $TOP/models/llama3-8b.yaml -o p.yaml && ls && grep -H "^tp:" p-tp*.yaml
