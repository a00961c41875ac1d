# packed documents (--doc-len): the header says so, the capacity file records it, and the runs are faster than over whole 16k sequences
for d in "" "--doc-len 1024"; do pd2bw-plan capacity $TOP/models/llama3-8b.yaml --tokens 1T --gpu H100-SXM --seq-len 16384 --max-nodes 2 $d -o c.yaml | sed -n '1p;4,6p'; grep -E 'doc_len' c.yaml; done
