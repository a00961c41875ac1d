pd2bw-plan --help
