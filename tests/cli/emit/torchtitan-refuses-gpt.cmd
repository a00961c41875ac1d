pd2bw-plan $TOP/models/gpt-3.8b.yaml -c dgx-a100:2 -B 512 -s flush -q --emit torchtitan
