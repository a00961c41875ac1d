pd2bw-profile -V
