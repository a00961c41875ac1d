pd2bw-profile -b cpu
