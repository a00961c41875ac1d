pd2bw-profile -b cpu no-such-model.yaml
