pd2bw-plan capacity --bogus
