pd2bw-profile --backend analytic --gpu H100-SXM -m 1,2,4 $TOP/models/gpt-1.3b.yaml -o p.yaml && cat p.yaml
