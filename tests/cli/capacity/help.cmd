pd2bw-plan capacity --help
