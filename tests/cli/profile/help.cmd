pd2bw-profile --help
