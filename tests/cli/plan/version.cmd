pd2bw-plan --version
