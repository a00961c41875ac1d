pd2bw-profile -b analytic -g H100-SXM -m 1 -t 2 $TOP/tests/data/hf/gemma3-4b.json | sed -n 1,40p
