pd2bw-plan --bogus x
