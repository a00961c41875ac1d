pd2bw-plan --from-plan plan.yaml
